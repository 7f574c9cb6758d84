#!/usr/bin/env python3
"""metampi benchmarks against Open MPI and MPICH, measured in the same run.

Builds bench/startup/init_finalize.c, bench/p2p/latency.c, bench/p2p/bandwidth.c,
bench/p2p/noncontig.c and bench/coll/coll_latency.c (once per collective) with each MPI's own
compiler wrapper, runs them with each MPI's own launcher and writes docs/performance.md
(tables, ratios, the issues' targets met / not met) plus PNG plots in docs/perf/. Latency and
bandwidth also run between two emulated hosts (network namespaces, one rank each, TCP) against
raw TCP (bench/tcp/raw_tcp) and iperf3, and between two emulated sites joined by an emulated
WAN (latency, bandwidth, collectives and the demo, metampi with gateways and with
--direct-wan). With --only coll, tcp or wan, runs that part alone and replaces only its part of
docs/performance.md. The raw results are saved first (<work>/results*.json), and the report is
made from them: --from-results FILE makes it again without measuring.

The machine is noisy, so the MPIs take turns within every round (A B C, B C A, ...: a slow
phase hits all of them alike) and medians over the rounds are reported. Timings never fail
this script. A program that does not build is "not available" in the tables; one that crashes,
hangs (timeout) or delivers wrong data is "failed" in the tables, is not run again, and makes
the exit status 1 once the report is written. Needs matplotlib (bench/setup.sh installs it for
/usr/bin/python3).

This file is the entry point only: the code is the package bench/metabench/ (its __init__.py
says which module does what).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from metabench.runner import run  # noqa: E402  (after the path)

if __name__ == "__main__":
    run()
