#!/usr/bin/env bash
# run_on_sites.sh [OPTIONS] LAYOUT MPIRUN PROGRAM [ARGS...]
# run_on_sites.sh --describe LAYOUT [PREFIX [IPV6]]
#
# Runs PROGRAM under MPIRUN on a fresh emulated metacomputer (vcluster.sh --sites: one LAN
# per site, the WAN emulator between them), through a metacomputer description written for
# LAYOUT; ranks fill the sites in order, each host's slots in turn:
#   LAYOUT  SxHxR             S sites of H hosts of R ranks each  (2x2x2: 8 ranks)
#           R,R,.../R,.../... sites separated by '/', each the ranks of its hosts
#                             (2,1/2/1: site s1 has hosts of 2 and 1 ranks, s2 one host of
#                             2, s3 one host of 1; 6 ranks)
# i.e. `MPIRUN --bind-to none --metacomputer <description> --launch-agent "ip netns exec
# {host}" -n <total> --direct-wan [--mpirun-arg ...] PROGRAM ARGS`. PROGRAM finds
# EXPECT_SITE_SIZES (the ranks of each site: 4,4) in its environment.
# Options:
#   --wan-delay D, --wan-rate R, --wan-loss P   the WAN (vcluster.sh; default 5ms, 1gbit, 0)
#   --wanemu PATH         the WAN emulator (default: $VCLUSTER_WANEMU)
#   --ipv6 F[,F...]       the hosts' families, per site with a list (vcluster.sh --ipv6: only,
#                         dual, no); a site's wan is its gateway host's IPv6 address if it has one
#   --wan-mode MODE       direct (default: mpirun --direct-wan) or gateways (no --direct-wan)
#   --mpirun-arg ARG      one more argument for MPIRUN, before PROGRAM (repeatable)
#   --site-exec-prefix N=CMD  site N (1, 2, ...) starts its ranks through CMD (the site's
#                         exec_prefix in the description; repeatable)
#   --nat N               site N is behind a NAT: `reachable = no` in the description, and
#                         the WAN router refuses every connection from the other sites to its
#                         gateway's port (repeatable; gateway mode only)
# --describe prints the description for LAYOUT (host names with PREFIX, default "P-"; the
# gateways' addresses those of vcluster.sh --ipv6 IPV6) and exits. Exit status: mpirun's; 77 if no cluster can be made here; 2 for bad usage.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WAN_PORT=7000   # every site's gateway listens on its first host's address, this port

