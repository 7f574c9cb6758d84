"""The MPIs under test and the one place that knows how they differ: each one's compiler
wrapper and launcher, the launcher's options for one rank per core and for more ranks than
cores, and how each is started across emulated hosts and sites (and made to use the link)."""
import os

from metabench.cluster import in_host
from metabench.paths import NETNS_AGENT
from metabench.process import run
from metabench.programs import MSGRATE_MAX_BYTES


class Mpi:
    def __init__(self, name, slug, cc, launcher, startup_opts, bind_opts, oversub_opts):
        self.name, self.slug, self.cc, self.launcher = name, slug, cc, launcher
        self.startup_opts = startup_opts   # for mpirun -n 1..8 init_finalize
        self.bind_opts = bind_opts         # for the 2-rank programs: one rank per core
        self.oversub_opts = oversub_opts   # for more ranks than cores: no binding
        self.programs = {}                 # program -> executable, for those that built
        self.unavailable = {}              # program -> why it did not build
        self.failed = {}                   # program -> why a run failed

    def startup_command(self, np):
        return self.launcher + self.startup_opts + ["-n", str(np), self.programs["init_finalize"]]

    def p2p_command(self, program, max_bytes, scale):
        return (self.launcher + self.bind_opts +
                ["-n", "2", self.programs[program], str(max_bytes), str(scale)])

    def msgrate_command(self, pairs, scale):
        """One pair on one core each; more pairs than cores run unbound, as the collectives."""
        return (self.launcher + self.coll_opts(2 * pairs) +
                ["-n", str(2 * pairs), self.programs["msgrate"], str(MSGRATE_MAX_BYTES),
                 str(scale)])

    def noncontig_command(self, extra, scale):
        return (self.launcher + self.bind_opts +
                ["-n", "2", self.programs["noncontig"], extra[0], str(scale)] + extra[1:])

    def coll_opts(self, np):
        return self.bind_opts if np <= 2 else self.oversub_opts

    def coll_command(self, coll, np, max_bytes, scale):
        return (self.launcher + self.coll_opts(np) +
                ["-n", str(np), self.programs["coll_" + coll], str(max_bytes), str(scale)])


def metampi_launch_opts(mpirun):
    """(one rank per core, oversubscribed): --bind-to core / none only if this metampi's
    mpirun knows the option (it binds to cores by default when there are enough of them,
    and not at all when there are more ranks than cores)."""
    _, out, err, _ = run([mpirun, "--help"], timeout=30)
    if "--bind-to" not in out + err:
        return [], []
    return ["--bind-to", "core"], ["--bind-to", "none"]


def mpis_under_test(build):
    mpirun = os.path.join(build, "bin", "mpirun")
    return [
        Mpi("metampi", "metampi", [os.path.join(build, "bin", "mpicc")], [mpirun],
            [], *metampi_launch_opts(mpirun)),
        # More ranks than cores is the point of np=8 on small machines. With
        # --oversubscribe, Open MPI also yields the core while it waits.
        Mpi("Open MPI", "openmpi", ["mpicc.openmpi"], ["mpirun.openmpi"],
            ["--oversubscribe"], ["--bind-to", "core"], ["--oversubscribe", "--bind-to", "none"]),
        # Hydra starts any number of ranks; it has no option to make them yield.
        Mpi("MPICH", "mpich", ["mpicc.mpich"], ["mpirun.mpich"], [], ["-bind-to", "core"],
            ["-bind-to", "none"]),
    ]


def launch_two_hosts(mpi, h1, h2, subnet):
    """The launch command of an MPI with one rank on each of two emulated hosts (h1, h2 on
    subnet), up to the program. metampi starts from the root namespace through its helpers;
    Open MPI's and MPICH's launchers run inside h1 with NETNS_AGENT as their ssh, their TCP
    only on the subnet, and no shared memory between the hosts."""
    if mpi.slug == "metampi":
        bind = ["--bind-to", "none"] if mpi.bind_opts else []
        return mpi.launcher + ["--host", f"{h1}:1,{h2}:1", "--launch-agent",
                               "ip netns exec {host}"] + bind + ["-n", "2"]
    if mpi.slug == "openmpi":
        net = subnet
        return in_host(h1, mpi.launcher + [
            "--host", f"{h1},{h2}", "--mca", "plm_rsh_agent", NETNS_AGENT,
            "--mca", "pml", "ob1", "--mca", "btl", "tcp,self", "--mca", "osc", "pt2pt",
            "--mca", "btl_tcp_if_include", net, "--mca", "oob_tcp_if_include", net,
            "--bind-to", "none", "-n", "2"])
    return in_host(h1, mpi.launcher + [
        "-hosts", f"{h1},{h2}", "-launcher", "ssh", "-launcher-exec", NETNS_AGENT,
        "-iface", "eth0", "-bind-to", "none", "-genv", "UCX_TLS", "tcp,self", "-n", "2"])


