#!/bin/sh
# Installs what the benchmarks need: the two reference MPIs (Open MPI, MPICH) with their
# compiler wrappers, matplotlib for the system python3 (/usr/bin/python3, which is the
# interpreter Debian's python3-matplotlib belongs to), and for the section between two emulated
# hosts iperf3 (one TCP stream, the bandwidth limit), iproute2 (ip netns, tc) and util-linux
# (unshare). Idempotent: installs only what is missing.
set -eu

missing=""
for pkg in python3-matplotlib openmpi-bin libopenmpi-dev mpich libmpich-dev iperf3 iproute2 \
           util-linux; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done

if [ -n "$missing" ]; then
    echo "bench/setup.sh: installing$missing"
    if [ "$(id -u)" -eq 0 ]; then
        sudo=""
    elif command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "bench/setup.sh: need root to install:$missing" >&2
        exit 1
    fi
    $sudo apt-get update -qq
    # shellcheck disable=SC2086  # $missing is a list of package names
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

for tool in mpicc.openmpi mpirun.openmpi mpicc.mpich mpirun.mpich iperf3 ip unshare; do
    command -v "$tool" >/dev/null 2>&1 || { echo "bench/setup.sh: $tool not found" >&2; exit 1; }
done
/usr/bin/python3 -c 'import matplotlib' || { echo "bench/setup.sh: matplotlib unusable" >&2; exit 1; }
