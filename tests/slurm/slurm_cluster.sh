#!/usr/bin/env bash
# A private Slurm cluster on this machine for one test, started and stopped around a command:
#   slurm_cluster.sh [-n NODES] [-c CPUS] -- COMMAND [ARG...]
# writes slurm.conf in a temporary directory, starts munged (own key and socket), slurmctld
# and one slurmd per node (NodeName n1..nN, all on this host, each on its own port:
# `slurmd -N nI`), waits until sinfo shows every node idle, runs COMMAND with SLURM_CONF
# pointing at the cluster (SLURM_TEST_DIR at a scratch directory every node sees,
# SLURM_CLUSTER_DIR at the cluster's files: slurmd.nI.log, verbose), then
# (each node's SlurmdSpoolDir and TmpFS are its own, as on separate machines)
# stops every daemon it started and removes its files, whatever happened (trap).
# Exit: COMMAND's status; 77 (ctest's skip) with the reason on stderr when the daemons
# cannot start here (no slurm-wlm, no munge, a kernel/sandbox that slurmd refuses).
set -u
nodes=3 cpus=4
while [ $# -gt 0 ]; do
  case "$1" in
    -n) nodes=$2; shift 2 ;;
    -c) cpus=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-n NODES] [-c CPUS] -- COMMAND..." >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "usage: $0 [-n NODES] [-c CPUS] -- COMMAND..." >&2; exit 2; }

skip() { echo "SKIP: $*" >&2; exit 77; }
for prog in munged slurmctld slurmd sinfo srun; do
  command -v "$prog" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
  command -v "$prog" >/dev/null 2>&1 || skip "$prog not installed (Debian: slurm-wlm, munge)"
done
[ "$(id -u)" -eq 0 ] || skip "the Slurm daemons of the test need root"

dir=$(mktemp -d /tmp/metampi-slurm.XXXXXX)
pids=()
cleanup() {
  local rc=$?
  # slurmd first (its steps end with it), then the controller, then munge
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  # slurmstepd of a step still running belongs to no daemon above: end those of this cluster
  for p in $(pgrep -f "slurmstepd" 2>/dev/null); do
    grep -qs "$dir" "/proc/$p/environ" && kill -KILL "$p" 2>/dev/null
  done
  [ -n "${KEEP_SLURM_DIR:-}" ] && echo "slurm_cluster: kept $dir" >&2 || rm -rf "$dir"
  exit $rc
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# Free TCP ports for the controller and each slurmd (bind to port 0, read what the kernel gave)
read -r -a ports <<<"$(python3 - "$((nodes + 1))" <<'EOF'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
)"
host=$(hostname -s)
mkdir -p "$dir/state" "$dir/shared"
for ((i = 1; i <= nodes; i++)); do mkdir -p "$dir/spool/n$i" "$dir/tmp/n$i"; done
# Job ids name files and shared-memory segments on this one host (Slurm's pmix plugin, the
# library's job id): start each cluster's somewhere else, so that two tests at once never meet
first_job=$(( (RANDOM % 30000 + 1) * 1000 ))
chmod 700 "$dir"
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge.key"
conf=$dir/slurm.conf
{
  cat <<EOF
ClusterName=metampi
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
TmpFS=$dir/tmp/%n
FirstJobId=$first_job
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=verbose
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=2
EOF
  for ((i = 1; i <= nodes; i++)); do
    echo "NodeName=n$i NodeHostname=$host NodeAddr=127.0.0.1 Port=${ports[i]} CPUs=$cpus State=UNKNOWN"
  done
  echo "PartitionName=test Nodes=ALL Default=YES MaxTime=60 State=UP OverSubscribe=NO"
} >"$conf"
export SLURM_CONF=$conf SLURM_TEST_DIR=$dir/shared SLURM_CLUSTER_DIR=$dir

log_tail() {
  for f in "$dir"/*.log; do [ -f "$f" ] && { echo "== $f" >&2; tail -n 15 "$f" >&2; }; done
}

munged -F --force --socket="$dir/munge.sock" --key-file="$dir/munge.key" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed" \
  >"$dir/munged.out" 2>&1 &
pids+=($!); disown $!
for _ in $(seq 50); do [ -S "$dir/munge.sock" ] && break; sleep 0.1; done
[ -S "$dir/munge.sock" ] || { log_tail; skip "munged did not start"; }

slurmctld -D -i -f "$conf" >"$dir/slurmctld.out" 2>&1 &
pids+=($!); disown $!
for ((i = 1; i <= nodes; i++)); do
  slurmd -D -N "n$i" -f "$conf" >"$dir/slurmd.n$i.out" 2>&1 &
  pids+=($!); disown $!
done

# Up when every node is idle (at most 20 s: a daemon that cannot start makes this a skip)
up=0
for _ in $(seq 200); do
  idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
  [ "$idle" -eq "$nodes" ] && { up=1; break; }
  for p in "${pids[@]}"; do
    kill -0 "$p" 2>/dev/null || { cat "$dir"/*.out >&2; log_tail; skip "a Slurm daemon exited at start"; }
  done
  sleep 0.1
done
[ $up -eq 1 ] || { sinfo -N >&2; log_tail; skip "the Slurm nodes did not become idle in 20 s"; }

"$@"
