#!/usr/bin/env bash
# run_federated.sh [OPTIONS] LAYOUT BINDIR PROGRAM [ARGS...]
#
# Runs PROGRAM as a federated job on a fresh emulated metacomputer (vcluster.sh --sites: one
# LAN per site, the WAN emulator between them): metampi-rendezvous on the first host of the
# first site, and one `mpirun --rendezvous` per site, each started on its own on its site's
# first host (as each site's batch system would), DELAY seconds after the previous one. The
# job runs in gateway mode (each site's gateway on its first host, port 7000).
#   LAYOUT  SxHxR or R,R,.../R,.../...  as run_on_sites.sh (2x2x2: 2 sites of 2 hosts of 2
#           ranks; 2,1/2/1: three sites of 3, 2 and 1 ranks)
#   BINDIR  the build's bin/ (mpirun, metampi-rendezvous, metampi-hostd, metampi-gateway)
# PROGRAM finds EXPECT_SIZE and EXPECT_SITE_SIZES (the ranks of each site: 4,4). An argument
# @STOPFILE@ becomes the path of a file whose creation (by a rank) stops the server with
# SIGTERM while the job runs (the parts lose their connection to it: no more spawning).
# An argument @MPIRUNCTL@ becomes the path of a directory where a rank creates stop-sN
# (cont-sN): the test sends SIGSTOP (SIGCONT) to the mpirun of site N, then removes the file
# (a stuck mpirun: the rank waits for the file to go before it goes on); a number of
# seconds in stop-sN: SIGCONT follows by itself after them.
# Options:
#   --delay S           between the starts of two sites' parts (default 2)
#   --reverse           start the parts from the last site to the first
#   --missing SITE      do not start the part of site number SITE (1-based): the job must be
#                       called off (the server's timeout is then --timeout)
#   --timeout S         the server's --timeout (default 60)
#   --wan-delay D, --wan-rate R, --wanemu PATH   the WAN (vcluster.sh; 5ms, 1gbit)
#   --ipv6 F[,F...]     the hosts' families (vcluster.sh --ipv6): a site's gateway listens on
#                       its IPv6 address if it has one; the server then listens on [::] (both
#                       families) and the parts reach it at the first host's IPv6 address
# Output: the server's log and each part's output, each line prefixed with "[server] " or
# "[sN] ", then "[sN] exit status N" for each part and the server. Exit status: 0 when every
# part and the server exit 0 and no process is left on any host; else the first failing
# part's status (then the server's, then 1 for a process left: "[check] left behind ...");
# 77 if no cluster can be made here; 2 for bad usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLUSTER=$HERE/../cluster
RDV_PORT=7100

usage() {
  echo "run_federated.sh: $*" >&2
  sed -n '2,33p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# The ranks of each site of LAYOUT, space-separated (via run_on_sites.sh's own parser).
site_sizes() {
  local d
  d=$("$CLUSTER/run_on_sites.sh" --describe "$1" P-) || exit 2
  awk '/^\[site /{ if (n != "") printf "%s ", n; n = 0 }
       /^ +P-s[0-9]+h[0-9]+:[0-9]+/{ split($1, a, ":"); n += a[2] }
       END { print n }' <<<"$d"
}

