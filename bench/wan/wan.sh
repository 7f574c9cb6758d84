#!/usr/bin/env bash
# wan.sh BUILD [MPIRUN-ARGS...]: cross-site latency and bandwidth on an emulated WAN (2 sites
# of 1 host, vcluster.sh --sites 2: 5 ms one way, 1 Gbit/s unless WAN_DELAY / WAN_RATE say
# otherwise), for the gateways' targets: metampi through the gateways and with --direct-wan
# (bench/p2p latency and bandwidth), against raw TCP (raw_rtt.c here) and iperf3 on the same
# path. STREAMS / COMPRESSION / ENCRYPT (on, off) set the description's [wan] section; MAX_BYTES
# the largest size.
# Needs root (namespaces). Prints the raw outputs, one section per run.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$(cd "${1:?usage: wan.sh BUILD [MPIRUN-ARGS...]}" && pwd)
shift
export BUILD ROOT MPIRUN_EXTRA="$*" STREAMS=${STREAMS:-} COMPRESSION=${COMPRESSION:-off}
export ENCRYPT=${ENCRYPT:-on}
export MAX_BYTES=${MAX_BYTES:-4194304} MODES=${MODES:-"raw gw direct"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for p in latency bandwidth; do
  "$BUILD/bin/mpicc" -O2 -o "$work/$p" "$ROOT/bench/p2p/$p.c"
done
cc -O2 -o "$work/raw_rtt" "$ROOT/bench/wan/raw_rtt.c"
export WORK=$work
exec "$ROOT/tests/cluster/vcluster.sh" --sites 2 --hosts-per-site 1 \
  --wan-delay "${WAN_DELAY:-5ms}" --wan-rate "${WAN_RATE:-1gbit}" \
  --wanemu "$BUILD/tests/bin/wanemu" -- bash -c '
set -eu
read -ra H <<<"$VCLUSTER_HOSTS"; read -ra A <<<"$VCLUSTER_ADDRS"
desc=$WORK/mc.ini
{ echo "[wan]"; [ -n "$STREAMS" ] && echo "streams = $STREAMS"; echo "compression = $COMPRESSION"
  echo "encrypt = $ENCRYPT"
  echo "[site s1]"; echo "hosts = ${H[0]}:1"; echo "wan = ${A[0]}:7000"
  echo "[site s2]"; echo "hosts = ${H[1]}:1"; echo "wan = ${A[1]}:7000"; } > "$desc"
run() { "$BUILD/bin/mpirun" --bind-to none --metacomputer "$desc" \
          --launch-agent "$VCLUSTER_AGENT" -n 2 $MPIRUN_EXTRA "$@"; }
for mode in $MODES; do
  case $mode in
    raw)
      ip netns exec "${H[1]}" "$WORK/raw_rtt" server 5201 & srv=$!; sleep 0.3
      echo "== raw latency"; ip netns exec "${H[0]}" "$WORK/raw_rtt" client "${A[1]}" 5201
      wait $srv 2>/dev/null || true
      ip netns exec "${H[1]}" iperf3 -s -1 -p 5202 >/dev/null & srv=$!; sleep 0.3
      echo "== iperf3"; ip netns exec "${H[0]}" iperf3 -c "${A[1]}" -p 5202 -t 4 | grep -E "sender|receiver"
      wait $srv || true ;;
    gw)
      echo "== gw latency"; run "$WORK/latency" "$MAX_BYTES" 0.004
      echo "== gw bandwidth"; run "$WORK/bandwidth" "$MAX_BYTES" 0.05 ;;
    direct)
      echo "== direct latency"; run --direct-wan "$WORK/latency" "$MAX_BYTES" 0.004
      echo "== direct bandwidth"; run --direct-wan "$WORK/bandwidth" "$MAX_BYTES" 0.05 ;;
  esac
done'
