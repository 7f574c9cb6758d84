#!/usr/bin/env bash
# s390x_exec.sh NATIVE_BUILD S390X_BUILD [--ranks R,...] PROGRAM [ARGS...]
# An exec_prefix for the s390x side of a heterogeneous test: runs the s390x build's copy of
# PROGRAM (its path with NATIVE_BUILD replaced by S390X_BUILD) under qemu-s390x. On a real
# metacomputer each site has its own build at the same path, and the prefix is qemu-s390x
# alone, or nothing on a real s390x machine. With --ranks R,... only those ranks (PMI_RANK)
# run the s390x twin; the others run PROGRAM itself (unlike ranks under one mpirun).
set -euo pipefail
native=$1 s390x=$2
shift 2
only=
if [[ $1 == --ranks ]]; then
  only=$2
  shift 2
fi
prog=$1
shift
if [[ -n $only && ,$only, != *,${PMI_RANK:-none},* ]]; then
  exec "$prog" "$@"
fi
exec qemu-s390x "${prog/#$native/$s390x}" "$@"
