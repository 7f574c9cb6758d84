"""The emulated metacomputer of the WAN benchmarks, and how each contender starts on it.

Two sites of four emulated hosts (tests/cluster/vcluster.sh --sites 2 --hosts-per-site 4):
site 1 is <P>s1h1 ... <P>s1h4 (10.0.1.1-4), site 2 <P>s2h1 ... <P>s2h4 (10.0.2.1-4). The hosts
of a site share a bridge; every packet between the sites goes through the WAN emulator
(wanemu: 5 ms one way, 1 Gbit/s in each direction) in the router namespace <P>wan, whose
interface `s1` therefore counts all traffic between the sites. The benchmarks use two hosts of
each site; the other two hosts of site 1 give the demo's one-site run the same shape (4 hosts
of 2 ranks) without the WAN.

A layout is a list of sites, each a list of (host, ranks). metampi gets a metacomputer
description of the layout (`mpirun --metacomputer`); Open MPI and MPICH get the hosts, and run
their launcher on the first host as between two hosts, every process with a host name of its
own (mpis.launch_sites).
"""
import contextlib
import json
import os
import re

from metabench.cluster import Cluster
from metabench.mpis import launch_sites
from metabench.paths import NETNS_AGENT
from metabench.process import run

SITES, HOSTS_PER_SITE = 2, 4
WAN_DELAY, WAN_RATE = "5ms", "1gbit"
GATEWAY_PORT = 7100


class Contender:
    """One way of running MPI programs across the sites: an MPI (mpis.Mpi, whose
    programs are built) and, for metampi, the WAN mode ("gateway" or "direct")."""

    def __init__(self, slug, name, mpi, mode=None, encrypt=True):
        self.slug, self.name, self.mpi, self.mode = slug, name, mpi, mode
        self.encrypt = encrypt      # metampi: [wan] encrypt (off: only the ping-pong and stream)


def contenders(mpis):
    by = {m.slug: m for m in mpis}
    return [Contender("metampi", "metampi (gateways)", by["metampi"], "gateway"),
            Contender("metampi-plain", "metampi (gateways, encrypt = off)", by["metampi"],
                      "gateway", encrypt=False),
            Contender("metampi-direct", "metampi --direct-wan", by["metampi"], "direct"),
            Contender("openmpi", "Open MPI", by["openmpi"]),
            Contender("mpich", "MPICH", by["mpich"])]


class SiteCluster(Cluster):
    """The two sites for the length of a `with` block (see metabench.cluster.Cluster)."""

    def __init__(self, work, wanemu):
        super().__init__(work, ["--sites", str(SITES), "--hosts-per-site", str(HOSTS_PER_SITE),
                                "--wan-delay", WAN_DELAY, "--wan-rate", WAN_RATE,
                                "--wanemu", wanemu])

    def __enter__(self):
        super().__enter__()
        if not self.error and (len(self.hosts) != SITES * HOSTS_PER_SITE or not self.wan_ns):
            self.error = (f"vcluster.sh made hosts {' '.join(self.hosts)} and WAN namespace "
                          f"'{self.wan_ns}', not {SITES} sites of {HOSTS_PER_SITE} hosts")
        return self

    def site(self, s):
        """The hosts of site s (0, 1)."""
        return self.hosts[s * HOSTS_PER_SITE:(s + 1) * HOSTS_PER_SITE]

    def addr(self, host):
        return self.addrs[self.hosts.index(host)]

    def p2p_layout(self):
        """One rank on the first host of each site."""
        return [[(self.site(0)[0], 1)], [(self.site(1)[0], 1)]]

    @staticmethod
    def hosts_without_gateway(layout):
        """The hosts of a layout that do not run their site's gateway (each site's first)."""
        return [h for site in layout for h, _ in site[1:]]

    def coll_layout(self):
        """2 sites x 2 hosts x 2 ranks."""
        return [[(h, 2) for h in self.site(s)[:2]] for s in range(SITES)]

    def one_site_layout(self):
        """The same 8 ranks on 4 hosts of site 1 only."""
        return [[(h, 2) for h in self.site(0)]]

    def wan_counters(self):
        """(bytes, packets) through the router's interface to site 1 so far, both directions:
        with two sites, everything that crossed the WAN. None if unreadable."""
        _, out, _, _ = run(["ip", "-n", self.wan_ns, "-s", "-j", "link", "show", "s1"],
                              timeout=10)
        try:
            s = json.loads(out)[0]["stats64"]
            return (s["tx"]["bytes"] + s["rx"]["bytes"], s["tx"]["packets"] + s["rx"]["packets"])
        except (ValueError, KeyError, IndexError, TypeError):
            return None

    @contextlib.contextmanager
    def without_wan_route(self, hosts):
        """For the length of the block the hosts have no route to the other sites (their
        route through the site's router is taken away and put back after): a job in gateway
        mode must then carry everything between the sites through the gateway hosts, and a
        rank there that connected across the WAN itself would fail."""
        removed = []
        try:
            for h in hosts:
                _, out, _, _ = run(["ip", "-n", h, "-j", "route", "show"], timeout=10)
                try:
                    routes = [r for r in json.loads(out) if r.get("gateway")]
                except ValueError:
                    routes = []
                for r in routes:
                    status, _, err, _ = run(["ip", "-n", h, "route", "del", r["dst"]],
                                               timeout=10)
                    if status != 0:
                        raise RuntimeError(f"cannot take the route away from {h}: {err}")
                    removed.append((h, r["dst"], r["gateway"]))
            yield [h for h, _, _ in removed]
        finally:
            for h, dst, via in removed:
                run(["ip", "-n", h, "route", "replace", dst, "via", via], timeout=10)

    def short(self, text):
        """text with the cluster's prefix taken off the host names (s1h1, ...)."""
        prefix = os.path.commonprefix(self.hosts)
        prefix = prefix[:prefix.rfind("-") + 1] if "-" in prefix else prefix
        return text.replace(prefix, "") if prefix else text


def write_description(path, layout, cluster, encrypt=True):
    """The metacomputer description of a layout (docs/metacomputer.md); encrypt False: the
    WAN streams in clear ([wan] encrypt = off, which exists for this comparison only)."""
    lines = ["; written by bench/run_benchmarks.py (WAN benchmarks) for this run's cluster",
             "[wan]", "compression = off          ; the benchmarks' data patterns compress well",
             f"encrypt = {'on' if encrypt else 'off'}", ""]
    for s, hosts in enumerate(layout):
        gateway = hosts[0][0]
        lines += [f"[site site{s + 1}]",
                  "hosts = " + ", ".join(f"{h}:{n}" for h, n in hosts),
                  f"gateway = {gateway}",
                  f"wan = {cluster.addr(gateway)}:{GATEWAY_PORT}", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def launch(c, layout, cluster, description):
    """The command that starts len(ranks) ranks of c on the layout, up to the program."""
    hosts = [h for site in layout for h in site]
    net = ".".join(cluster.addrs[0].split(".")[:2]) + ".0.0/16"
    return launch_sites(c.mpi, hosts, net, description, c.mode == "direct" and len(layout) > 1)


def launch_text(c, layout, cluster, description, program):
    """The launch command for the report: short host names, file names without paths."""
    words = []
    for w in launch(c, layout, cluster, description) + [program]:
        w = cluster.short(w)
        for long_ in (NETNS_AGENT, description, c.mpi.launcher[0]):
            w = w.replace(long_, os.path.basename(long_))
        words.append(f"'{w}'" if re.search(r"[\s$\"{&]", w) else w)
    return " ".join(words)
