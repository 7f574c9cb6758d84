#!/bin/sh
# netns_agent.sh [ssh options] HOST COMMAND...
#
# An ssh stand-in for Open MPI's and MPICH's launchers on emulated hosts (network namespaces,
# tests/cluster/vcluster.sh): runs COMMAND on HOST the way ssh would (the words joined and
# handed to a shell), inside the namespace HOST, with a UTS namespace of its own whose host
# name is HOST. The emulated hosts share the machine's host name otherwise, and an MPI that
# finds its neighbours by host name would take them for one host and talk through shared
# memory instead of the link. The runner starts each peer's mpirun the same way on the first
# host (`ip netns exec H unshare --uts sh -c 'hostname "$0" && exec "$@"' H mpirun ...`).
#   Open MPI: --mca plm_rsh_agent /path/netns_agent.sh   (it calls: agent HOST orted ...)
#   MPICH:    -launcher ssh -launcher-exec /path/netns_agent.sh   (agent [-x] HOST proxy ...)
set -eu

# ssh options the launchers may put before the host (hydra: -x; Open MPI's plm_rsh_args)
while [ $# -gt 0 ]; do
    case $1 in
        -b|-c|-D|-E|-e|-F|-I|-i|-J|-L|-l|-m|-O|-o|-p|-Q|-R|-S|-W|-w) shift 2 ;;
        -*) shift ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { echo "netns_agent.sh: usage: netns_agent.sh [ssh options] HOST COMMAND..." >&2; exit 2; }
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
