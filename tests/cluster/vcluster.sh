#!/usr/bin/env bash
# vcluster.sh: an emulated cluster of network-namespace "hosts" for one command.
#
#   vcluster.sh [--hosts N] [--rate RATE] [--mtu MTU] [--prefix P] [--in HOST] [--ipv6 F]
#               -- CMD ARGS...
#   vcluster.sh --sites S [--hosts-per-site M] [--wan-delay D] [--wan-rate R] [--wan-loss P]
#               [--wan-seed N] [--wanemu PATH] [--wanemu-arg ARG]... [--ipv6 F[,F...]] [...]
#               -- CMD ARGS...
#   (--ipv6: the hosts' families: only (IPv6 alone), dual (IPv4 and IPv6), no; per site with
#   a list, e.g. only,dual)
#   vcluster.sh --check [--sites S]    exit 0 if clusters can be made here, else 77 and why
#   vcluster.sh --sweep                tear down the clusters whose vcluster.sh is dead
#
# Creates the hosts, runs CMD (in the root namespace, or in HOST with --in) with
# VCLUSTER_HOSTS, VCLUSTER_ADDRS, VCLUSTER_ADDRS6 (IPv6 ones, "-" for none), VCLUSTER_AGENT="ip netns exec {host}" (and VCLUSTER_PREFIX,
# VCLUSTER_LAN_NS, VCLUSTER_WAN_NS, VCLUSTER_WANEMU_LOG) in its environment, tears everything down and exits with
# CMD's status (128+N after signal N). Exit status 77: network namespaces cannot be created
# here (not root, no `ip netns`); 2: bad usage; 1: the cluster could not be built.
# See README.md beside this script for the addressing scheme and the teardown guarantees.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$HERE/$(basename "${BASH_SOURCE[0]}")
# shellcheck source=lib/state.sh
source "$HERE/lib/state.sh"
# shellcheck source=lib/net.sh
source "$HERE/lib/net.sh"

EXIT_SKIP=77
EXIT_USAGE=2
STOP_GRACE_S=3

usage() {
  [[ $# -gt 0 ]] && echo "vcluster: $*" >&2
  sed -n '3,12p' "$SELF" | sed 's/^# \{0,1\}//' >&2
  exit "$EXIT_USAGE"
}

MODE=run NHOSTS='' SITES=0 IPV6='' PER_SITE=2 RATE='' MTU='' PREFIX=vc$$- IN_HOST=''
WAN_DELAY=5ms WAN_RATE=1gbit WAN_LOSS=0 WAN_SEED=1 WANEMU=${VCLUSTER_WANEMU:-} WANEMU_ARGS=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --) shift; break ;;
    --check) MODE=check; shift; continue ;;
    --sweep) MODE=sweep; shift; continue ;;
    --guard) MODE=guard; shift; break ;;
    -h|--help) usage ;;
  esac
  [[ $# -ge 2 ]] || usage "option $1 needs a value"
  case $1 in
    --hosts) NHOSTS=$2 ;;
    --sites) SITES=$2 ;;
    --hosts-per-site) PER_SITE=$2 ;;
    --rate) RATE=$2 ;;
    --mtu) MTU=$2 ;;
    --prefix) PREFIX=$2 ;;
    --in) IN_HOST=$2 ;;
    --wan-delay) WAN_DELAY=$2 ;;
    --wan-rate) WAN_RATE=$2 ;;
    --wan-loss) WAN_LOSS=$2 ;;
    --wan-seed) WAN_SEED=$2 ;;
    --wanemu) WANEMU=$2 ;;
    --wanemu-arg) WANEMU_ARGS+=("$2") ;;
    --ipv6) IPV6=$2 ;;
    *) usage "unknown option $1" ;;
  esac
  shift 2
done

number_in() { # NAME VALUE MIN MAX
  if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < $3 || $2 > $4)); then
    usage "$1 must be a number in $3..$4, not '$2'"
  fi
}