# What each MPI is given so that its traffic between two hosts takes the link
# (launch_two_hosts), as the report states it.
TWO_HOSTS_HOW = {
    "metampi": "nothing: its helper sets `METAMPI_HOSTNAME` on each host, so the two ranks are "
               "on different hosts and talk over TCP",
    "openmpi": "its own host name on each host (UTS namespace), `--mca pml ob1 --mca btl "
               "tcp,self` (no shared-memory BTL), `--mca osc pt2pt` (its default one-sided "
               "component, UCX's, finds the other rank on the same machine and takes shared "
               "memory), TCP only on the cluster's subnet",
    "mpich": "its own host name on each host (UTS namespace; hydra then starts a proxy per "
             "host), and `UCX_TLS=tcp,self`: UCX finds its peers on the same machine by the "
             "kernel's boot id, whatever the host name, and would take shared memory",
}


def launch_sites(mpi, hosts, net, description, direct_wan):
    """The command that starts an MPI's ranks on emulated hosts at several sites, up to the
    program: hosts [(host, ranks)], the first of which runs Open MPI's and MPICH's launcher;
    net the subnet of all the sites, for their TCP; metampi gets the metacomputer description
    of the layout, and --direct-wan if direct_wan."""
    n = str(sum(k for _, k in hosts))
    if mpi.slug == "metampi":
        cmd = mpi.launcher + ["--metacomputer", description]
        if direct_wan:
            cmd.append("--direct-wan")
        bind = ["--bind-to", "none"] if mpi.bind_opts else []
        return cmd + ["--launch-agent", "ip netns exec {host}"] + bind + ["-n", n]
    first = hosts[0][0]
    host_list = ",".join(f"{h}:{k}" for h, k in hosts)
    if mpi.slug == "openmpi":
        btl = "vader,tcp,self" if any(k > 1 for _, k in hosts) else "tcp,self"
        return in_host(first, mpi.launcher + [
            "--host", host_list, "--mca", "plm_rsh_agent", NETNS_AGENT,
            "--mca", "pml", "ob1", "--mca", "btl", btl,
            "--mca", "btl_tcp_if_include", net, "--mca", "oob_tcp_if_include", net,
            "--mca", "mpi_yield_when_idle", "1", "--bind-to", "none", "-n", n])
    return in_host(first, mpi.launcher + [
        "-hosts", host_list, "-launcher", "ssh", "-launcher-exec", NETNS_AGENT,
        "-iface", "eth0", "-bind-to", "none", "-genv", "UCX_TLS", "tcp,self",
        "-genv", "UCX_KEEPALIVE_INTERVAL", "inf", "-n", n])


# What each contender between sites (metampi in both WAN modes) is given so that it uses the
# WAN as a real metacomputer would (launch_sites), as the report states it.
SITES_HOW = {
    "metampi": "a metacomputer description of the layout (one `[site]` per site, its hosts, "
               "its gateway on its first host, `wan = <that host's address>:7100`; `[wan] "
               "compression = off`), `mpirun --metacomputer FILE`: one gateway per site carries "
               "all traffic between the sites. The gateways' WAN streams use cubic (`[wan] "
               "congestion = auto`); every other connection here, the other contenders', raw "
               "TCP's and iperf3's, uses the kernel's default (bbr on the reference machine)",
    "metampi-direct": "the same description and `mpirun --metacomputer FILE --direct-wan`: "
                      "ranks at different sites connect to each other directly over TCP",
    "openmpi": "as between two hosts: its own host name on each host, `pml ob1`, `btl "
               "vader,tcp,self` (`tcp,self` with one rank per host), TCP on 10.0.0.0/16 "
               "(both sites' subnets); and `mpi_yield_when_idle 1`, what `--oversubscribe` "
               "turns on: the 8 ranks share 2 cores, which Open MPI cannot see from 2 slots "
               "per host (its 4 B allreduce took 70-100 ms without, 8-13 ms with)",
    "mpich": "as between two hosts: its own host name on each host, `UCX_TLS=tcp,self` (UCX "
             "takes shared memory between namespaces otherwise), and `UCX_KEEPALIVE_INTERVAL="
             "inf` (fewer hangs in MPI_Finalize across the WAN: with the keepalive on, 2 ranks "
             "at different sites hung there every time; 8 ranks still do, see the checks). "
             "MPICH 4.0.2 has no switch to yield the core while it waits",
}
