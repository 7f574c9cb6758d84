#!/bin/sh
# without_threads.sh SOURCE_DIR WORK_DIR syntax|full
# metampi built with -DMETAMPI_THREADS=OFF (docs/threads.md): the core lock compiled out,
# MPI_Init_thread providing SERIALIZED at most, METAMPI_ASYNC_PROGRESS=1 refused.
#   syntax  compiles the sources that differ in that build (-fsyntax-only; seconds)
#   full    configures and builds the library, mpirun and tests/mpi/init_thread.c in WORK_DIR
#           and runs it: MULTIPLE asked, SERIALIZED provided; FUNNELED asked, provided;
#           METAMPI_ASYNC_PROGRESS=1 a clear error (minutes: label long)
set -eu
src=$1 work=$2 mode=$3
if [ "$mode" = syntax ]; then
    for f in src/core/lock.c src/api/env.c src/core/progress.c src/core/grequest.c \
             src/core/progress_thread.c; do
        cc -std=c11 -D_GNU_SOURCE -DMETAMPI_THREADS_OFF -DMETAMPI_VERSION_STRING=\"x\" \
           -Wall -Wextra -Werror -fsyntax-only -I"$src/src" -I"$src/include" -I"$work/include" "$src/$f"
    done
    echo "without threads: the sources compile"
    exit 0
fi
cmake -S "$src" -B "$work" -DMETAMPI_THREADS=OFF -DMETAMPI_FORTRAN=OFF >/dev/null
cmake --build "$work" -j 2 --target mpi mpirun metampi-hostd test_init_thread >/dev/null
run() { "$work/bin/mpirun" -n 2 "$work/tests/bin/test_init_thread" "$@"; }
run 3   # MPI_THREAD_MULTIPLE asked: SERIALIZED provided (the program checks)
run 1
if out=$(METAMPI_ASYNC_PROGRESS=1 run 1 2>&1); then
    echo "METAMPI_ASYNC_PROGRESS=1 was accepted by a build without threads" >&2
    exit 1
fi
case $out in
*"built without thread support"*) ;;
*) echo "METAMPI_ASYNC_PROGRESS=1: no clear error: $out" >&2; exit 1 ;;
esac
echo "without threads: SERIALIZED provided, the progress thread refused"
