#!/bin/sh
# Builds the collective tests (coll_*.c) against MPICH (or Open MPI) and runs each at 1, 2,
# 3, 4, 5, 7 and 8 ranks, the families with an "nb" argument also in nonblocking mode: the
# check that the tests are standard-conforming MPI programs (where MPICH 4.0.2 is wrong the
# tests avoid it under #ifndef METAMPI; see the comments there).
#
#   tests/mpi/coll/run_with_mpich.sh [test...]       e.g. run_with_mpich.sh reduce scan
#   NP="2 3" tests/mpi/coll/run_with_mpich.sh
#   MPI=openmpi tests/mpi/coll/run_with_mpich.sh
#
# MPICH spins when oversubscribed, so 5-8 ranks on 2 cores take tens of seconds per program.
# Exit status 0 iff all passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
MPI=${MPI:-mpich}
NP=${NP:-"1 2 3 4 5 7 8"}
case $MPI in
  # MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1 and its prototypes declare array
  # parameters, which GCC 12 takes for a zero-size region (-Wstringop-overflow).
  mpich) CC="mpicc.mpich -Wno-stringop-overflow"; RUN="mpirun.mpich" ;;
  openmpi) CC=mpicc.openmpi; RUN="mpirun.openmpi --oversubscribe --allow-run-as-root" ;;
  *) echo "MPI must be mpich or openmpi" >&2; exit 2 ;;
esac
out=${OUT:-$(mktemp -d /tmp/coll-$MPI.XXXXXX)}
mkdir -p "$out"
if [ $# -gt 0 ]; then tests="$*"; else
  tests=$(cd "$here" && ls coll_*.c | sed 's/^coll_//; s/\.c$//')
fi
fail=0; passed=0
for t in $tests; do
  if ! $CC -std=c11 -O2 -Wall -Wextra -Werror -o "$out/$t" "$here/coll_$t.c" -lm \
       2> "$out/$t.build.log"; then
    head -30 "$out/$t.build.log"
    echo "BUILD FAIL $t"; fail=$((fail + 1)); continue
  fi
  case $t in
    nonblocking|errors) modes="-" ;;
    *) modes="- nb" ;;
  esac
  for np in $NP; do
    [ "$t" = inter ] && [ "$np" -lt 2 ] && continue
    for m in $modes; do
      arg=; [ "$m" = nb ] && arg=nb
      start=$(date +%s.%N)
      if EXPECT_SIZE=$np timeout 300 $RUN -n "$np" "$out/$t" $arg > "$out/$t.$np$arg.log" 2>&1
      then passed=$((passed + 1)); res=ok
      else fail=$((fail + 1)); res=FAIL
      fi
      printf '%-4s %-12s %-3s np=%s %7.2fs\n' "$res" "$t" "$arg" "$np" \
        "$(echo "$(date +%s.%N) - $start" | bc)"
      [ $res = FAIL ] && sed 's/^/    /' "$out/$t.$np$arg.log" | tail -20
    done
  done
done
echo "$MPI: $passed passed, $fail failed (logs in $out)"
[ $fail -eq 0 ]
