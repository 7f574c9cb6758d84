"""The benchmark runner behind bench/run_benchmarks.py (bench/README.md).

Three layers, each importing only from those below it:

- runner.py (measure, save, report; the only module that knows every benchmark) and
  record.py (the raw results of a run: what is saved, and restored by --from-results).
- One package or module per benchmark: startup.py, p2p/, noncontig.py, rma.py, fileio.py,
  threads/ (multi-threaded latency and rate, overlap, thread support built in or out),
  hetero/ (like-peer latency with heterogeneity support built in or out),
  coll/ (on one host), scale/ (startup and memory at 16-256 ranks on one host),
  tcp/ (between two emulated hosts), wan/ (between two emulated sites). Each measures
  (measure: the rounds, filling result objects) and reports (targets, its section of the
  document and its plots, from those results as data); none imports another.
- Common modules: cli.py (the command line), mpis.py (the MPIs and the one place that knows
  how they differ: wrappers, launchers, their options on emulated hosts and sites),
  programs.py (the benchmark programs: sources, building, sizes, output), process.py (running
  a job: process groups, timeouts, a job that hangs after its results), schedule.py (rotated
  turns, waiting for an idle machine), cluster.py (emulated hosts, vcluster.sh), limits.py
  (raw TCP and iperf3), results.py (samples per size, the link check), context.py (commit,
  date, machine), document.py (docs/performance.md as a whole and the parts --only rewrites),
  plots.py, formatting.py, store.py (the results file's JSON), paths.py.
"""
