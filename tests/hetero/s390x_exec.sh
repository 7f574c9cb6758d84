#!/usr/bin/env bash
# s390x_exec.sh NATIVE_BUILD S390X_BUILD PROGRAM [ARGS...]
# An exec_prefix for the s390x site of a heterogeneous test: runs the s390x build's copy of
# PROGRAM (its path with NATIVE_BUILD replaced by S390X_BUILD) under qemu-s390x. On a real
# metacomputer each site has its own build at the same path, and the prefix is qemu-s390x
# alone, or nothing on a real s390x machine.
set -euo pipefail
native=$1 s390x=$2 prog=$3
shift 3
exec qemu-s390x "${prog/#$native/$s390x}" "$@"
