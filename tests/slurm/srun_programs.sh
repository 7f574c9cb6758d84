#!/usr/bin/env bash
# Runs MPI test programs as the tasks of srun steps on the private cluster of slurm_cluster.sh
# (tests/slurm/CMakeLists.txt): srun_programs.sh MPI BINDIR, MPI = pmi2 or pmix.
# Each program at 1, 2, 3 and 4 ranks spread over the nodes (-N up to 3), with EXPECT_SIZE
# (test_env: also the world attributes, MPI_UNIVERSE_SIZE, MPI_APPNUM);
# then a rank that calls MPI_Abort while the others wait must end the step in seconds with a
# failure. For pmi2 the slurmd logs must show that the ranks spoke PMI-2 (not PMI-1, which
# Slurm's pmi2 plugin also answers).
set -u
mpi=$1 bin=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
step() {  # step NTASKS PROGRAM [ARGS]: one srun step, 40 s at most
  local n=$1; shift
  local nodes=$(( n < 3 ? n : 3 ))
  EXPECT_SIZE=$n timeout 40 srun --mpi="$mpi" -N "$nodes" -n "$n" "$@"
}
for prog in test_env test_coll_reduce test_p2p_sizes; do
  for n in 1 2 3 4; do
    out=$(step "$n" "$bin/$prog" 2>&1) || fail "$prog at $n ranks under srun --mpi=$mpi: $out"
    echo "$prog np$n: ${out##*$'\n'}"
  done
done
if [ "$mpi" = pmi2 ]; then
  grep -qs "got client PMI1 init, version=2.0" "$SLURM_CLUSTER_DIR"/slurmd.n*.log ||
    fail "no rank negotiated PMI-2 (slurmd logs)"
  ! grep -qs "got client PMI1 init, version=1.1" "$SLURM_CLUSTER_DIR"/slurmd.n*.log ||
    fail "a rank spoke PMI-1 to Slurm's pmi2 plugin"
fi
# MPI_Abort at rank 1 of 3; ranks 0 and 2 block in MPI_Recv: the step must end, failed
t0=$(date +%s)
out=$(EXPECT_SIZE=3 timeout 30 srun --mpi="$mpi" -N 3 -n 3 "$bin/lt_prog" abort 1 7 2>&1)
rc=$? t1=$(date +%s)
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "abort: srun exit $rc (124: hung): $out"
echo "abort: srun exit $rc after $((t1 - t0)) s"
echo "$out" | grep -q "MPI_Abort" || fail "abort: no report of the abort in: $out"
echo "srun --mpi=$mpi: ok"
