#!/usr/bin/env bash
# run_on_hosts.sh [--ipv6 only|dual] LAYOUT MPIRUN PROGRAM [ARGS...]
#
# Runs PROGRAM under MPIRUN on a fresh emulated cluster (vcluster.sh), one host per entry of
# LAYOUT, ranks placed by slot:
#   LAYOUT  HxS        H hosts of S ranks each           (2x2: h1:2,h2:2, 4 ranks)
#           S1,S2,...  host i runs Si ranks              (1,2,3: h1:1,h2:2,h3:3, 6 ranks)
# i.e. `MPIRUN --host <P>h1:S1,... --launch-agent "ip netns exec {host}" -n <total> PROGRAM ARGS`,
# where <P> is the cluster's prefix. --ipv6: the hosts' families (vcluster.sh --ipv6; only:
# IPv6 alone). Exit status: mpirun's; 77 if no cluster can be made here.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

usage() {
  echo "run_on_hosts.sh: $*" >&2
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# slots LAYOUT: the ranks of each host, one per line.
slots() {
  local i
  if [[ $1 =~ ^([1-9][0-9]*)x([1-9][0-9]*)$ ]]; then
    for ((i = 0; i < BASH_REMATCH[1]; i++)); do echo "${BASH_REMATCH[2]}"; done
  elif [[ $1 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]]; then
    tr , '\n' <<<"$1"
  else
    usage "bad layout '$1' (expected HxS, e.g. 2x2, or S1,S2,..., e.g. 1,2,3)"
  fi
}

if [[ ${1:-} == --inside ]]; then
  # inside the cluster: the host names are known now
  shift
  layout=$1 mpirun=$2
  shift 2
  mapfile -t n < <(slots "$layout")
  read -ra hosts <<<"$VCLUSTER_HOSTS"
  spec='' total=0
  for i in "${!n[@]}"; do
    spec+=${spec:+,}${hosts[i]}:${n[i]}
    total=$((total + n[i]))
  done
  # --bind-to none: the emulated hosts share this machine's cores; bound per host, ranks of
  # different hosts would be pinned to the same cores.
  exec "$mpirun" --bind-to none --host "$spec" --launch-agent "$VCLUSTER_AGENT" -n "$total" "$@"
fi

vc=()
if [[ ${1:-} == --ipv6 ]]; then
  [[ $# -ge 2 && $2 =~ ^(only|dual)$ ]] || usage "--ipv6 takes only or dual"
  vc=(--ipv6 "$2")
  shift 2
fi
[[ $# -ge 3 ]] || usage "expected LAYOUT MPIRUN PROGRAM [ARGS...]"
mapfile -t n < <(slots "$1")
[[ ${#n[@]} -gt 0 ]] || exit 2
exec "$HERE/vcluster.sh" --hosts "${#n[@]}" "${vc[@]}" -- "$HERE/run_on_hosts.sh" --inside "$@"
