#!/usr/bin/env bash
# run_hetero.sh NATIVE_BUILD S390X_BUILD [--twin PROGRAM] COMMAND [ARGS...]
# Runs COMMAND when a heterogeneous job can be made here, else exits 77 (ctest: skipped) with
# the reason: the s390x build (make build-s390x) and qemu-s390x (qemu-user) are needed, both
# installed by scripts/install-deps.sh; with --twin, also the s390x twin of PROGRAM (a
# program of NATIVE_BUILD; make hetero-suite-programs builds the general programs' twins).
# S390X_EXEC in COMMAND's environment is the exec_prefix that runs a program of NATIVE_BUILD
# as its s390x twin (s390x_exec.sh); S390X_EXEC_RANKS, followed by R,..., the same for those
# ranks only.
set -euo pipefail
native=$1 s390x=$2
shift 2
twin=
if [[ ${1:-} == --twin ]]; then
  twin=${2/#$native/$s390x}
  shift 2
fi
if ! command -v qemu-s390x >/dev/null; then
  echo "run_hetero.sh: skipped: no qemu-s390x (qemu-user; scripts/install-deps.sh)" >&2
  exit 77
fi
if [[ ! -x $s390x/tests/bin/hetero_bytes ]]; then
  echo "run_hetero.sh: skipped: no s390x build in $s390x (make build-s390x)" >&2
  exit 77
fi
if [[ -n $twin && ! -x $twin ]]; then
  echo "run_hetero.sh: skipped: no s390x twin $twin (make hetero-suite-programs)" >&2
  exit 77
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export S390X_EXEC="$here/s390x_exec.sh $native $s390x"
export S390X_EXEC_RANKS="$here/s390x_exec.sh $native $s390x --ranks"
exec "$@"
