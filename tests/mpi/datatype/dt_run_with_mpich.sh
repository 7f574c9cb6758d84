#!/bin/sh
# Builds the datatype API tests (dt_*.c, not the engine's dt_p2p_*.c) against MPICH (or
# Open MPI) and runs each at 1 and 2 ranks: the check that the tests are standard-conforming
# MPI programs whose expectations another implementation meets.
#
#   tests/mpi/datatype/dt_run_with_mpich.sh [test...]     e.g. dt_run_with_mpich.sh constructors
#   MPI=openmpi tests/mpi/datatype/dt_run_with_mpich.sh
#
# Exit status 0 iff all passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
MPI=${MPI:-mpich}
NP=${NP:-"1 2"}
case $MPI in
  mpich) CC="mpicc.mpich -Wno-stringop-overflow"; RUN="mpirun.mpich" ;;
  openmpi) CC=mpicc.openmpi; RUN="mpirun.openmpi --oversubscribe --allow-run-as-root" ;;
  *) echo "MPI must be mpich or openmpi" >&2; exit 2 ;;
esac
out=${OUT:-$(mktemp -d /tmp/dt-$MPI.XXXXXX)}
mkdir -p "$out"
if [ $# -gt 0 ]; then tests="$*"; else
  tests=$(cd "$here" && ls dt_*.c | grep -v '^dt_p2p_' | sed 's/^dt_//; s/\.c$//')
fi
fail=0; passed=0
for t in $tests; do
  if ! $CC -std=c11 -O2 -Wall -Wextra -Werror -o "$out/$t" "$here/dt_$t.c" -lm \
       2> "$out/$t.build.log"; then
    head -30 "$out/$t.build.log"
    echo "BUILD FAIL $t"; fail=$((fail + 1)); continue
  fi
  for np in $NP; do
    if EXPECT_SIZE=$np timeout 120 $RUN -n "$np" "$out/$t" > "$out/$t.$np.log" 2>&1; then
      passed=$((passed + 1)); res=ok
    else
      fail=$((fail + 1)); res=FAIL
    fi
    printf '%-4s %-18s np=%s\n' "$res" "$t" "$np"
    [ $res = FAIL ] && sed 's/^/    /' "$out/$t.$np.log" | tail -20
  done
done
echo "$MPI: $passed passed, $fail failed (logs in $out)"
[ $fail -eq 0 ]
