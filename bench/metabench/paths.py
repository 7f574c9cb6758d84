"""Where the runner's files are: bench/ (the programs' sources, tcp/netns_agent.sh) and the
repository's tests/cluster/vcluster.sh."""
import os

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER_SCRIPT = os.path.join(BENCH_DIR, os.pardir, "tests", "cluster", "vcluster.sh")
# The peers' ssh on emulated hosts (bench/README.md, "How each MPI is started across the
# namespaces").
NETNS_AGENT = os.path.join(BENCH_DIR, "tcp", "netns_agent.sh")
