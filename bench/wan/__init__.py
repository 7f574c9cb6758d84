"""The benchmarks between two emulated sites joined by an emulated WAN (run_benchmarks.py
--only wan, `make bench-wan`): cluster.py makes the metacomputer and starts each contender on
it, measure.py runs the rounds, report.py writes the targets, tables and plots. The modules
use run_benchmarks.py's helpers (`import run_benchmarks as rb`): the runner registers itself
under that name before it imports them."""
