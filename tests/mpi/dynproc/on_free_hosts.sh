#!/usr/bin/env bash
# on_free_hosts.sh SLOTS NP MPIRUN PROGRAM [ARGS...]
#
# Runs PROGRAM under MPIRUN with NP ranks on a fresh emulated cluster (tests/cluster/
# vcluster.sh) of one host per entry of SLOTS (S1,S2,...: host i offers Si slots), ranks
# placed by slot, so that the hosts beyond the first NP slots run no rank: where MPI_Comm_spawn
# must start their helpers. In ARGS, @i stands for the name of host i (from 1). Exit status:
# mpirun's; 77 if no cluster can be made here.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VCLUSTER=$HERE/../../cluster/vcluster.sh

if [[ ${1:-} == --inside ]]; then
  shift
  slots=$1 np=$2 mpirun=$3
  shift 3
  IFS=, read -ra n <<<"$slots"
  read -ra hosts <<<"$VCLUSTER_HOSTS"
  spec=''
  for i in "${!n[@]}"; do spec+=${spec:+,}${hosts[i]}:${n[i]}; done
  args=()
  for a in "$@"; do
    for i in "${!hosts[@]}"; do a=${a//@$((i + 1))/${hosts[i]}}; done
    args+=("$a")
  done
  exec "$mpirun" --bind-to none --host "$spec" --launch-agent "$VCLUSTER_AGENT" -n "$np" \
    "${args[@]}"
fi

[[ $# -ge 4 && $1 =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
  { echo "usage: on_free_hosts.sh S1,S2,... NP MPIRUN PROGRAM [ARGS...]" >&2; exit 2; }
IFS=, read -ra n <<<"$1"
exec "$VCLUSTER" --hosts "${#n[@]}" -- "$HERE/on_free_hosts.sh" --inside "$@"
