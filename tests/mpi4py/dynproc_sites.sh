#!/usr/bin/env bash
# mpi4py's test_spawn and test_dynproc with one rank on each of two emulated sites, through
# the site gateways (tests/cluster/run_on_sites.sh, layout 1/1): the children go round robin
# over both sites' hosts (docs/dynproc.md, "Several sites"). testJoin is left out: it resolves
# the host's name (socket.getaddrinfo), which an emulated host cannot (no name service in its
# network namespace), before it calls MPI.
#   dynproc_sites.sh OUT MPIRUN WANEMU
set -euo pipefail
out=$1 mpirun=$2 wanemu=$3
here="$(cd "$(dirname "$0")" && pwd)"
mpi4py=$(awk '$1 == "mpi4py" { print $2 }' "$here/versions.txt")
[ -f "$out/built-$mpi4py" ] || { echo "skipped: mpi4py was not built (mpi4py.build)"; exit 77; }
cd "$out/src/mpi4py-$mpi4py"
exec "$here/../cluster/run_on_sites.sh" --wanemu "$wanemu" --wan-mode gateways 1/1 "$mpirun" \
  "$out/venv/bin/python" test/main.py --no-builddir -q -x testJoin test_spawn test_dynproc
