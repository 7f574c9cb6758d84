#!/usr/bin/env bash
# Runs mpi4py.futures' own tests (demo/futures/test_futures.py of the sdist built by build.sh:
# MPIPoolExecutor, MPICommExecutor, the spawned and the shared pools) under our mpirun with NP
# ranks; the job's exit status is unittest's.
#   futures.sh OUT MPIRUN NP
set -euo pipefail
out=$1 mpirun=$2 np=$3
here="$(cd "$(dirname "$0")" && pwd)"
mpi4py=$(awk '$1 == "mpi4py" { print $2 }' "$here/versions.txt")
[ -f "$out/built-$mpi4py" ] || { echo "skipped: mpi4py was not built (mpi4py.build)"; exit 77; }
cd "$out/src/mpi4py-$mpi4py/demo/futures"
exec "$mpirun" -n "$np" "$out/venv/bin/python" test_futures.py -q
