#!/usr/bin/env python3
"""The site gateways (metampi-gateway) in jobs, driven from outside (standard library only).

Run: test_gateway.py --mpirun PATH --prog PATH/gw_loop --gateway PATH [--vcluster PATH
     --wanemu PATH] [unittest args]

Local: two sites on this machine ("localhost" and this host's own name, so no root is needed),
their gateways on free ports of 127.0.0.1:
  normal_end       the job ends with status 0, no report, no gateway and no socket left;
  attacks          garbage, a rank's and a gateway's hello under a wrong key, and a
                   connection closed at once, on both gateways while the job runs: each is
                   dropped (and logged), the job finishes with every byte right;
  port_taken       a gateway cannot listen on its address: one line names the site, the
                   address and the cause, and the job ends at once;
  gateway_killed   a gateway killed by SIGKILL mid-job: one report line, the job ends;
  slow_receiver    a rank outside MPI for 12 s while 144 MB are sent to it: flow control
                   holds everything, the gateways stay small, the link is not taken for cut;
  congestion       the WAN streams' TCP congestion control: cubic by default (where the
                   kernel has it), the one the description names, a job that names one the
                   kernel does not have ends at once with one line;
  neighbor_split   a neighbourhood exchange sends one WAN frame per site pair and call, which
                   the other site's gateway splits (a MULTI per call: METAMPI_GW_STATS);
  slow_rank        a rank outside MPI for 3 s behind a 16 MiB flood of small messages from the
                   other site, whose ranks meanwhile keep sending small messages to the other
                   rank of its site: those arrive within a second (the slow rank holds up
                   only its own traffic), the gateways stay up, the flood arrives in order;
  windows          windows of 64 messages of 8 and 16 KiB, each answered by an ack: no
                   window waits for the gateway's loop timer (100 ms) to send its last batch;
  key_purposes     a gateway proves and accepts only the keys derived from the job key for
                   its connections: a rank's hello under the rank-gateway key, a WAN
                   stream's under the gateway-gateway key; the job key itself, the ranks' key,
                   the TCP transport's key, the other kind's key: refused (issue 15, item 10);
  usage            the daemon's own command-line and key errors;
  flood            1500 idle connections on each gateway's port, coming again as they are
                   closed, from before the job starts (the ranks connect through them) to its
                   end, under a descriptor limit of 1024: the job finishes, a few lines at most;
  silent_gateway   the other site's "gateway" takes the connection but never answers: the
                   gateway that opens the link ends with one line within its link timeout;
  first_unanswered the first connection of each WAN stream is taken and never answered (as
                   when the other gateway's accept queue overflowed in a flood and its kernel
                   dropped the ACK): the dialling gateway tries again after its 2 s step
                   instead of waiting out the link timeout, and the job runs.
Wan (root: an emulated metacomputer, vcluster.sh --sites 2 with the WAN emulator; gw_ring
checks every message of a ring over 2 sites of 2 ranks and an Allreduce checksum):
  link_cut         the WAN stops carrying anything (the emulator is stopped) in the middle of
                   a run, with [wan] outage = 3: the heartbeats stop, the link is found cut
                   after the 10 s link timeout, longer than the outage limit, and the job ends
                   within seconds with one line naming both sites, the address and the cause;
  cut_short        the WAN carries nothing for 4 s and the WAN streams are reset at the
                   dialling gateway (ss -K, as a flaky middlebox would): it dials again until
                   the WAN is back, the other gateway, which saw nothing, takes the new
                   streams, what was lost is sent again, and the job ends normally with the
                   same checksum as an uncut run (cut_short_accepting: a link of 3 streams,
                   reset at the other gateway instead, which waits for the dialler to notice);
  cut_10s          (label long) the WAN carries nothing for 10 s (the issue's case), the streams
                   reset at the dialling gateway: the job goes on, and the link is up again
                   within 2 s of the WAN's return;
  cut_10s_demo     (label long) the same cut in the middle of the stencil demo's two-site run
                   (examples/demo, 2 sites of 2 ranks): it ends with the checksum of the same
                   run on one host;
  nat              site s2 is behind a NAT ([site] reachable = no; the router refuses every
                   connection from site s1 to s2's gateway port): s2's gateway opens the link,
                   and the job runs;
  cut_long         the same cut, never restored, with [wan] outage = 3: the job ends 3 s
                   after the cut with one line naming both sites and the cause, and leaves no
                   process, socket or shared-memory file behind.
"""
import argparse
import hashlib
import hmac
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from test_wan_security import Relay

MPIRUN = PROG = FLOOD = WINDOW = NEIGHBOR = SLOWRANK = RING = GATEWAY = VCLUSTER = WANEMU = None
DEMO = None
CHALLENGE_LEN, HELLO_LEN = 24, 68


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def gateway_pids(port, site=None):
    """The gateways of jobs that use the port (site: only that site's)."""
    pattern = "metampi-gateway %s.*127.0.0.1:%d" % ("--site %d " % site if site is not None
                                                    else "", port)
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def listening(port):
    out = subprocess.run(["ss", "-ltnH", "sport = :%d" % port], capture_output=True,
                         text=True).stdout
    return bool(out.strip())


def hkdf(key, label):
    """net/auth.c's auth_derive: HKDF-SHA256, no salt, 32 bytes (RFC 5869)."""
    prk = hmac.new(b"\0" * 32, key, hashlib.sha256).digest()
    return hmac.new(prk, label.encode() + b"\1", hashlib.sha256).digest()


