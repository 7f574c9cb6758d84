#!/bin/sh
# Builds the point-to-point tests against MPICH (or Open MPI) and runs each at 1, 2, 3, 4 and
# 8 ranks: the reference check that the tests are standard-conforming MPI programs, and the
# tool to validate a new or changed test before metampi implements what it exercises.
#
#   tests/mpi/p2p/run_with_mpich.sh [test...]        e.g. run_with_mpich.sh order sizes
#   MPI=openmpi tests/mpi/p2p/run_with_mpich.sh      the same with Open MPI
#   NP="2 3" SKIP_LARGE=1 tests/mpi/p2p/run_with_mpich.sh
#
# large runs at 2 ranks only and needs about 5 GB of memory. Exit status 0 iff all passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
MPI=${MPI:-mpich}
NP=${NP:-"1 2 3 4 8"}
case $MPI in
  # MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1 and its prototypes declare array
  # parameters, which GCC 12 takes for a zero-size region (-Wstringop-overflow).
  mpich) CC="mpicc.mpich -Wno-stringop-overflow"; RUN="mpirun.mpich" ;;
  openmpi) CC=mpicc.openmpi; RUN="mpirun.openmpi --oversubscribe --allow-run-as-root" ;;
  *) echo "MPI must be mpich or openmpi" >&2; exit 2 ;;
esac
out=${OUT:-$(mktemp -d /tmp/p2p-$MPI.XXXXXX)}
mkdir -p "$out"
if [ $# -gt 0 ]; then tests="$*"; else
  tests=$(cd "$here" && ls *.c | sed 's/\.c$//')
fi
fail=0; passed=0
for t in $tests; do
  if ! $CC -std=c11 -O2 -Wall -Wextra -Werror -o "$out/$t" "$here/$t.c" 2> "$out/$t.build.log"; then
    head -30 "$out/$t.build.log"
    echo "BUILD FAIL $t"; fail=$((fail + 1)); continue
  fi
  nps=$NP; limit=120
  if [ "$t" = large ]; then
    [ "${SKIP_LARGE:-0}" = 1 ] && continue
    nps=2; limit=600
  fi
  for np in $nps; do
    start=$(date +%s.%N)
    if EXPECT_SIZE=$np timeout $limit $RUN -n "$np" "$out/$t" > "$out/$t.$np.log" 2>&1; then
      passed=$((passed + 1)); res=ok
    else
      fail=$((fail + 1)); res=FAIL
    fi
    printf '%-4s %-18s np=%s %6.2fs\n' "$res" "$t" "$np" \
      "$(echo "$(date +%s.%N) - $start" | bc)"
    [ $res = FAIL ] && sed 's/^/    /' "$out/$t.$np.log" | tail -20
  done
done
echo "$MPI: $passed passed, $fail failed (logs in $out)"
[ $fail -eq 0 ]
