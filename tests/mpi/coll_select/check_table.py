#!/usr/bin/env python3
"""METAMPI_COLL_SELECT_DEBUG=3 prints the selection table once (rank 0), with the thresholds
and forced algorithms the environment sets: a moved threshold and a forced algorithm must
show in it."""
import argparse
import os
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--program", required=True)
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("METAMPI_COLL_")}
    env.update(METAMPI_COLL_SELECT_DEBUG="3", METAMPI_COLL_BCAST_LONG="4k",
               METAMPI_COLL_ALLREDUCE="ring")
    p = subprocess.run([a.mpirun, "-n", "3", a.program], env=env, capture_output=True,
                       text=True, timeout=60)
    err = p.stderr
    problems = []
    if p.returncode != 0:
        problems.append("exit code %d" % p.returncode)
    if err.count("metampi-coll: the selection table") != 1:
        problems.append("the table's heading %d times, not once" %
                        err.count("metampi-coll: the selection table"))
    for want in ("MPI_Bcast  (METAMPI_COLL_BCAST=auto:binomial|scatter_allgather|chain)",
                 "binomial           bytes < 4096 (METAMPI_COLL_BCAST_LONG)",
                 "MPI_Allreduce  (METAMPI_COLL_ALLREDUCE=ring:",
                 "ring               vector >= 262144 (METAMPI_COLL_ALLREDUCE_RING)",
                 "MPI_Neighbor_alltoallw"):
        if want not in err:
            problems.append("missing: %s" % want)
    if problems:
        sys.stderr.write(err[-4000:])
        sys.exit("; ".join(problems))
    print("the selection table printed once, with the environment's thresholds and choices")


if __name__ == "__main__":
    main()