usage() {
  echo "run_on_sites.sh: $*" >&2
  sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# parse LAYOUT: SITES[s] = "R R ..." (the ranks of each host of site s, from 0), MAXHOSTS,
# TOTAL, SIZES ("4,4": the ranks of each site).
parse() {
  local s h site
  SITES=() MAXHOSTS=0 TOTAL=0 SIZES=''
  if [[ $1 =~ ^([1-9][0-9]*)x([1-9][0-9]*)x([1-9][0-9]*)$ ]]; then
    for ((s = 0; s < BASH_REMATCH[1]; s++)); do
      site=''
      for ((h = 0; h < BASH_REMATCH[2]; h++)); do site+=${site:+ }${BASH_REMATCH[3]}; done
      SITES+=("$site")
    done
  elif [[ $1 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*(/[1-9][0-9]*(,[1-9][0-9]*)*)*$ ]]; then
    local -a parts
    IFS=/ read -ra parts <<<"$1"
    for site in "${parts[@]}"; do SITES+=("${site//,/ }"); done
  else
    usage "bad layout '$1' (expected SxHxR, e.g. 2x2x2, or sites separated by '/', each the ranks of its hosts, e.g. 2,1/2/1)"
  fi
  for site in "${SITES[@]}"; do
    local -a n
    read -ra n <<<"$site"
    ((${#n[@]} > MAXHOSTS)) && MAXHOSTS=${#n[@]}
    local sum=0
    for h in "${n[@]}"; do sum=$((sum + h)); done
    TOTAL=$((TOTAL + sum))
    SIZES+=${SIZES:+,}$sum
  done
  # vcluster.sh's limits: 250 sites, 253 hosts per site
  ((${#SITES[@]} <= 250 && MAXHOSTS <= 253)) || usage "layout '$1' is larger than an emulated metacomputer (250 sites of 253 hosts)"
}

# describe PREFIX ADDRS...: the description; the hosts are PREFIX s<s>h<i> (vcluster.sh's
# names), ADDRS the addresses of all hosts of the cluster in its order (MAXHOSTS per site):
# IPv4 ones, or IPv6 ones (then written [v6]).
describe() {
  local prefix=$1 s i
  shift
  local -a addrs=("$@") n
  echo "; run_on_sites.sh $LAYOUT: ${#SITES[@]} sites, $TOTAL ranks"
  for s in "${!SITES[@]}"; do
    read -ra n <<<"${SITES[s]}"
    echo
    echo "[site s$((s + 1))]"
    echo "hosts ="
    for i in "${!n[@]}"; do
      echo "    ${prefix}s$((s + 1))h$((i + 1)):${n[i]}"
    done
    echo "gateway = ${prefix}s$((s + 1))h1"
    local a=${addrs[s * MAXHOSTS]}
    [[ $a == *:* ]] && a="[$a]"
    echo "wan = $a:$WAN_PORT"
    local line
    while IFS= read -r line; do
      if [[ ${line%%=*} == "$((s + 1))" ]]; then echo "exec_prefix = ${line#*=}"; fi
    done <<<"${RUN_ON_SITES_EXEC_PREFIXES:-}"
    if [[ " ${RUN_ON_SITES_NAT:-} " == *" $((s + 1)) "* ]]; then echo "reachable = no"; fi
  done
}

# nat ADDRS...: the router refuses TCP connections to the gateway port of each site of
# RUN_ON_SITES_NAT from every other site (ADDRS as for describe).
nat() {
  local -a addrs=("$@")
  local n t a family
  for n in ${RUN_ON_SITES_NAT:-}; do
    a=${addrs[(n - 1) * MAXHOSTS]}
    family=-4
    [[ $a == *:* ]] && family=-6
    for ((t = 1; t <= ${#SITES[@]}; t++)); do
      ((t == n)) && continue
      ip "$family" -n "$VCLUSTER_WAN_NS" rule add pref 10 iif "s$t" to "$a" ipproto tcp \
        dport "$WAN_PORT" prohibit
    done
  done
}

if [[ ${1:-} == --inside ]]; then
  # inside the cluster: the host names are known now. The description is written to an
  # unlinked file that mpirun reads as /dev/fd/3, so nothing is left behind whatever ends
  # the run (mpirun is exec'ed: vcluster.sh's signals reach it directly).
  shift
  LAYOUT=$1 mpirun=$2 nargs=$3
  shift 3
  extra=("${@:1:nargs}")
  shift "$nargs"
  parse "$LAYOUT"
  read -ra addrs <<<"$VCLUSTER_ADDRS"
  read -ra addrs6 <<<"${VCLUSTER_ADDRS6:-}"
  for i in "${!addrs6[@]}"; do
    [[ ${addrs6[i]} == - ]] || addrs[i]=${addrs6[i]}
  done
  file=$(mktemp "${TMPDIR:-/tmp}/run_on_sites.XXXXXX")
  describe "$VCLUSTER_PREFIX" "${addrs[@]}" >"$file"
  nat "${addrs[@]}"
  exec 3<"$file"
  rm -f "$file"
  export EXPECT_SITE_SIZES=$SIZES
  # --bind-to none: the emulated hosts share this machine's cores (see run_on_hosts.sh)
  exec "$mpirun" --bind-to none --metacomputer /dev/fd/3 --launch-agent "$VCLUSTER_AGENT" \
    -n "$TOTAL" "${extra[@]}" "$@"
fi

if [[ ${1:-} == --describe ]]; then
  [[ $# -ge 2 && $# -le 4 ]] || usage "--describe takes LAYOUT [PREFIX [IPV6]]"
  LAYOUT=$2
  parse "$LAYOUT"
  IFS=, read -ra fam <<<"${4:-no}"
  addrs=()
  for ((s = 1; s <= ${#SITES[@]}; s++)); do
    f=${fam[0]}
    [[ ${#fam[@]} -gt 1 ]] && f=${fam[s - 1]:-no}
    for ((i = 1; i <= MAXHOSTS; i++)); do
      if [[ $f == no ]]; then addrs+=("10.0.$s.$i"); else addrs+=("$(printf 'fd00:0:0:%x::%x' "$s" "$i")"); fi
    done
  done
  describe "${3:-P-}" "${addrs[@]}"
  exit 0
fi

vc=() mode=direct extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --wan-delay | --wan-rate | --wan-loss | --wanemu | --ipv6)
      [[ $# -ge 2 ]] || usage "$1 needs a value"
      vc+=("$1" "$2"); shift 2 ;;
    --wan-mode)
      [[ $# -ge 2 && ($2 == direct || $2 == gateways) ]] || usage "--wan-mode takes direct or gateways"
      mode=$2; shift 2 ;;
    --mpirun-arg)
      [[ $# -ge 2 ]] || usage "--mpirun-arg needs a value"
      extra+=("$2"); shift 2 ;;
    --site-exec-prefix)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*=. ]] || usage "--site-exec-prefix takes N=CMD"
      export RUN_ON_SITES_EXEC_PREFIXES="${RUN_ON_SITES_EXEC_PREFIXES:-}$2"$'\n'; shift 2 ;;
    --nat)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || usage "--nat takes a site number (1, 2, ...)"
      export RUN_ON_SITES_NAT="${RUN_ON_SITES_NAT:-} $2"; shift 2 ;;
    -*) usage "unknown option '$1'" ;;
    *) break ;;
  esac
done
[[ $# -ge 3 ]] || usage "expected LAYOUT MPIRUN PROGRAM [ARGS...]"
LAYOUT=$1
parse "$LAYOUT"
[[ -z ${RUN_ON_SITES_NAT:-} || $mode == gateways ]] || usage "--nat needs --wan-mode gateways"
[[ $mode == direct ]] && extra=(--direct-wan "${extra[@]}")
exec "$HERE/vcluster.sh" --sites "${#SITES[@]}" --hosts-per-site "$MAXHOSTS" "${vc[@]}" -- \
  "$HERE/run_on_sites.sh" --inside "$LAYOUT" "$2" "${#extra[@]}" "${extra[@]}" "${@:3}"
