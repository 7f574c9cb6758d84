#!/usr/bin/env bash
# The job scripts of examples/slurm as batch jobs on the private cluster of slurm_cluster.sh
# (tests/slurm/CMakeLists.txt): sbatch_jobs.sh BUILD_BIN TESTS_BIN EXAMPLES_DIR.
#  1. job.sbatch on 2 nodes x 2 tasks: our mpirun runs 4 ranks over the allocation.
#  2. A federated job of two sites whose parts are batch jobs, as docs/slurm.md describes:
#     site alpha = n1,n2 (2 slots each), site beta = n3 (2 slots), a metampi-rendezvous on
#     this host, each part submitted with metacomputer-part.sbatch; the gateways listen on
#     127.0.0.1. test_sites checks the world of 6 ranks over the 2 sites.
set -u
bin=$1 tbin=$2 examples=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$SLURM_TEST_DIR
export PATH=$bin:$PATH

EXPECT_SIZE=4 timeout 60 sbatch --wait --quiet -N 2 --ntasks-per-node=2 -o "$work/job.out" \
  "$examples/job.sbatch" "$tbin/test_sendrecv" || fail "job.sbatch: $(cat "$work/job.out")"
grep -qx "sendrecv: ok (4 ranks)" "$work/job.out" || fail "job.sbatch: $(cat "$work/job.out")"
echo "job.sbatch: ok"

read -r p0 p1 <<<"$(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')"
cat >"$work/sites.ini" <<INI
[site alpha]
hosts = n1:2, n2:2
wan = 127.0.0.1:$p0
[site beta]
hosts = n3:2
wan = 127.0.0.1:$p1
INI
metampi-rendezvous --make-key "$work/job.key" >/dev/null || fail "no job key"
metampi-rendezvous --listen 127.0.0.1:0 --metacomputer "$work/sites.ini" --job fed1 \
  --key-file "$work/job.key" --timeout 60 >"$work/rdv.out" 2>&1 &
rdv=$!
trap 'kill $rdv 2>/dev/null' EXIT
addr=
for _ in $(seq 100); do
  addr=$(grep -o 'listening on 127\.0\.0\.1:[0-9]*' "$work/rdv.out" | head -1 | cut -d' ' -f3)
  [ -n "$addr" ] && break
  sleep 0.1
done
[ -n "$addr" ] || fail "the rendezvous server did not listen: $(cat "$work/rdv.out")"
export EXPECT_SIZE=6 EXPECT_SITE_SIZES=4,2
for site in beta alpha; do
  [ $site = alpha ] && nodes=n1,n2 || nodes=n3
  timeout 90 sbatch --wait --quiet --nodelist=$nodes --ntasks-per-node=2 -o "$work/$site.out" \
    "$examples/metacomputer-part.sbatch" "$work/sites.ini" $site "$addr" fed1 "$work/job.key" \
    "$tbin/test_sites" &
  eval "pid_$site=\$!"
done
wait "$pid_alpha" || fail "part alpha: $(cat "$work/alpha.out")"
wait "$pid_beta" || fail "part beta: $(cat "$work/beta.out")"
wait "$rdv" || fail "rendezvous: $(cat "$work/rdv.out")"
grep -q "sites: 2 site(s) of 6 ranks: ok" "$work/alpha.out" ||
  fail "federated: $(cat "$work/alpha.out")"
echo "federated job of two Slurm sites: ok"
