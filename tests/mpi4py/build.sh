#!/usr/bin/env bash
# Builds mpi4py (the version of versions.txt) against this build's mpicc into OUT/venv and
# unpacks its sdist (for test/) into OUT/src; rebuilds only when mpi.h changed since.
# Exit 77 (ctest: skipped) when the cache lacks the sdist or the Cython wheel
# (scripts/fetch-mpi4py.sh fills it).
#   build.sh OUT MPICC MPI_H CACHE
set -euo pipefail
out=$1 mpicc=$2 mpi_h=$3 cache=$4
here="$(cd "$(dirname "$0")" && pwd)"
version() { awk -v p="$1" '$1 == p { print $2 }' "$here/versions.txt"; }
mpi4py=$(version mpi4py)
cython=$(version cython)
sdist="$cache/mpi4py-$mpi4py.tar.gz"
wheel=$(ls "$cache"/cython-"$cython"-*.whl 2>/dev/null | head -1 || true)
if [ ! -f "$sdist" ] || [ -z "$wheel" ]; then
  echo "skipped: $cache lacks mpi4py $mpi4py or Cython $cython (run scripts/fetch-mpi4py.sh)"
  exit 77
fi
stamp="$out/built-$mpi4py"
if [ -f "$stamp" ] && [ "$stamp" -nt "$mpi_h" ] && [ "$stamp" -nt "$mpicc" ]; then
  echo "mpi4py $mpi4py: up to date in $out"
  exit 0
fi
rm -rf "$out"
mkdir -p "$out/src"
/usr/bin/python3 -m venv --system-site-packages "$out/venv"
"$out/venv/bin/pip" install -q --no-index "$wheel"
# -O0: the test suite checks behaviour, and the 6 MB MPI.c compiles in a third of the time
CFLAGS=-O0 MPICC="$mpicc" "$out/venv/bin/pip" install -q --no-build-isolation --no-index \
  --no-deps "$sdist"
tar xzf "$sdist" -C "$out/src"
touch "$stamp"
echo "mpi4py $mpi4py: built against $mpicc"
