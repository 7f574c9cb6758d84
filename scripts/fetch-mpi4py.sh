#!/usr/bin/env bash
# Downloads the mpi4py sdist and the Cython wheel pinned in tests/mpi4py/versions.txt into
# the cache the mpi4py tests build from: the directory given, default /var/cache/metampi/mpi4py
# (CMake's METAMPI_MPI4PY_CACHE must name the same). Needs PyPI; without it the tests of label mpi4py report "skipped".
# Never fails: a missing download is a warning.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cache="${1:-/var/cache/metampi/mpi4py}"
version() { awk -v p="$1" '$1 == p { print $2 }' "$here/tests/mpi4py/versions.txt"; }
mpi4py=$(version mpi4py)
cython=$(version cython)
mkdir -p "$cache" || { echo "fetch-mpi4py: cannot create $cache" >&2; exit 0; }
pip=(/usr/bin/python3 -m pip download -q --no-deps -d "$cache")
[ -f "$cache/mpi4py-$mpi4py.tar.gz" ] ||
  "${pip[@]}" --no-binary :all: "mpi4py==$mpi4py" ||
  echo "fetch-mpi4py: warning: could not download mpi4py $mpi4py (the mpi4py tests will skip)" >&2
ls "$cache"/cython-"$cython"-*.whl >/dev/null 2>&1 ||
  "${pip[@]}" --only-binary :all: "cython==$cython" ||
  echo "fetch-mpi4py: warning: could not download Cython $cython (the mpi4py tests will skip)" >&2
exit 0
