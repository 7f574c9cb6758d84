#!/usr/bin/env bash
# Installs the Debian 12 packages that building and testing metampi need; does nothing for
# packages already present. Benchmark-only packages are installed by bench/setup.sh.
#   build-essential cmake pkg-config   the build and the install/pkg-config tests
#   libhwloc-dev                       CPU topology for mpirun's rank binding (runtime: libhwloc15)
#   libssl-dev                         HMAC job-key authentication of TCP connections (libcrypto),
#                                      TLS 1.3 on the WAN streams (libssl)
#   libzstd-dev                        compression of WAN frames by the site gateways
#   libinih-dev                        mpirun's metacomputer description (INI, --metacomputer)
#   python3                            the launcher and error-report test drivers
#   python3-matplotlib                 the demo's plot (make demo; for /usr/bin/python3)
#   python3-dev python3-venv python3-pip python3-setuptools python3-wheel
#                                      building mpi4py for its test suite (label mpi4py; the
#                                      sdist and Cython come from PyPI: scripts/fetch-mpi4py.sh)
#   mpich                              mpiexec.hydra, for the PMI-1 compatibility tests
#   libpmix-dev                        the PMIx client (srun --mpi=pmix, Open MPI's mpirun)
#   slurm-wlm munge                    a private Slurm cluster for the tests labelled slurm
#                                      (PMI-2, PMIx, mpirun in an allocation; docs/slurm.md)
#   openmpi-bin                        Open MPI's mpirun, a PMIx launcher (tests labelled pmix)
#   procps iproute2                    process and socket checks of the failure-path tests;
#                                      ip/tc build the emulated clusters (tests/cluster)
#   iputils-ping                       reachability and round trips in the emulated clusters
#   clang-14 libclang-rt-14-dev        libFuzzer, for the fuzz tests of the network parsers
#   gfortran                           the Fortran bindings (mpif.h, the mpi module, mpifort)
#   gcc-s390x-linux-gnu g++-s390x-linux-gnu libc6-dev-s390x-cross qemu-user libssl-dev:s390x
#                                      a big-endian build (make build-s390x) whose ranks run
#                                      under qemu-s390x in heterogeneous jobs (tests/hetero;
#                                      multiarch: dpkg --add-architecture s390x). libssl-dev of
#                                      both architectures must be one version (Multi-Arch: same),
#                                      and the s390x archive may lag amd64's security updates:
#                                      both are pinned to the newest version both archives have.
set -euo pipefail
packages=(build-essential cmake pkg-config libhwloc-dev libssl-dev libinih-dev libzstd-dev python3
          python3-matplotlib python3-dev python3-venv python3-pip python3-setuptools python3-wheel
          mpich procps iproute2 iputils-ping clang-14 libclang-rt-14-dev gfortran
          libpmix-dev slurm-wlm munge openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The s390x cross build and qemu-user (heterogeneous jobs, docs/heterogeneity.md).
cross=(gcc-s390x-linux-gnu g++-s390x-linux-gnu libc6-dev-s390x-cross qemu-user)
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
if ! dpkg --print-foreign-architectures | grep -qx s390x; then
  $SUDO dpkg --add-architecture s390x
  $SUDO apt-get update -qq
fi
missing=()
for p in "${cross[@]}" libssl-dev:s390x; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  # the newest libssl-dev version that both architectures' archives offer
  versions() { apt-cache madison "libssl-dev:$1" | awk -F'|' '{gsub(/ /,"",$2); print $2}' | sort -u; }
  ssl=$(comm -12 <(versions amd64) <(versions s390x) | sort -V | tail -n 1)
  if [ -z "$ssl" ]; then
    echo "install-deps.sh: no libssl-dev version is in both the amd64 and the s390x archive;" \
         "the s390x build (make build-s390x) cannot be set up" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    --allow-downgrades "${cross[@]}" "libssl-dev:amd64=$ssl" "libssl3:amd64=$ssl" \
    "libssl-dev:s390x=$ssl" "libssl3:s390x=$ssl"
fi

"$(dirname "$0")/fetch-mpi4py.sh"
