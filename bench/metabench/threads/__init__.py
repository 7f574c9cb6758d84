"""Threads (bench/threads, issue 18): multi-threaded latency and message rate, overlap of
computation with nonblocking transfers (with and without asynchronous progress; on one host,
between two emulated hosts and between two emulated sites) and what thread support costs a
single-threaded program (metampi built with and without it, in the same run)."""
