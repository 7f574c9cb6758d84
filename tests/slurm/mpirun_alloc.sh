#!/usr/bin/env bash
# Our mpirun inside a Slurm allocation on the private cluster of slurm_cluster.sh
# (tests/slurm/CMakeLists.txt): mpirun_alloc.sh MPIRUN BINDIR.
# salloc -N3 --ntasks-per-node=2: without --host, mpirun must run 6 ranks, 2 on each of
# n1..n3 (METAMPI_HOSTNAME), start its helpers through srun (an ssh in PATH that would
# record a call must stay unused), run MPI programs across the three hosts, refuse more ranks
# than the allocation's slots with a message naming them, and take --host/-n as given.
set -u
mpirun=$1 bin=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
fake=$SLURM_TEST_DIR/fakebin
mkdir -p "$fake"
printf '#!/bin/sh\necho "ssh $*" >>"%s/ssh.log"\nexit 255\n' "$SLURM_TEST_DIR" >"$fake/ssh"
chmod +x "$fake/ssh"
export PATH=$fake:$PATH MPIRUN=$mpirun BIN=$bin
out=$(timeout 100 salloc --quiet -N 3 --ntasks-per-node=2 bash -c '
  echo "alloc $SLURM_JOB_NODELIST $SLURM_TASKS_PER_NODE"
  timeout 30 "$MPIRUN" sh -c "echo on \$METAMPI_HOSTNAME" | sort | uniq -c | tr -s " " |
    sed "s/^ //"; echo "rc=$?"
  EXPECT_SIZE=6 timeout 30 "$MPIRUN" "$BIN/test_sendrecv"; echo "rc=$?"
  EXPECT_SIZE=3 timeout 30 "$MPIRUN" -n 3 --map-by node "$BIN/test_coll_reduce"; echo "rc=$?"
  timeout 30 "$MPIRUN" -n 7 "$BIN/test_sendrecv" 2>&1; echo "rc=$?"
  timeout 30 "$MPIRUN" --host n2:2 sh -c "echo only \$METAMPI_HOSTNAME"; echo "rc=$?"
' 2>&1)
echo "$out"
expect() { echo "$out" | grep -qxF -- "$1" || fail "expected the line '$1'"; }
expect "alloc n[1-3] 2(x3)"
expect "2 on n1"
expect "2 on n2"
expect "2 on n3"
expect "sendrecv: ok (6 ranks)"
expect "coll_reduce: ok"
expect "mpirun: 7 ranks but only 6 slots on 3 hosts of the Slurm allocation (its tasks per node: 2(x3)) (use --oversubscribe to place more ranks than slots, or give more slots)"
[ "$(echo "$out" | grep -c '^only n2$')" -eq 2 ] || fail "--host n2:2 did not run 2 ranks on n2"
[ "$(echo "$out" | grep -c '^rc=0$')" -eq 4 ] || fail "a run failed"
[ ! -e "$SLURM_TEST_DIR/ssh.log" ] || fail "mpirun called ssh: $(cat "$SLURM_TEST_DIR/ssh.log")"
echo "mpirun in a Slurm allocation: ok"
