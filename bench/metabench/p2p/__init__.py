"""Point to point on one host: bench/p2p/latency.c and bandwidth.c with 2 ranks, one per core
(measure.py), the targets against the better of Open MPI and MPICH, the sections and plots
(report.py)."""
