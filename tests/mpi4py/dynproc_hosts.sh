#!/usr/bin/env bash
# mpi4py's test_spawn and test_dynproc with one rank on emulated hosts h1:1,h2:3
# (tests/mpi/dynproc/on_free_hosts.sh): the children start on h2, which runs no rank of the
# job until mpirun starts its helper for them (docs/dynproc.md, "Several hosts").
#   dynproc_hosts.sh OUT MPIRUN
set -euo pipefail
out=$1 mpirun=$2
here="$(cd "$(dirname "$0")" && pwd)"
mpi4py=$(awk '$1 == "mpi4py" { print $2 }' "$here/versions.txt")
[ -f "$out/built-$mpi4py" ] || { echo "skipped: mpi4py was not built (mpi4py.build)"; exit 77; }
cd "$out/src/mpi4py-$mpi4py"
exec "$here/../mpi/dynproc/on_free_hosts.sh" 1,3 1 "$mpirun" "$out/venv/bin/python" \
  test/main.py --no-builddir -q test_spawn test_dynproc