if [[ ${1:-} == --inside ]]; then
  shift
  LAYOUT=$1 BIN=$2 DELAY=$3 REVERSE=$4 MISSING=$5 TIMEOUT=$6 IPV6=$7
  shift 7
  read -ra SIZES <<<"$(site_sizes "$LAYOUT")"
  nsites=${#SIZES[@]}
  dir=$(mktemp -d "${TMPDIR:-/tmp}/run_federated.XXXXXX")
  pids=()
  cleanup() {
    # a site's mpirun left stopped (a test that failed half-way) would never end
    for h in ${VCLUSTER_HOSTS:-}; do
      for p in $(ip netns pids "$h" 2>/dev/null); do
        [[ $(cat "/proc/$p/comm" 2>/dev/null) == mpirun ]] && kill -CONT "$p" 2>/dev/null || true
      done
    done
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$dir"
  }
  trap 'cleanup; exit 143' TERM INT HUP
  trap cleanup EXIT
  "$CLUSTER/run_on_sites.sh" --describe "$LAYOUT" "$VCLUSTER_PREFIX" "${IPV6:-no}" >"$dir/sites.ini"
  "$BIN/metampi-rendezvous" --make-key "$dir/job.key" 2>/dev/null
  total=0
  for n in "${SIZES[@]}"; do total=$((total + n)); done
  export EXPECT_SIZE=$total EXPECT_SITE_SIZES=$(IFS=,; echo "${SIZES[*]}")
  host() { echo "${VCLUSTER_PREFIX}s$1h1"; }
  addr=10.0.1.1:$RDV_PORT listen=$addr
  read -ra a6 <<<"${VCLUSTER_ADDRS6:-}"
  if [[ -n $IPV6 && ${a6[0]:--} != - ]]; then
    addr="[${a6[0]}]:$RDV_PORT" listen="[::]:$RDV_PORT"
  fi
  ip netns exec "$(host 1)" "$BIN/metampi-rendezvous" --listen "$listen" \
    --metacomputer "$dir/sites.ini" --job federated --key-file "$dir/job.key" \
    --timeout "$TIMEOUT" 2>&1 | sed -u 's/^/[server] /' &
  server=$!
  pids+=("$server")
  args=()
  for a in "$@"; do
    if [[ $a == @STOPFILE@ ]]; then
      args+=("$dir/stop-server")
      # the file appears: SIGTERM to the server (the one metampi-rendezvous of host 1)
      ( while [[ ! -e $dir/stop-server ]]; do sleep 0.2; done
        for p in $(ip netns pids "$(host 1)"); do
          [[ $(cat "/proc/$p/comm" 2>/dev/null) == metampi-rendez* ]] && kill -TERM "$p"
        done ) &
      pids+=("$!")
    elif [[ $a == @MPIRUNCTL@ ]]; then
      mkdir "$dir/mpirunctl"
      args+=("$dir/mpirunctl")
      # stop-sN / cont-sN: SIGSTOP / SIGCONT to the mpirun of site N (on its first host)
      ( while [[ -d $dir/mpirunctl ]]; do
          for f in "$dir"/mpirunctl/stop-s* "$dir"/mpirunctl/cont-s*; do
            [[ -e $f ]] || continue
            b=${f##*/} sig=STOP
            [[ $b == cont-* ]] && sig=CONT
            secs=$(cat "$f" 2>/dev/null || true)
            for p in $(ip netns pids "$(host "${b#*-s}")"); do
              if [[ $(cat "/proc/$p/comm" 2>/dev/null) == mpirun ]]; then
                kill -"$sig" "$p"
                # a number in stop-sN: SIGCONT follows by itself after that many seconds
                [[ $sig == STOP && $secs =~ ^[0-9]+$ ]] && { sleep "$secs"; kill -CONT "$p"; } &
              fi
            done
            rm -f "$f"
          done
          sleep 0.1
        done ) &
      pids+=("$!")
    else
      args+=("$a")
    fi
  done
  set -- "${args[@]}"
  order=$(seq 1 "$nsites")
  [[ $REVERSE == 1 ]] && order=$(seq "$nsites" -1 1)
  declare -A part
  first=1
  for s in $order; do
    [[ $s == "$MISSING" ]] && continue
    ((first)) || sleep "$DELAY"
    first=0
    # --bind-to none: the emulated hosts share this machine's cores (see run_on_hosts.sh)
    ( set -o pipefail
      ip netns exec "$(host "$s")" "$BIN/mpirun" --bind-to none --metacomputer "$dir/sites.ini" \
        --site "s$s" --rendezvous "$addr" --job federated --key-file "$dir/job.key" \
        --launch-agent "$VCLUSTER_AGENT" -n "${SIZES[s - 1]}" "$@" 2>&1 | sed -u "s/^/[s$s] /"
    ) &
    part[$s]=$!
    pids+=("${part[$s]}")
  done
  status=0
  for s in $(seq 1 "$nsites"); do
    [[ -n ${part[$s]:-} ]] || continue
    rc=0
    wait "${part[$s]}" || rc=$?
    echo "[s$s] exit status $rc"
    ((status == 0 && rc != 0)) && status=$rc
  done
  rc=0
  wait "$server" || rc=$?
  echo "[server] exit status $rc"
  ((status == 0 && rc != 0)) && status=$rc
  # nothing of the job may be left on any host (helpers, gateways, ranks)
  for h in $VCLUSTER_HOSTS; do
    left=$(ip netns pids "$h" | tr '\n' ' ')
    if [[ -n ${left// /} ]]; then
      echo "[check] left behind on host $h: $(ps -o pid=,args= -p "${left// /,}" | tr '\n' ';')"
      ((status == 0)) && status=1
    fi
  done
  exit "$status"
fi

vc=() delay=2 reverse=0 missing=0 timeout=60 ipv6=
while [[ $# -gt 0 ]]; do
  case $1 in
    --wan-delay | --wan-rate | --wanemu)
      [[ $# -ge 2 ]] || usage "$1 needs a value"
      vc+=("$1" "$2"); shift 2 ;;
    --delay) [[ $# -ge 2 ]] || usage "--delay needs seconds"; delay=$2; shift 2 ;;
    --timeout) [[ $# -ge 2 ]] || usage "--timeout needs seconds"; timeout=$2; shift 2 ;;
    --missing) [[ $# -ge 2 ]] || usage "--missing needs a site number"; missing=$2; shift 2 ;;
    --reverse) reverse=1; shift ;;
    --ipv6) [[ $# -ge 2 ]] || usage "--ipv6 needs only, dual or a list"; ipv6=$2; vc+=("$1" "$2"); shift 2 ;;
    -*) usage "unknown option '$1'" ;;
    *) break ;;
  esac
done
[[ $# -ge 3 ]] || usage "expected LAYOUT BINDIR PROGRAM [ARGS...]"
read -ra sizes <<<"$(site_sizes "$1")"
# the hosts per site: the longest site of the layout
maxhosts=$("$CLUSTER/run_on_sites.sh" --describe "$1" P- | grep -cE '^ +P-s1h' || true)
for ((s = 2; s <= ${#sizes[@]}; s++)); do
  h=$("$CLUSTER/run_on_sites.sh" --describe "$1" P- | grep -cE "^ +P-s${s}h" || true)
  ((h > maxhosts)) && maxhosts=$h
done
bin=$(cd "$2" && pwd)
exec "$CLUSTER/vcluster.sh" --sites "${#sizes[@]}" --hosts-per-site "$maxhosts" "${vc[@]}" -- \
  "$HERE/run_federated.sh" --inside "$1" "$bin" "$delay" "$reverse" "$missing" "$timeout" "$ipv6" \
  "${@:3}"
