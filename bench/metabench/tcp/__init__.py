"""Between two emulated hosts (TCP): one rank on each of two hosts (tests/cluster/vcluster.sh
--hosts 2: network namespaces h1, h2 joined by a bridge, veth links) for metampi, Open MPI and
MPICH, against raw TCP (bench/tcp/raw_tcp) and iperf3 (measure.py); the targets, the section
and the plots (report.py). Every run is checked to have crossed the link: the bytes (and, for
the ping-pong, packets) counted on h1's eth0 during the run must be at least what the program
timed. Failures here are reported and never change the runner's exit status.
"""