validate() {
  if [[ $SITES != 0 ]]; then
    [[ -z $NHOSTS ]] || usage "--hosts and --sites exclude each other (use --hosts-per-site)"
    number_in --sites "$SITES" 1 250
    number_in --hosts-per-site "$PER_SITE" 1 253
    [[ -n $WANEMU ]] || WANEMU=$(command -v wanemu || true)
    [[ -n $WANEMU ]] || usage "--sites needs the WAN emulator: give --wanemu PATH or set VCLUSTER_WANEMU"
  else
    NHOSTS=${NHOSTS:-2}
    number_in --hosts "$NHOSTS" 1 253
  fi
  [[ -z $MTU ]] || number_in --mtu "$MTU" 68 65535
  [[ -z $IPV6 || $IPV6 =~ ^(only|dual|no)(,(only|dual|no))*$ ]] ||
    usage "bad --ipv6 '$IPV6' (expected only, dual or no, or one of them per site: only,dual)"
  [[ -z $IPV6 || -d /proc/sys/net/ipv6 ]] ||
    { echo "vcluster: cannot emulate IPv6 here: the kernel has no IPv6" >&2; exit "$EXIT_SKIP"; }
  [[ -z $RATE ]] || (rate_bits "$RATE") >/dev/null 2>&1 ||
    usage "bad --rate '$RATE' (expected bit/s as N, Nkbit, Nmbit or Ngbit)"
  # dots would break the parsing of claimed state directories (.gone.PREFIX.PID.START)
  [[ $PREFIX =~ ^[A-Za-z0-9_-]{1,11}$ ]] ||
    usage "--prefix must be 1-11 letters, digits, '-' or '_', not '$PREFIX'"
}

# check_env: whether namespaces, veths and bridges (and TUN devices, with --sites) can be
# made here, by making them in a throw-away cluster; prints the reason when not.
check_env() {
  local why='' ns=${PREFIX}chk
  if [[ $EUID -ne 0 ]]; then
    why="not root (network namespaces need CAP_SYS_ADMIN)"
  elif ! command -v ip >/dev/null || ! command -v tc >/dev/null; then
    why="ip or tc (iproute2) is not installed"
  elif ! [[ -w /etc ]]; then
    why="/etc is not writable (the hosts' /etc/netns/<host>/hosts files)"
  else
    state_create "$PREFIX" || die "cannot create the state directory $VC_RUN/$PREFIX"
    STATE=$VC_RUN/$PREFIX
    state_add_ns "$PREFIX" "$ns"
    if ! why=$(ip netns add "$ns" 2>&1); then
      why="cannot create a network namespace: $why"
    elif ! why=$({ echo "link add vc0 type veth peer name vc1"; echo "link add vcbr type bridge"
                   echo "link set vc0 master vcbr"; } | ip -n "$ns" -batch - 2>&1); then
      why="cannot create veth pairs or bridges in a namespace: $why"
    elif [[ $SITES != 0 ]] && ! why=$(ip -n "$ns" tuntap add dev t0 mode tun 2>&1); then
      why="cannot create TUN devices (/dev/net/tun) for the WAN router: $why"
    else
      why=
    fi
    teardown "$PREFIX"
  fi
  [[ -z $why ]] && return 0
  echo "vcluster: cannot emulate a cluster here: $why" >&2
  return "$EXIT_SKIP"
}

# The guardian tears the cluster down when this script dies without running its EXIT trap
# (SIGKILL, as ctest does on a timeout). It waits for EOF on a pipe whose only writer is this
# script (CMD and the emulator are started with that end closed), and it escapes the process
# tree (its parent exits at once) and the session, so a tree kill or a terminal hang-up does
# not reach it.
start_guardian() {
  # shellcheck disable=SC2046
  exec {GUARD_FD}> >(setsid "$SELF" --guard "$PREFIX" $(my_identity) <&0 >/dev/null 2>&1 &)
}

