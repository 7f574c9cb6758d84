#!/usr/bin/env bash
# run_on_sites.sh SITES HOSTS_PER_SITE RANKS_PER_HOST MPIRUN PROGRAM [ARGS...]
#
# Runs PROGRAM under MPIRUN on fresh emulated sites (tests/cluster/vcluster.sh --sites: each
# site a LAN of HOSTS_PER_SITE hosts, the sites joined by the WAN emulator, by default 5 ms
# one way and 1 Gbit/s; VCLUSTER_ARGS adds options such as "--wan-delay 20ms"), described
# to mpirun by a metacomputer file of those hosts with RANKS_PER_HOST slots each:
#   MPIRUN --metacomputer FILE --direct-wan --launch-agent "ip netns exec {host}" -n N PROGRAM
# The WAN emulator must be built (WANEMU, default: build/tests/bin/wanemu next to MPIRUN's
# bin/). Exit status: mpirun's; 77 if no cluster can be made here.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CLUSTER=$HERE/../../cluster

usage() {
  echo "run_on_sites.sh: $*" >&2
  sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

if [[ ${1:-} == --inside ]]; then
  shift
  sites=$1 per=$2 slots=$3 mpirun=$4
  shift 4
  read -ra hosts <<<"$VCLUSTER_HOSTS"
  desc=$(mktemp /tmp/run_on_sites.XXXXXX.ini)
  trap 'rm -f "$desc"' EXIT
  for ((s = 0; s < sites; s++)); do
    list=''
    for ((h = 0; h < per; h++)); do
      list+=${list:+, }${hosts[s * per + h]}:$slots
    done
    printf '[site s%d]\nhosts = %s\n\n' "$s" "$list" >>"$desc"
  done
  # --bind-to none: the emulated hosts share this machine's cores
  "$mpirun" --bind-to none --metacomputer "$desc" --direct-wan \
    --launch-agent "$VCLUSTER_AGENT" -n $((sites * per * slots)) "$@"
  exit $?
fi

[[ $# -ge 5 ]] || usage "expected SITES HOSTS_PER_SITE RANKS_PER_HOST MPIRUN PROGRAM [ARGS...]"
for v in "$1" "$2" "$3"; do
  [[ $v =~ ^[1-9][0-9]*$ ]] || usage "'$v' is not a positive number"
done
wanemu=${WANEMU:-$(cd "$(dirname "$4")/.." && pwd)/tests/bin/wanemu}
# shellcheck disable=SC2086
exec "$CLUSTER/vcluster.sh" --sites "$1" --hosts-per-site "$2" --wanemu "$wanemu" \
  ${VCLUSTER_ARGS:-} -- "$HERE/run_on_sites.sh" --inside "$@"