def auth_mac(key, label, first, second, identity):
    return hmac.new(key, label.encode() + first + second + identity.to_bytes(8, "little"),
                    hashlib.sha256).digest()


def mpirun_lines(err):
    return [l for l in err.splitlines()
            if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]


class HoldFirst(Relay):
    """A relay to target (METAMPI_GW_LINK_VIA) that takes its first `hold` connections and
    never answers them (nor closes them until the end), and relays the later ones."""

    def __init__(self, target, hold):
        self.hold, self.taken, self.held = hold, 0, []
        super().__init__(target, "capture")

    def hold_back(self, c):
        self.taken += 1
        if self.taken > self.hold:
            return False
        self.held.append(c)
        return True

    def close(self):
        super().close()
        for c in self.held:
            c.close()


class Local(unittest.TestCase):
    def setUp(self):
        self.ports = [free_port(), free_port()]
        fd, self.desc = tempfile.mkstemp(suffix=".ini")
        with os.fdopen(fd, "w") as f:
            f.write("[site alpha]\nhosts = localhost:2\nwan = 127.0.0.1:%d\n\n"
                    "[site beta]\nhosts = %s:2\nwan = 127.0.0.1:%d\n"
                    % (self.ports[0], socket.gethostname(), self.ports[1]))

    def tearDown(self):
        os.unlink(self.desc)
        for p in self.ports:
            for pid in gateway_pids(p):
                os.kill(pid, signal.SIGKILL)

    def start(self, seconds, wan=None, nofile=None, env=None):
        desc = self.desc
        if wan is not None:  # the description with a [wan] section first
            with open(self.desc) as f:
                text = f.read()
            fd, desc = tempfile.mkstemp(suffix=".ini")
            with os.fdopen(fd, "w") as f:
                f.write("[wan]\n%s\n%s" % (wan, text))
            self.addCleanup(os.unlink, desc)
        limit = None
        if nofile:
            def limit():
                resource.setrlimit(resource.RLIMIT_NOFILE, nofile)
        return subprocess.Popen([MPIRUN, "--bind-to", "none", "--metacomputer", desc,
                                 "-n", "4", PROG, str(seconds)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, preexec_fn=limit,
                                env=env)

    def link_congestion(self):
        """The congestion control of both ends of the WAN stream (alpha's gateway connects to
        beta's port; beta's gateway holds the accepted end)."""
        alpha, beta = (gateway_pids(port, site=s)[0] for s, port in enumerate(self.ports))
        out = subprocess.run(["ss", "-tinpH", "state", "established"], capture_output=True,
                             text=True).stdout
        # one socket per entry: its line, then an indented line of TCP details
        entries = re.split(r"\n(?=\S)", out)
        found = {}
        for e in entries:
            m = re.match(r"\S+\s+\S+\s+127\.0\.0\.1:(\d+)\s+127\.0\.0\.1:(\d+)", e)
            cc = re.search(r"^\s+(\w+) ", e, re.M)
            if not m or not cc:
                continue
            local, peer = int(m.group(1)), int(m.group(2))
            if "pid=%d," % alpha in e and peer == self.ports[1]:
                found["alpha"] = (local, cc.group(1))
            elif "pid=%d," % beta in e and local == self.ports[1]:
                found.setdefault("beta", {})[peer] = cc.group(1)
        self.assertIn("alpha", found, out)
        port, mine = found["alpha"]
        self.assertIn(port, found.get("beta", {}), out)
        return mine, found["beta"][port]

    def wait_running(self, p):
        line = p.stdout.readline()
        self.assertEqual(line, "loop running\n")

    def assert_clean(self):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            left = [gateway_pids(p) for p in self.ports] + [listening(p) for p in self.ports]
            if not any(left):
                return
            time.sleep(0.1)
        self.fail("left behind: gateways %s, listeners %s" % (
            [gateway_pids(p) for p in self.ports], [listening(p) for p in self.ports]))

    def test_normal_end(self):
        p = self.start(1)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("loop ok", out)
        self.assertEqual(err, "")
        self.assert_clean()

    def test_attacks(self):
        p = self.start(4)
        self.wait_running(p)
        self.assertTrue(gateway_pids(self.ports[0]) and gateway_pids(self.ports[1]))
        wrong_rank = (b"MMPIgwhl" + (1).to_bytes(4, "little") + (0).to_bytes(4, "little") +
                      (4).to_bytes(4, "little") + os.urandom(16 + 32))
        wrong_link = (b"MMPIgwhl" + (2).to_bytes(4, "little") + (0 | 2 << 16).to_bytes(4, "little")
                      + (0 | 1 << 16).to_bytes(4, "little") + os.urandom(16 + 32))
        for port in self.ports:
            for payload in (os.urandom(HELLO_LEN), wrong_rank, wrong_link, b""):
                with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                    challenge = b""
                    while len(challenge) < CHALLENGE_LEN:
                        chunk = s.recv(CHALLENGE_LEN - len(challenge))
                        self.assertTrue(chunk, "the gateway closed before its challenge")
                        challenge += chunk
                    self.assertEqual(challenge[:8], b"MMPItcp1")
                    if payload:
                        s.sendall(payload)
                        self.assertEqual(s.recv(100), b"", "no answer but the close")
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("loop ok", out)
        self.assertEqual(err.count("wrong job key"), 4, err)
        self.assertEqual(err.count("not a metampi gateway hello"), 2, err)
        self.assertEqual(mpirun_lines(err), [])
        self.assert_clean()

    def test_flood(self):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                        "tcp"))
        from flood import Flood
        addrs = [("127.0.0.1", port) for port in self.ports]
        with Flood(addrs, 1500, reopen_per_s=3000) as f:
            p = self.start(3, nofile=(1024, 1024))
            out, err = p.communicate(timeout=80)
            evicted = f.closed_by_peer()
            opened = f.opened()
        self.assertEqual(p.returncode, 0, err[-3000:])
        self.assertIn("loop ok", out)
        self.assertEqual(mpirun_lines(err), [])
        self.assertGreater(opened, 1500, "the flood never got going")
        self.assertGreater(evicted, 0, "no idle connection was ever closed by a gateway")
        self.assertLess(len(err.splitlines()), 40, err[-3000:])
        self.assert_clean()

    def test_silent_gateway(self):
        silent = socket.socket()
        silent.bind(("127.0.0.1", self.ports[1]))
        silent.listen(16)  # the kernel takes connections; nobody accepts or answers
        env = dict(os.environ, METAMPI_JOB_KEY="ab" * 32)
        try:
            t0 = time.monotonic()
            r = subprocess.run([GATEWAY, "--site", "0", "--gateways", "127.0.0.1:%d,127.0.0.1:%d"
                                % tuple(self.ports), "--rank-sites", "0,1", "--names",
                                "alpha,beta", "--timeout", "2000"], capture_output=True,
                               text=True, timeout=30, env=env)
            elapsed = time.monotonic() - t0
        finally:
            silent.close()
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr.splitlines(), [
            "gateway of site alpha: cannot open the WAN link to site beta (127.0.0.1:%d): its "
            "gateway took the connection but did not answer for 2000 ms" % self.ports[1]])
        self.assertLess(elapsed, 10)

    def test_first_unanswered(self):
        relay = HoldFirst(("127.0.0.1", self.ports[1]), hold=2)
        self.addCleanup(relay.close)
        env = dict(os.environ, METAMPI_GW_LINK_VIA="127.0.0.1:%d" % relay.port)
        t0 = time.monotonic()
        p = self.start(1, env=env)
        out, err = p.communicate(timeout=60)
        elapsed = time.monotonic() - t0
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("loop ok", out)
        self.assertEqual(mpirun_lines(err), [])
        self.assertGreaterEqual(relay.taken, 3, "no stream was opened again")
        self.assertLess(elapsed, 9, "the link waited out its timeout")
        self.assert_clean()

    def test_port_taken(self):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.ports[1]))
        s.listen()
        try:
            t0 = time.monotonic()
            p = self.start(30)
            out, err = p.communicate(timeout=60)
            elapsed = time.monotonic() - t0
        finally:
            s.close()
        self.assertEqual(p.returncode, 1, err)
        lines = mpirun_lines(err)
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"gateway of site beta: cannot listen on its WAN address "
                         r"127\.0\.0\.1:%d: Address already in use" % self.ports[1])
        self.assertLess(elapsed, 15)
        self.assert_clean()

    def test_gateway_killed(self):
        p = self.start(30)
        self.wait_running(p)
        pids = gateway_pids(self.ports[1], site=1)
        self.assertEqual(len(pids), 1)
        t0 = time.monotonic()
        os.kill(pids[0], signal.SIGKILL)
        out, err = p.communicate(timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertLess(time.monotonic() - t0, 15)
        lines = mpirun_lines(err)
        self.assertEqual(len(lines), 1, err)
        # the helper's report of its gateway, or the other gateway's of the link
        self.assertTrue("site gateway (pid %d)" % pids[0] in lines[0] and "signal 9" in lines[0]
                        or re.search(r"gateway of site alpha: the WAN link to site beta "
                                     r"\(127\.0\.0\.1:%d\) failed" % self.ports[1], lines[0]),
                        lines[0])
        self.assert_clean()

    def test_slow_receiver(self):
        # 144 MB for a rank that stays outside MPI for 12 s: the gateways stop reading (flow
        # control), their memory stays bounded, the link is not taken for cut, all arrives
        # In a sanitizer build, freed frames wait in ASan's quarantine (256 MiB by default):
        # memory the gateway gave back would count as held, so the quarantine is off here.
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                                     "quarantine_size_mb=0"]))
        p = subprocess.Popen([MPIRUN, "--bind-to", "none", "--metacomputer", self.desc, "-n",
                              "4", FLOOD, "12", "2000"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
        peak = 0
        while p.poll() is None:
            for port in self.ports:
                for pid in gateway_pids(port):
                    try:
                        with open("/proc/%d/status" % pid) as f:
                            rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
                        peak = max(peak, rss)
                    except (OSError, AttributeError):
                        pass
            time.sleep(0.2)
        out, err = p.communicate(timeout=90)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("flood ok", out)
        # the bounds (link 8 MiB, window 16 MiB, a rank 8 MiB, buffers) are far below this
        self.assertGreater(peak, 0)
        self.assertLess(peak, 96 * 1024, "a gateway grew to %d KiB" % peak)
        self.assert_clean()

    def test_congestion(self):
        with open("/proc/sys/net/ipv4/tcp_available_congestion_control") as f:
            available = f.read().split()
        with open("/proc/sys/net/ipv4/tcp_congestion_control") as f:
            system = f.read().strip()
        with open("/proc/sys/net/ipv4/tcp_allowed_congestion_control") as f:
            allowed = f.read().split()
        usable = lambda cc: cc in available and (os.geteuid() == 0 or cc in allowed)
        for wan, expect in (("", "cubic" if usable("cubic") else system),
                            ("congestion = system", system),
                            ("congestion = reno", "reno")):
            p = self.start(30, wan)
            try:
                self.wait_running(p)
                self.assertEqual(self.link_congestion(), (expect, expect), wan)
            finally:
                p.kill()
                p.communicate(timeout=60)
            for port in self.ports:
                for pid in gateway_pids(port):
                    os.kill(pid, signal.SIGKILL)
        # a name the kernel does not have: one line at the start, nothing left behind
        p = self.start(30, "congestion = nosuchcc")
        out, err = p.communicate(timeout=60)
        self.assertNotEqual(p.returncode, 0)
        lines = mpirun_lines(err)
        self.assertEqual(len(lines), 1, err)
        self.assertRegex(lines[0], r"gateway of site (alpha|beta): cannot use the TCP congestion "
                         r"control 'nosuchcc' on its WAN streams: No such file or directory")
        self.assert_clean()

    def gateway_stats(self, calls):
        """{(site, to): {counter: value}} after a run of gw_neighbor with `calls` calls."""
        env = dict(os.environ, METAMPI_GW_STATS="1")
        r = subprocess.run([MPIRUN, "--bind-to", "none", "--metacomputer", self.desc, "-n", "4",
                            NEIGHBOR, str(calls)], capture_output=True, text=True, timeout=60,
                           env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("neighbor ok %d" % calls, r.stdout)
        stats = {}
        for m in re.finditer(r"^metampi-gateway-stats site=(\w+) to=(\w+) (.*)$", r.stderr,
                             re.M):
            stats[(m.group(1), m.group(2))] = {k: int(v) for k, v in
                                               (f.split("=") for f in m.group(3).split())}
        self.assertEqual(sorted(stats), [("alpha", "beta"), ("beta", "alpha")], r.stderr)
        return stats

    def test_neighbor_split(self):
        # 2 x 2 grid, ranks 0-1 at alpha, 2-3 at beta: every call, each site's leader sends
        # each member of the other site its slice, the two as one MULTI: one WAN frame per
        # direction, which the other gateway splits into the two messages
        before, after = self.gateway_stats(0), self.gateway_stats(20)
        for link in before:
            self.assertEqual(after[link]["multis"] - before[link]["multis"], 20, link)
            self.assertEqual(after[link]["rank_frames"] - before[link]["rank_frames"], 40, link)
            # each MULTI is a WAN frame of its own (other frames coalesce as timing has it)
            self.assertGreaterEqual(after[link]["wan_frames"], after[link]["multis"])
        self.assert_clean()

    def test_windows(self):
        # A window's last frames wait in the open batch while the stream's socket is full;
        # they must leave as soon as it drains. When only the gateway's 100 ms loop timer sent
        # them, 60 windows of 8 KiB took 5.4 s on loopback (most windows waited once); they
        # take 0.05-0.1 s when the batch leaves at once. The bound is 20 times that.
        r = subprocess.run([MPIRUN, "--bind-to", "none", "--metacomputer", self.desc, "-n", "4",
                            WINDOW, "60", "8192", "16384"], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        times = {int(m.group(1)): float(m.group(2))
                 for m in re.finditer(r"^window ok (\d+) ([0-9.]+)$", r.stdout, re.M)}
        self.assertEqual(sorted(times), [8192, 16384], r.stdout)
        for n, t in times.items():
            self.assertLess(t, 2.0, "60 windows of %d B took %.2f s" % (n, t))
        self.assert_clean()

    def test_rank_burst(self):
        # A window of 64 messages of 1 MiB reaches the sending gateway as a burst (the rank's
        # queue and the kernel's buffers hold tens of MiB) while the link's credit for the
        # receiver lasts 8 MiB. One read of a rank took 64 frames before: 64 MiB copied in one
        # event, during which the gateway wrote nothing to its WAN streams, sent no STOP and
        # took no credit (between emulated sites the link then stood idle for 40-100 ms in
        # most windows; docs/sites.md, "Flow control"). Now a read takes at most
        # RANK_BYTES_PER_EVENT (1 MiB) and the frame that crosses it (here one of 1 MiB and
        # its 16-byte header); it was 37.7 MB here without the bound.
        env = dict(os.environ, METAMPI_GW_STATS="1")
        r = subprocess.run([MPIRUN, "--bind-to", "none", "--metacomputer", self.desc, "-n", "4",
                            WINDOW, "3", str(1 << 20)], capture_output=True, text=True,
                           timeout=80, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"window ok 1048576 [0-9.]+")
        m = re.search(r"site=alpha to=beta .* rank_read_max=(\d+)", r.stderr)
        self.assertTrue(m, r.stderr)
        self.assertGreater(int(m.group(1)), 1 << 20, r.stderr)  # a read began a 1 MiB frame
        self.assertLessEqual(int(m.group(1)), 2 * ((1 << 20) + 16), r.stderr)
        self.assert_clean()

    def test_slow_rank(self):
        # Before, the frames for the sleeping rank held up every frame behind them at the
        # receiving gateway (its reorder window filled), so the trickle to the other rank
        # waited the whole 3 s, or the gateway ended the job ("WAN frame N out of order").
        # Now the frames for it wait at the sending gateway (parked: it had no credit left).
        # The sleeping rank must not drain them: no progress thread (on by default across
        # sites, docs/threads.md).
        env = dict(os.environ, METAMPI_GW_STATS="1", METAMPI_ASYNC_PROGRESS="0")
        r = subprocess.run([MPIRUN, "--bind-to", "none", "--metacomputer", self.desc, "-n", "4",
                            SLOWRANK, "2", "1.0"], capture_output=True, text=True, timeout=80,
                           env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"slowrank ok [0-9.]+")
        self.assertEqual(mpirun_lines(r.stderr), [])
        parked = re.search(r"site=alpha to=beta .* parked=(\d+) credits_in=(\d+)", r.stderr)
        self.assertTrue(parked, r.stderr)
        self.assertGreater(int(parked.group(1)), 0, r.stderr)
        self.assertGreater(int(parked.group(2)), 0, r.stderr)
        self.assert_clean()

    def test_key_purposes(self):
        job = os.urandom(32)
        ranks = hkdf(job, "metampi v1 ranks")
        keys = {"job": job, "ranks": ranks, "tcp": hkdf(ranks, "metampi v1 rank-rank tcp"),
                "rank-gateway": hkdf(ranks, "metampi v1 rank-gateway"),
                "gateway-gateway": hkdf(job, "metampi v1 gateway-gateway"),
                "rendezvous": hkdf(job, "metampi v1 rendezvous")}
        env = dict(os.environ, METAMPI_JOB_KEY=job.hex())
        gw = subprocess.Popen([GATEWAY, "--site", "1", "--gateways", "127.0.0.1:%d,127.0.0.1:%d"
                               % tuple(self.ports), "--rank-sites", "0*2,1*2"],
                              stderr=subprocess.PIPE, text=True, env=env)
        self.addCleanup(gw.kill)
        deadline = time.monotonic() + 10
        while not listening(self.ports[1]) and time.monotonic() < deadline:
            time.sleep(0.05)

        def hello(role, a, b, key):
            """The WELCOME's verdict and site under `key`, or None when the gateway closed."""
            with socket.create_connection(("127.0.0.1", self.ports[1]), timeout=10) as s:
                challenge = b""
                while len(challenge) < CHALLENGE_LEN:
                    chunk = s.recv(CHALLENGE_LEN - len(challenge))
                    self.assertTrue(chunk)
                    challenge += chunk
                na, nc = challenge[8:24], os.urandom(16)
                label = "gw-rank" if role == 1 else "gw-link"
                s.sendall(b"MMPIgwhl" + b"".join(x.to_bytes(4, "little") for x in (role, a, b))
                          + nc + auth_mac(key, label, na, nc, a | b << 32))
                welcome = b""
                while len(welcome) < 48:
                    chunk = s.recv(48 - len(welcome))
                    if not chunk:
                        return None
                    welcome += chunk
                verdict = int.from_bytes(welcome[8:12], "little")
                site = int.from_bytes(welcome[12:16], "little")
                self.assertEqual(welcome[16:], auth_mac(key, "gw-acc", nc, na,
                                                        site | verdict << 32))
                return verdict, site

        rank, link = (1, 2, 4), (2, 0 | 2 << 16, 0 | 1 << 8)  # stream 0 of 1, generation 0
        for name in ("job", "ranks", "tcp", "gateway-gateway", "rendezvous"):
            self.assertIsNone(hello(*rank, keys[name]), "a rank's hello under the %s key" % name)
        for name in ("job", "ranks", "tcp", "rank-gateway", "rendezvous"):
            self.assertIsNone(hello(*link, keys[name]), "a link's hello under the %s key" % name)
        self.assertEqual(hello(*rank, keys["rank-gateway"]), (0, 1))
        self.assertEqual(hello(*link, keys["gateway-gateway"]), (0, 1))
        gw.kill()
        err = gw.communicate(timeout=10)[1]
        self.assertEqual(err.count("wrong job key"), 10, err)

    def test_control_grow(self):
        """Ranks spawned while the job runs (--control-fd, tools/gateway/grow.c): announced in
        order they are taken ("ok TAG") and a rank among them is accepted; out of order, with a
        bad site or malformed they are refused ("no TAG WHY") and nothing grows."""
        job = os.urandom(32)
        key = hkdf(hkdf(job, "metampi v1 ranks"), "metampi v1 rank-gateway")
        ours, theirs = socket.socketpair()
        env = dict(os.environ, METAMPI_JOB_KEY=job.hex())
        gw = subprocess.Popen([GATEWAY, "--site", "1", "--gateways", "127.0.0.1:%d,127.0.0.1:%d"
                               % tuple(self.ports), "--rank-sites", "0*2,1*2",
                               "--control-fd", "0"], stdin=theirs, stderr=subprocess.PIPE,
                              text=True, env=env)
        theirs.close()
        self.addCleanup(gw.kill)
        deadline = time.monotonic() + 10
        while not listening(self.ports[1]) and time.monotonic() < deadline:
            time.sleep(0.05)
        ours.settimeout(10)
        reader = ours.makefile("r")

        def ask(line):
            ours.sendall(line.encode() + b"\n")
            return reader.readline().rstrip("\n")

        def hello(a, b):
            with socket.create_connection(("127.0.0.1", self.ports[1]), timeout=10) as s:
                challenge = b""
                while len(challenge) < CHALLENGE_LEN:
                    chunk = s.recv(CHALLENGE_LEN - len(challenge))
                    self.assertTrue(chunk)
                    challenge += chunk
                na, nc = challenge[8:24], os.urandom(16)
                s.sendall(b"MMPIgwhl" + b"".join(x.to_bytes(4, "little") for x in (1, a, b))
                          + nc + auth_mac(key, "gw-rank", na, nc, a | b << 32))
                welcome = s.recv(48)
                return len(welcome) == 48

        self.assertFalse(hello(4, 5), "a rank not announced yet")
        self.assertEqual(ask("ranks 3 4 2 0,1"), "ok 3")
        self.assertTrue(hello(5, 6), "a spawned rank at the gateway's site")
        self.assertFalse(hello(4, 6), "a spawned rank at another site")
        self.assertEqual(ask("ranks 4 4 1 1"),
                         "no 4 site gateway site1: ranks not announced in order")
        self.assertEqual(ask("ranks 5 6 1 7"), "no 5 site gateway site1: a bad site")
        self.assertEqual(ask("ranks 6 6 2 1"),
                         "no 6 site gateway site1: fewer sites than ranks")
        self.assertEqual(ask("hello"), "no ? site gateway site1: a malformed line")
        self.assertEqual(ask("ranks 7 6 1 1*1"), "ok 7")
        self.assertTrue(hello(6, 7))
        gw.kill()
        gw.communicate(timeout=10)

    def test_usage(self):
        r = subprocess.run([GATEWAY, "--site", "0"], capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--site, --gateways and --rank-sites are required", r.stderr)
        r = subprocess.run([GATEWAY, "--site", "0", "--gateways", "127.0.0.1:1,1.2.3:4",
                            "--rank-sites", "0*2,1*2"], capture_output=True, text=True,
                           timeout=10)
        self.assertIn("--gateways: site 1's '1.2.3:4' is not IPv4:PORT or [IPv6]:PORT: "
                      "not an IPv4 address", r.stderr)
        r = subprocess.run([GATEWAY, "--site", "0", "--gateways", "127.0.0.1:1,127.0.0.1:2",
                            "--rank-sites", "0*2,1*2", "--streams", "0"], capture_output=True,
                           text=True, timeout=10)
        self.assertIn("--streams: '0' is not a number of streams", r.stderr)
        r = subprocess.run([GATEWAY, "--site", "0", "--gateways", "127.0.0.1:1,127.0.0.1:2",
                            "--rank-sites", "0*2,1*2", "--congestion", "Cubic"],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--congestion: 'Cubic' is not auto, system or the name of a TCP "
                      "congestion control", r.stderr)
        env = dict(os.environ)
        env.pop("METAMPI_JOB_KEY", None)
        r = subprocess.run([GATEWAY, "--site", "0", "--gateways", "127.0.0.1:1,127.0.0.1:2",
                            "--rank-sites", "0*2,1*2"], capture_output=True, text=True,
                           timeout=10, env=env)
        self.assertEqual(r.returncode, 2)
        self.assertIn("METAMPI_JOB_KEY must hold the job key", r.stderr)
        # a description whose site has no WAN address: mpirun says which
        with open(self.desc, "w") as f:
            f.write("[site alpha]\nhosts = localhost:2\n\n[site beta]\nhosts = %s:2\n"
                    "wan = 127.0.0.1:%d\n" % (socket.gethostname(), self.ports[1]))
        r = subprocess.run([MPIRUN, "--metacomputer", self.desc, "-n", "4", PROG],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 1)
        self.assertIn("site 'alpha' needs 'wan = IPv4:PORT' or 'wan = [IPv6]:PORT', the "
                      "address its gateway listens on", r.stderr)


# Runs PROG ARGS on 2 sites of 1 host (RANKS ranks each), cuts the WAN once CUE is printed
# (the emulator stopped: nothing crosses; the WAN streams reset in the namespaces of RESET,
# site numbers), restores it after CUT seconds (never: "never"), and reports the job's status,
# the time from the cut to its end, and what it left behind. OUTAGE: [wan] outage, if set.
CUT = r"""
set -u
desc=$(mktemp); out=$(mktemp); err=$(mktemp)
{ printf '[wan]\n%s\n' "$WAN"; [ -n "$OUTAGE" ] && printf 'outage = %s\n' "$OUTAGE"
  "$RUN_ON_SITES" --describe "2x1x$RANKS" "$VCLUSTER_PREFIX"; } > "$desc"
"$MPIRUN" --bind-to none --metacomputer "$desc" --launch-agent "$VCLUSTER_AGENT" \
    -n $((2 * RANKS)) $PROG > "$out" 2> "$err" &
job=$!
for i in $(seq 600); do grep -q "$CUE" "$out" && break; sleep 0.05; done
grep -q "$CUE" "$out" || { echo "never running"; cat "$err"; kill $job; exit 1; }
sleep 0.5
if [ "$STOP" = helper ]; then  # s2's helper: mpirun's control channel to it falls silent
  emu=$(for p in $(ip netns pids "${VCLUSTER_PREFIX}s2h1"); do
    [ "$(cat /proc/$p/comm 2>/dev/null)" = metampi-hostd ] && echo $p; done)
else
  emu=$(ip netns pids "$VCLUSTER_WAN_NS")
fi
kill -STOP $emu
for s in $RESET; do  # the other site's addresses: not the ranks' own connections
  ip netns exec "${VCLUSTER_PREFIX}s${s}h1" ss -K dst "10.0.$((3 - s)).0/24" > /dev/null
done
t0=$(date +%s.%N)
if [ "$CUT" != never ]; then sleep "$CUT"; kill -CONT $emu; fi
wait $job; rc=$?
t1=$(date +%s.%N)
kill -CONT $emu
echo "rc=$rc"
echo "elapsed=$(echo "$t1 - $t0" | bc)"
left=$(for h in $VCLUSTER_HOSTS; do ip netns pids $h; done | wc -l)
echo "left=$left"
# sockets a process holds (a closed one may linger in FIN-WAIT or TIME-WAIT: the kernel's)
socks=$(for h in $VCLUSTER_HOSTS; do
  ip netns exec $h ss -tanH state listening state established state syn-sent state close-wait
done | wc -l)
echo "sockets=$socks"
# the job's shared-memory files name its kvsname, kvs_<mpirun's pid>_ (other tests run beside)
echo "shm_left=$(ls /dev/shm | grep -c "^metampi\.kvs_${job}_")"
cat "$out" "$err"
rm -f "$desc" "$out" "$err"
"""


# Site s2 behind a NAT: the WAN router refuses connections from s1 to s2's gateway port.
NAT = r"""
set -u
desc=$(mktemp)
"$RUN_ON_SITES" --describe 2x1x1 "$VCLUSTER_PREFIX" | sed '/^\[site s2\]/a reachable = no' > "$desc"
ip netns exec "$VCLUSTER_WAN_NS" ip rule add pref 10 iif s1 to 10.0.2.1 ipproto tcp dport 7000 \
    prohibit
# the rule holds: s1 cannot reach s2's gateway port
ip netns exec "${VCLUSTER_PREFIX}s1h1" timeout 5 bash -c 'exec 3<>/dev/tcp/10.0.2.1/7000' \
    2>/dev/null; echo "refused: $?"
"$MPIRUN" --bind-to none --metacomputer "$desc" --launch-agent "$VCLUSTER_AGENT" -n 2 \
    $PROG 2 2>&1
echo "rc=$?"
rm -f "$desc"
"""


class Wan(unittest.TestCase):
    def cut(self, prog, cue, ranks=1, outage="", reset="", cut="never", wan="", stop="wan",
            env=None):
        check = subprocess.run([VCLUSTER, "--check", "--sites", "2", "--wanemu", WANEMU],
                               capture_output=True, text=True)
        if check.returncode == 77:
            raise unittest.SkipTest(check.stderr.strip())
        env = dict(os.environ, MPIRUN=MPIRUN, PROG=prog, CUE=cue, RANKS=str(ranks),
                   OUTAGE=outage, RESET=reset, CUT=cut, WAN=wan, METAMPI_GW_STATS="1",
                   STOP=stop,
                   RUN_ON_SITES=os.path.join(os.path.dirname(VCLUSTER), "run_on_sites.sh"),
                   **(env or {}))
        r = subprocess.run([VCLUSTER, "--sites", "2", "--hosts-per-site", "1", "--wanemu",
                            WANEMU, "--", "bash", "-c", CUT], capture_output=True, text=True,
                           timeout=100, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        rc = int(re.search(r"rc=(\d+)", r.stdout).group(1))
        elapsed = float(re.search(r"elapsed=([0-9.]+)", r.stdout).group(1))
        for what in ("left", "sockets", "shm_left"):
            self.assertIn("%s=0" % what, r.stdout)
        return rc, elapsed, r.stdout

    def test_link_cut(self):
        rc, elapsed, out = self.cut(PROG + " 60", "loop running", outage="3")
        self.assertNotEqual(rc, 0, out)
        # heartbeats stop: detected after the 10 s timeout, the job gone within seconds more
        self.assertLess(elapsed, 20, out)
        self.assertGreater(elapsed, 8, out)
        lines = mpirun_lines(out)
        self.assertEqual(len(lines), 1, out)
        self.assertRegex(lines[0], r"gateway of site s[12]: the WAN link to site s[12] "
                         r"\(10\.0\.[12]\.1:7000\) failed: nothing came from its gateway for "
                         r"[0-9.]+ s, longer than \[wan\] outage \(3 s\): it broke \(stream 0: "
                         r"nothing arrived for 10000 ms")

    def assert_survived(self, reset, cut=4, wan=""):
        rc, elapsed, out = self.cut(RING + " %d" % (cut + 2), "ring running", ranks=2,
                                    reset=reset, cut=str(cut), wan=wan)
        self.assertEqual(rc, 0, out)
        m = re.search(r"ring ok (\d+) (\d+)", out)
        self.assertTrue(m, out)
        self.assertEqual(mpirun_lines(out), [], out)
        self.assertNotIn("is wrong", out)
        self.assertRegex(out, r"metampi-gateway \(site s[12]\): the WAN link to site s[12] "
                         r"\(10\.0\.[12]\.1:7000\) broke \(")
        self.assertRegex(out, r"the WAN link to site s[12] \(10\.0\.[12]\.1:7000\) is up "
                         r"again after [0-9.]+ s")
        # the gateways' counters: both links broke (at least) once
        for a, b in (("s1", "s2"), ("s2", "s1")):
            self.assertRegex(out, r"metampi-gateway-stats site=%s to=%s .* breaks=[1-9]\d* "
                             r"resent=\d+" % (a, b))
        return out

    def test_cut_short(self):
        self.assert_survived("1")

    def test_helper_silent(self):
        # mpirun's control channel to the other site's helper silent for 4 s, as in a WAN
        # cut: longer than the heartbeats allow (half of METAMPI_PEER_TIMEOUT, 2 s) but within
        # [wan] outage (8 s), which a job of several sites survives; the job goes on
        rc, elapsed, out = self.cut(RING + " 6", "ring running", ranks=2, outage="8", cut="4",
                                    stop="helper", env={"METAMPI_PEER_TIMEOUT": "4"})
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"ring ok (\d+) (\d+)")
        self.assertEqual(mpirun_lines(out), [], out)

    def test_cut_short_accepting(self):
        self.assert_survived("2", wan="streams = 3")  # a link of several streams

    def test_cut_10s(self):
        out = self.assert_survived("1", cut=10)
        up = re.search(r"\(site s1\): the WAN link to site s2 \S+ is up again after ([0-9.]+) s",
                       out)
        self.assertTrue(up, out)
        self.assertLess(float(up.group(1)) - 10, 2.0, out)

    def test_cut_10s_demo(self):
        if not DEMO:
            raise unittest.SkipTest("no --demo")
        args = "--grid 32 --steps 300 --progress lines"
        ref = subprocess.run([MPIRUN, "--bind-to", "none", "-n", "4", DEMO] + args.split(),
                             capture_output=True, text=True, timeout=60)
        checksum = re.search(r"checksum (0x[0-9a-f]+)", ref.stdout)
        self.assertTrue(checksum, ref.stdout + ref.stderr)
        rc, elapsed, out = self.cut(DEMO + " " + args, "^step [0-9]", ranks=2, reset="1",
                                    cut="10")
        self.assertEqual(rc, 0, out)
        self.assertGreater(elapsed, 10, out)
        self.assertIn("checksum " + checksum.group(1), out)
        self.assertEqual(mpirun_lines(out), [], out)
        self.assertRegex(out, r"the WAN link to site s[12] \(10\.0\.[12]\.1:7000\) is up "
                         r"again after [0-9.]+ s")

    def test_nat(self):
        check = subprocess.run([VCLUSTER, "--check", "--sites", "2", "--wanemu", WANEMU],
                               capture_output=True, text=True)
        if check.returncode == 77:
            raise unittest.SkipTest(check.stderr.strip())
        env = dict(os.environ, MPIRUN=MPIRUN, PROG=PROG,
                   RUN_ON_SITES=os.path.join(os.path.dirname(VCLUSTER), "run_on_sites.sh"))
        r = subprocess.run([VCLUSTER, "--sites", "2", "--hosts-per-site", "1", "--wanemu",
                            WANEMU, "--", "bash", "-c", NAT], capture_output=True, text=True,
                           timeout=100, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("refused: 1", r.stdout)
        self.assertIn("rc=0", r.stdout)
        self.assertRegex(r.stdout, r"loop ok \d+")

    def test_cut_long(self):
        rc, elapsed, out = self.cut(RING + " 60", "ring running", ranks=2, outage="3",
                                    reset="1")
        self.assertNotEqual(rc, 0, out)
        self.assertGreater(elapsed, 2.9, out)
        self.assertLess(elapsed, 10, out)
        lines = mpirun_lines(out)
        self.assertEqual(len(lines), 1, out)
        self.assertRegex(lines[0], r"gateway of site s1: the WAN link to site s2 "
                         r"\(10\.0\.2\.1:7000\) failed: nothing came from its gateway for "
                         r"[0-9.]+ s, longer than \[wan\] outage \(3 s\): it broke \(")


def main():
    global MPIRUN, PROG, FLOOD, WINDOW, NEIGHBOR, SLOWRANK, RING, GATEWAY, VCLUSTER, WANEMU
    global DEMO
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--gateway", required=True)
    ap.add_argument("--flood")
    ap.add_argument("--window")
    ap.add_argument("--neighbor")
    ap.add_argument("--slowrank")
    ap.add_argument("--ring")
    ap.add_argument("--vcluster")
    ap.add_argument("--wanemu")
    ap.add_argument("--demo")
    args, rest = ap.parse_known_args()
    MPIRUN, PROG, FLOOD, GATEWAY = args.mpirun, args.prog, args.flood, args.gateway
    WINDOW, NEIGHBOR, SLOWRANK, RING = args.window, args.neighbor, args.slowrank, args.ring
    VCLUSTER, WANEMU, DEMO = args.vcluster, args.wanemu, args.demo
    r = unittest.main(argv=[sys.argv[0]] + rest, exit=False).result
    if r.skipped and not r.failures and not r.errors and r.testsRun == len(r.skipped):
        sys.exit(77)
    sys.exit(0 if r.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
