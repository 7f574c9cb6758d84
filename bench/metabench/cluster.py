"""Emulated hosts (tests/cluster/vcluster.sh, network namespaces) for the length of a section:
making them, the traffic through a host's interface, ending what a run left on them, and
running a command, or a server and its client, on them."""
import json
import os
import select
import signal
import subprocess
import time

from metabench.paths import CLUSTER_SCRIPT
from metabench.process import kill_group, run


class Cluster:
    """A `vcluster.sh --hosts 2` cluster (or what `options` make) for the length of a `with`
    block. vcluster.sh runs a `cat` that holds the cluster up until the runner closes its stdin
    (also when the runner dies), then tears everything down: namespaces, every process in
    them, files. hosts and addrs in vcluster.sh's order; wan_ns the WAN router's namespace
    (with --sites, else "")."""

    def __init__(self, work, options=("--hosts", "2")):
        self.work = work
        self.options = list(options)
        self.proc = None
        self.hosts, self.addrs, self.wan_ns, self.error = [], [], "", None

    def __enter__(self):
        os.makedirs(self.work, exist_ok=True)
        self.log = open(os.path.join(self.work, "vcluster.log"), "w")
        script = ('echo "$VCLUSTER_HOSTS"; echo "$VCLUSTER_ADDRS"; echo "$VCLUSTER_WAN_NS"; '
                  'exec cat >/dev/null')
        try:
            self.proc = subprocess.Popen(["bash", CLUSTER_SCRIPT] + self.options +
                                         ["--", "sh", "-c", script],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.log, text=True, start_new_session=True)
        except OSError as e:
            self.error = f"cannot run {CLUSTER_SCRIPT}: {e}"
            return self
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        lines = [self.proc.stdout.readline().split() for _ in range(3)] if ready else [[], [], []]
        if len(lines[0]) >= 2 and len(lines[1]) == len(lines[0]):
            self.hosts, self.addrs = lines[0], lines[1]
            self.wan_ns = lines[2][0] if lines[2] else ""
        else:
            self.__exit__(None, None, None)
            with open(self.log.name) as f:
                why = " ".join(f.read().split())
            self.error = (f"no emulated cluster (vcluster.sh exit status "
                          f"{self.proc.returncode}): {why or 'no message'}")[:300]
        return self

    def __exit__(self, *exc):
        if self.proc is None:
            return False
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    pass
            try:
                self.proc.wait(timeout=20)
                break
            except subprocess.TimeoutExpired:
                continue
        self.log.close()
        return False

    def subnet(self):
        return ".".join(self.addrs[0].split(".")[:3]) + ".0/24"

    def counters(self):
        """(bytes, packets) through h1's eth0 so far, both directions, or None."""
        status, out, _, _ = run(["ip", "-n", self.hosts[0], "-s", "-j", "link", "show", "eth0"],
                                timeout=10)
        try:
            s = json.loads(out)[0]["stats64"]
            return (s["tx"]["bytes"] + s["rx"]["bytes"], s["tx"]["packets"] + s["rx"]["packets"])
        except (ValueError, KeyError, IndexError, TypeError):
            return None

    def sweep(self):
        """Ends whatever a run left on the hosts (a hung daemon or server); returns how many
        processes there were."""
        left = 0
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = []
            for h in self.hosts:
                _, out, _, _ = run(["ip", "netns", "pids", h], timeout=10)
                pids += [int(p) for p in out.split() if p.isdigit()]
            if sig == signal.SIGTERM:
                left = len(pids)
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            if not pids:
                break
            time.sleep(1)
        return left


def in_host(host, cmd):
    """cmd on an emulated host, in a UTS namespace named after it (as netns_agent.sh does)."""
    return (["ip", "netns", "exec", host, "unshare", "--uts", "sh", "-c",
             'hostname "$0" && exec "$@"', host] + cmd)


def server_listening(host, port, deadline):
    while time.perf_counter() < deadline:
        _, out, _, _ = run(["ip", "netns", "exec", host, "ss", "-Hltn", "sport", "=",
                            f":{port}"], timeout=10)
        if out.strip():
            return True
        time.sleep(0.05)
    return False


def client_server(cluster, server, client, port, timeout, hosts=None):
    """Starts server on h2, waits until it listens, runs client on h1 (or on hosts =
    (client host, server host)); returns the client's (status, stdout, stderr, seconds) and
    the server's stderr. The server is ended if it outlives the client by 10 s."""
    client_host, server_host = hosts or (cluster.hosts[0], cluster.hosts[1])
    env = dict(os.environ)
    srv = subprocess.Popen(["ip", "netns", "exec", server_host] + server, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    if not server_listening(server_host, port, time.perf_counter() + 10):
        _, serr = kill_group(srv)
        return 1, "", f"server did not listen on port {port}: {serr}", 0.0
    result = run(["ip", "netns", "exec", client_host] + client, timeout)
    try:
        _, serr = srv.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        _, serr = kill_group(srv)
    status, out, err, seconds = result
    return status, out, err + (serr or ""), seconds
