"""Between two emulated sites joined by an emulated WAN (run_benchmarks.py --only wan, `make
bench-wan`): cluster.py makes the metacomputer and says how each contender starts on it,
measure.py runs the rounds, targets.py evaluates the targets, report.py writes the section and
plots.py the plots."""
