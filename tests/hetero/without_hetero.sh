#!/bin/sh
# without_hetero.sh SOURCE_DIR WORK_DIR syntax|full [S390X_BUILD]
# metampi built with -DMETAMPI_HETERO=OFF (docs/heterogeneity.md): the like-peer test a
# constant, a job of several architectures refused at MPI_Init.
#   syntax  compiles like_peers_constant.c (a static assertion) and the sources that ask
#           peer_arch_all_same() in that build (-fsyntax-only; seconds)
#   full    configures and builds the library, mpirun and hetero_bytes in WORK_DIR, runs two
#           like ranks, then (with qemu-s390x and S390X_BUILD, else exit 77 after the first
#           run) two virtual hosts whose second rank is s390x: MPI_Init must refuse with the
#           one-line reason (minutes: label long)
set -eu
src=$1 work=$2 mode=$3
if [ "$mode" = syntax ]; then
    for f in tests/hetero/like_peers_constant.c src/runtime/peer_arch.c src/proto/recv.c \
             src/core/p2p.c src/core/bsend.c src/core/comm_arch.c src/coll/dispatch.c \
             src/rma/ops.c src/rma/convert.c src/api/win_checks.c; do
        cc -std=c11 -D_GNU_SOURCE -DMETAMPI_HETERO_OFF -DMETAMPI_VERSION_STRING=\"x\" \
           -Wall -Wextra -Werror -fsyntax-only -I"$src/src" -I"$src/include" -I"$work/include" \
           "$src/$f"
    done
    echo "without hetero: the like-peer test is a constant, the sources compile"
    exit 0
fi
s390x=${4:-}
cmake -S "$src" -B "$work" -DMETAMPI_HETERO=OFF -DMETAMPI_FORTRAN=OFF >/dev/null
cmake --build "$work" -j 2 --target mpi mpirun metampi-hostd hetero_bytes >/dev/null
prog=$work/tests/bin/hetero_bytes
"$work/bin/mpirun" -n 2 "$prog" >/dev/null
echo "without hetero: two like ranks run"
if ! command -v qemu-s390x >/dev/null || [ ! -x "$s390x/tests/bin/hetero_bytes" ]; then
    echo "without hetero: skipped the refusal: no qemu-s390x or no s390x build in '$s390x'" >&2
    exit 77
fi
# the s390x twin of $prog is $s390x/tests/bin/hetero_bytes (s390x_exec.sh swaps the prefix)
prefix="$src/tests/hetero/s390x_exec.sh $work $s390x --ranks 1"
if out=$(METAMPI_VIRTUAL_HOSTS=2 timeout 60 "$work/bin/mpirun" -n 2 --exec-prefix "$prefix" \
         "$prog" 2>&1); then
    echo "a job of two architectures ran in a build without heterogeneity support" >&2
    exit 1
fi
case $out in
*"built with -DMETAMPI_HETERO=OFF"*) ;;
*) echo "a job of two architectures: no clear error: $out" >&2; exit 1 ;;
esac
echo "without hetero: a job of two architectures refused:"
printf '%s\n' "$out" | grep -m1 "METAMPI_HETERO=OFF"
