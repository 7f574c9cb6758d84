#!/bin/sh
# Builds the reduction collective tests against MPICH (or Open MPI) and runs each at 1, 2, 3,
# 4, 5, 7 and 8 ranks: the check that they are standard-conforming MPI programs. Checks MPICH
# does not make (or crashes on) are under #ifdef METAMPI in the sources.
#
#   tests/mpi/coll_reduce/run_with_mpich.sh [test...]     e.g. run_with_mpich.sh inter nb
#   MPI=openmpi NP="2 3" tests/mpi/coll_reduce/run_with_mpich.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
MPI=${MPI:-mpich}
NP=${NP:-"1 2 3 4 5 7 8"}
case $MPI in
  mpich) CC="mpicc.mpich -Wno-stringop-overflow"; RUN="mpirun.mpich" ;;
  openmpi) CC=mpicc.openmpi; RUN="mpirun.openmpi --oversubscribe --allow-run-as-root" ;;
  *) echo "MPI must be mpich or openmpi" >&2; exit 2 ;;
esac
out=${OUT:-$(mktemp -d /tmp/coll_reduce-$MPI.XXXXXX)}
mkdir -p "$out"
if [ $# -gt 0 ]; then tests="$*"; else tests="red inter nb errors"; fi
fail=0; passed=0
for t in $tests; do
  if ! $CC -std=c11 -O2 -Wall -Wextra -Werror -o "$out/$t" "$here/$t.c" 2> "$out/$t.build.log"; then
    head -30 "$out/$t.build.log"
    echo "BUILD FAIL $t"; fail=$((fail + 1)); continue
  fi
  for np in $NP; do
    if EXPECT_SIZE=$np timeout 300 $RUN -n "$np" "$out/$t" > "$out/$t.$np.log" 2>&1; then
      passed=$((passed + 1)); res=ok
    else
      fail=$((fail + 1)); res=FAIL
    fi
    printf '%-4s %-8s np=%s\n' "$res" "$t" "$np"
    [ $res = FAIL ] && sed 's/^/    /' "$out/$t.$np.log" | tail -20
  done
done
echo "$MPI: $passed passed, $fail failed (logs in $out)"
[ $fail -eq 0 ]