guard_main() {
  [[ $# -eq 3 ]] || usage "--guard PREFIX PID START is internal"
  while IFS= read -r _; do :; done
  teardown "$@"
}

CMD_PID=

# stop_cmd: CMD gets SIGTERM and STOP_GRACE_S seconds to end (mpirun tears its job down in
# that time), then SIGKILL.
stop_cmd() {
  local i
  [[ -n $CMD_PID ]] && kill -0 "$CMD_PID" 2>/dev/null || return 0
  kill -TERM "$CMD_PID" 2>/dev/null || true
  for ((i = 0; i < STOP_GRACE_S * 50; i++)); do
    kill -0 "$CMD_PID" 2>/dev/null || return 0
    sleep 0.02
  done
  kill -KILL "$CMD_PID" 2>/dev/null || true
}

finish() {
  local status=$?
  trap - EXIT INT TERM HUP
  stop_cmd
  # shellcheck disable=SC2086
  teardown "$PREFIX" $MY_ID
  exit "$status"
}

# A signal that arrives while CMD is being started is only recorded: bash runs traps between
# commands, so it could otherwise run after the fork and before CMD_PID=$!, and CMD would be
# left running, unknown to stop_cmd.
LAUNCHING=0 SIGNALLED=''
on_signal() {
  echo "vcluster: received SIG$1; tearing the cluster down" >&2
  SIGNALLED=$2
  [[ $LAUNCHING -eq 1 ]] && return
  exit $((128 + $2))
}

# resolve_in HOST: the full name of HOST (given with or without the cluster's prefix).
resolve_in() {
  local h
  for h in "${HOSTS[@]}"; do
    [[ $h == "$1" || $h == "$PREFIX$1" ]] && { echo "$h"; return 0; }
  done
  usage "--in $1: no such host in the cluster (hosts: ${HOSTS[*]})"
}

run_main() {
  [[ $# -gt 0 ]] || usage "no command given after --"
  validate
  sweep
  plan_cluster
  [[ -z $IN_HOST ]] || IN_HOST=$(resolve_in "$IN_HOST")
  [[ $EUID -eq 0 ]] || { check_env || exit; }
  MY_ID=$(my_identity)
  trap finish EXIT
  trap 'on_signal INT 2' INT
  trap 'on_signal TERM 15' TERM
  trap 'on_signal HUP 1' HUP
  state_create "$PREFIX" || die "a cluster with prefix '$PREFIX' exists already ($VC_RUN/$PREFIX)"
  STATE=$VC_RUN/$PREFIX
  start_guardian
  if ! create_namespaces 2>"$STATE/netns.err"; then
    echo "vcluster: cannot emulate a cluster here: $(<"$STATE/netns.err")" >&2
    exit "$EXIT_SKIP"
  fi
  build_lans
  build_hosts
  write_hosts_files
  shape_links
  build_router
  start_wanemu

  export VCLUSTER_HOSTS="${HOSTS[*]}" VCLUSTER_ADDRS="${ADDRS[*]}" VCLUSTER_ADDRS6="${ADDRS6[*]}"
  export VCLUSTER_AGENT="ip netns exec {host}" VCLUSTER_PREFIX=$PREFIX
  export VCLUSTER_LAN_NS=$LAN_NS VCLUSTER_WAN_NS=$WAN_NS
  export VCLUSTER_WANEMU_LOG=${WAN_NS:+$STATE/wanemu.log}
  [[ -z $IN_HOST ]] || set -- ip netns exec "$IN_HOST" "$@"
  # In the background so that signals reach the traps while CMD runs (bash runs traps only
  # between commands); an explicit <&0 keeps stdin, which & would replace by /dev/null.
  LAUNCHING=1
  "$@" <&0 {GUARD_FD}>&- &
  CMD_PID=$!
  LAUNCHING=0
  [[ -z $SIGNALLED ]] || exit $((128 + SIGNALLED))
  local status=0
  wait "$CMD_PID" || status=$?
  CMD_PID=
  exit "$status"
}

case $MODE in
  check) validate; check_env ;;
  sweep) sweep ;;
  guard) guard_main "$@" ;;
  run) run_main "$@" ;;
esac
