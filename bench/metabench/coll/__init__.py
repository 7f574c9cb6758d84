"""Collective latency on one host: bench/coll/coll_latency.c, one program per collective, with
2 ranks (one per core) and 4 (oversubscribed) (measure.py); the targets against the better of
Open MPI and MPICH, the section and plots (report.py)."""
