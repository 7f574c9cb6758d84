#!/usr/bin/env python3
"""TCP transport scenarios driven from outside (standard library only).

Run: test_tcp.py --mpirun PATH --prog PATH/tcp_victim [unittest args]

Both ranks run as two hosts of one machine (METAMPI_VIRTUAL_HOSTS=2), so they talk over TCP.
  Attacks   while the job runs, connect to each rank's listening socket and send garbage,
            a well-formed HELLO under a wrong job key, and nothing at all (closing at once):
            each connection is dropped (the first two logged), and the job finishes with
            every byte right.
  Interfaces  --if picks the interfaces the ranks listen and connect on (loopback here, which
            is otherwise left out); one that matches nothing ends the job with a clear message.
  PortRange --port-range LO-HI: the ranks listen on ports of the range; a range with fewer
            free ports than listeners ends the job naming it; malformed ranges are refused.
  Death     a rank killed by SIGKILL in the middle of the job: mpirun reports it (rank,
            host, cause) and the job is gone within 2 s, nothing left behind.
  Flood     (tcp_flood, three ranks on three virtual hosts) 1500 idle connections on every
            rank's listening socket, kept coming, while the ranks open their connections:
            the job finishes with every byte right and a few lines of stderr at most, under
            a descriptor limit of 1024 (mpirun gives its ranks the hard limit: a flood of
            1500 has to be capped) and one too small for the flood (64: out of
            descriptors, the rank sheds connections instead of ending); the ranks listen
            only on the chosen interfaces (not on 0.0.0.0).
  Vanish    (root: two emulated hosts, vcluster.sh; tcp_vanish) the second host's cable is
            pulled (its port on the LAN's bridge goes down: no reset, nothing) while the
            ranks wait with idle connections (keepalive finds it), or while rank 0 waits to
            send to a rank that computes behind a full window (the silent-peer check finds
            it), or (two emulated sites of two hosts, through the gateways) a host that is
            not its site's gateway host: the job ends within METAMPI_PEER_TIMEOUT (6 s here)
            and a few seconds, with one line naming the host, and nothing is left on any
            host.
"""
import argparse
import hashlib
import hmac
import os
import re
import resource
import select
import socket
import struct
import subprocess
import sys
import time
import unittest

MPIRUN = PROG = FLOOD_PROG = VANISH_PROG = VCLUSTER = WANEMU = None
CHALLENGE_LEN, HELLO_LEN = 24, 64


def listeners(pids):
    """The (address, port) pairs the given processes listen on (an IPv6 address without its
    brackets)."""
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        m = re.search(r"pid=(\d+)", line)
        if m and int(m.group(1)) in pids:
            ip, port = line.split()[3].rsplit(":", 1)
            found.append((ip.strip("[]"), int(port)))
    return found


def child_pids(root):
    """root and all its descendants."""
    found, todo = set(), [root]
    while todo:
        p = todo.pop()
        found.add(p)
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return found


def read_line(proc, want, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not r:
            break
        line = proc.stdout.readline()
        if not line:
            break
        if line.strip() == want:
            return True
    return False


def attack_garbage(addr):
    with socket.create_connection(addr, timeout=5) as s:
        s.recv(CHALLENGE_LEN)
        s.sendall(b"GET / HTTP/1.0\r\n\r\n".ljust(HELLO_LEN, b"x"))
        s.settimeout(5)
        assert s.recv(100) == b""  # dropped: closed without a word


def attack_wrong_key(addr):
    with socket.create_connection(addr, timeout=5) as s:
        ch = b""
        while len(ch) < CHALLENGE_LEN:
            ch += s.recv(CHALLENGE_LEN - len(ch))
        assert ch[:8] == b"MMPItcp1", ch
        na, nc = ch[8:], os.urandom(16)
        rank, size = 0, 2
        mac = hmac.new(os.urandom(32), b"tcp-c" + na + nc + struct.pack("<Q", rank | size << 32),
                       hashlib.sha256).digest()
        s.sendall(b"MMPIhelo" + struct.pack("<II", rank, size) + nc + mac)
        s.settimeout(5)
        assert s.recv(100) == b""


def attack_silent(addr):
    socket.create_connection(addr, timeout=5).close()


def ended_cleanly(test, p, out, err):
    test.assertEqual(p.returncode, 0, err[-3000:])
    test.assertEqual(child_pids(p.pid), {p.pid})


class Flood(unittest.TestCase):
    PER_ADDR = 1500

    def start(self, opts=(), nofile=None, prog=None, n=3):
        env = dict(os.environ, METAMPI_VIRTUAL_HOSTS=str(n))
        limit = None
        if nofile:
            def limit():
                resource.setrlimit(resource.RLIMIT_NOFILE, nofile)
        return subprocess.Popen([MPIRUN, *opts, "-n", str(n), prog or FLOOD_PROG],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, preexec_fn=limit)

    def flood(self, nofile):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from flood import Flood as IdleFlood
        p = self.start(nofile=nofile)
        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            # one listener per rank flooded: its IPv4 one (a rank has one per local address)
            addrs = [a for a in listeners(child_pids(p.pid)) if ":" not in a[0]]
            self.assertEqual(len(addrs), 3, addrs)
            with IdleFlood(addrs, self.PER_ADDR) as f:
                opened = f.wait_opened(len(addrs) * self.PER_ADDR * 9 // 10, 30)
                if p.poll() is not None:
                    self.fail("the job ended in the flood: " + p.communicate()[1][-2000:])
                self.assertTrue(opened, "only %d flood connections got through" % f.opened())
                p.stdin.write("go\n")
                p.stdin.flush()
                out, err = p.communicate(timeout=60)
                evicted = f.closed_by_peer()
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        ended_cleanly(self, p, out, err)
        self.assertIn("DONE", out)
        self.assertGreater(evicted, 0, "no idle connection was ever closed by a rank")
        self.assertLess(len(err.splitlines()), 40, err[-3000:])

    def test_limit_1024(self):
        self.flood((1024, 1024))

    def test_out_of_descriptors(self):
        self.flood((64, 64))

    def test_bind_chosen(self):
        p = self.start(prog=PROG, n=2)
        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            addrs = listeners(child_pids(p.pid))
        finally:
            p.kill()
            p.communicate()
        self.assertTrue(addrs)
        loopback_only = all(ip.startswith("127.") for ip, _ in addrs)
        for ip, _ in addrs:
            self.assertNotIn(ip, ("0.0.0.0", "*", "::"), addrs)
            if not loopback_only:
                self.assertFalse(ip.startswith("127.") or ip == "::1", addrs)
        p = self.start(["--if", "lo"], prog=PROG, n=2)
        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            addrs = listeners(child_pids(p.pid))
        finally:
            p.kill()
            p.communicate()
        self.assertTrue(addrs)
        self.assertTrue(all(ip in ("127.0.0.1", "::1") for ip, _ in addrs), addrs)


class Vanish(unittest.TestCase):
    PEER_TIMEOUT = 6
    HOSTS = '--host ${H[0]}:1,${H[1]}:1 -n 2'
    SITES = '--metacomputer "$D/desc" -n 4'
    SCRIPT = r"""
D=$(mktemp -d)
"%(run_on_sites)s" --describe 2x2x1 "$VCLUSTER_PREFIX" > "$D/desc"
METAMPI_PEER_TIMEOUT=%(t)d "%(mpirun)s" --bind-to none %(where)s \
    --launch-agent "$VCLUSTER_AGENT" "%(prog)s" %(mode)s >"$D/out" 2>"$D/err" &
pid=$!
for i in $(seq 300); do grep -q READY "$D/out" && break; sleep 0.1; done
sleep %(settle)s
t0=$(date +%%s%%N)
ip -n "$VCLUSTER_LAN_NS" link set %(port)s down
for i in $(seq 900); do kill -0 $pid 2>/dev/null || break; sleep 0.05; done
if kill -0 $pid 2>/dev/null; then echo HUNG; kill -9 $pid; fi
rc=0; wait $pid || rc=$?
t1=$(date +%%s%%N)
echo "RC $rc"
echo "ELAPSED_MS $(( (t1 - t0) / 1000000 ))"
sleep 0.5
for h in "${H[@]}"; do echo "LEFT $h $(ip netns pids $h | wc -l)"; done
sed 's/^/ERR /' "$D/err"
rm -rf "$D"
"""

    def cut(self, mode, settle, bound, sites=False):
        if not VCLUSTER or not VANISH_PROG or (sites and not WANEMU):
            self.skipTest("no --vcluster / --vanish-prog / --wanemu")
        cluster = (["--sites", "2", "--hosts-per-site", "2", "--wanemu", WANEMU] if sites
                   else ["--hosts", "2"])
        chk = subprocess.run([VCLUSTER, "--check"] +
                             (["--sites", "2", "--wanemu", WANEMU] if sites else []),
                             capture_output=True, text=True)
        if chk.returncode != 0:
            self.skipTest("no emulated hosts here: " + chk.stdout + chk.stderr)
        script = self.SCRIPT % dict(
            t=self.PEER_TIMEOUT, mpirun=MPIRUN, prog=VANISH_PROG, mode=mode, settle=settle,
            where=self.SITES if sites else self.HOSTS, port="s2h2" if sites else "h2",
            run_on_sites=os.path.join(os.path.dirname(VCLUSTER), "run_on_sites.sh"))
        r = subprocess.run([VCLUSTER] + cluster + ["--", "bash", "-c",
                                                    "set -u; H=($VCLUSTER_HOSTS); " + script],
                           capture_output=True, text=True, timeout=120)
        out = r.stdout
        self.assertEqual(r.returncode, 0, out + r.stderr)
        rc = int(re.search(r"^RC (\d+)$", out, re.M).group(1))
        elapsed = int(re.search(r"^ELAPSED_MS (\d+)$", out, re.M).group(1)) / 1000
        err = [l[4:] for l in out.splitlines() if l.startswith("ERR ")]
        reports = [l for l in err
                   if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertNotIn("HUNG", out.splitlines(), "the job went on for 45 s: " + out)
        self.assertNotEqual(rc, 0, out)
        self.assertEqual(len(reports), 1, out)
        self.assertRegex(reports[0], r"no answer for %d s .*METAMPI_PEER_TIMEOUT"
                         % self.PEER_TIMEOUT)
        self.assertRegex(reports[0], r"host \S*h2\b")
        self.assertLess(elapsed, bound, out)
        self.assertGreater(elapsed, self.PEER_TIMEOUT / 2, out)
        for h, n in re.findall(r"^LEFT (\S+) (\d+)$", out, re.M):
            self.assertEqual(n, "0", "processes left on %s: %s" % (h, out))

    def test_idle(self):
        self.cut("idle", 0.5, self.PEER_TIMEOUT + 6)

    def test_zero_window(self):
        self.cut("zerowin", 2, self.PEER_TIMEOUT + 20)

    def test_sites(self):
        self.cut("idle", 0.5, self.PEER_TIMEOUT + 8, sites=True)


class Tcp(unittest.TestCase):
    def start(self, mode, opts=()):
        env = dict(os.environ, METAMPI_VIRTUAL_HOSTS="2")
        return subprocess.Popen([MPIRUN, *opts, "-n", "2", PROG, mode], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)

    def test_attacks(self):
        p = self.start("attack")
        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            addrs = listeners(child_pids(p.pid))
            # one listening socket per rank and local address (IPv4 and IPv6 ones)
            self.assertTrue(len(addrs) >= 2 and len(addrs) % 2 == 0,
                            "expected as many listening sockets per rank: %s" % addrs)
            for addr in addrs:
                attack_garbage(addr)
                attack_wrong_key(addr)
                attack_silent(addr)
            p.stdin.write("go\n")
            p.stdin.flush()
            out, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("DONE", out)
        drops = [l for l in err.splitlines() if "dropped a TCP connection from" in l]
        n = len(addrs)
        self.assertEqual(sum("not a metampi hello" in l for l in drops), n, err)
        self.assertEqual(sum("wrong job key" in l for l in drops), n, err)
        self.assertEqual(len(drops), 2 * n, err)  # the silent ones are not worth a line

    def test_interfaces(self):
        p = self.start("plain", ["--if", "lo"])
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        p = self.start("plain", ["--if", "nosuch0,10.255.255.0/24"])
        out, err = p.communicate(timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no network interface matches METAMPI_TCP_IF=nosuch0,10.255.255.0/24",
                      err)

    def test_port_range(self):
        """--port-range: every rank listens on a port of the range; a range too small for the
        job's listeners ends it with a message naming the range."""
        lo = 42000 + os.getpid() % 20000
        p = self.start("attack", ["--if", "127.0.0.0/8", "--port-range", "%d-%d" % (lo, lo + 9)])
        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            addrs = listeners(child_pids(p.pid))
            p.stdin.write("go\n")
            p.stdin.flush()
            out, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(len(addrs), 2, addrs)
        for ip, port in addrs:
            self.assertTrue(lo <= port <= lo + 9, addrs)
        p = self.start("plain", ["--if", "127.0.0.0/8", "--port-range",
                                 "%d-%d" % (lo + 10, lo + 10)])
        out, err = p.communicate(timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot listen for TCP connections on 127.0.0.1: Address already in use "
                      "(no free port in %d-%d, mpirun --port-range)" % (lo + 10, lo + 10), err)
        for bad in ("10-5", "0-10", "1-65536", "42000", "a-b"):
            r = subprocess.run([MPIRUN, "--port-range", bad, "-n", "1", PROG, "plain"],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 1, bad)
            self.assertIn("option --port-range requires LO-HI", r.stderr)

    def test_death(self):
        p = self.start("die")
        try:
            self.assertTrue(read_line(p, "DYING", 30), "rank 1 never got to die")
            died = time.monotonic() + 0.2
            out, err = p.communicate(timeout=30)
            took = time.monotonic() - died
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertNotEqual(p.returncode, 0)
        self.assertLess(took, 2.0, "the job took %.1f s to end" % took)
        reports = [l for l in err.splitlines()
                   if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertEqual(len(reports), 1, err)
        self.assertRegex(reports[0], r"rank 1 .*on host \S+.*(signal 9|Killed)|"
                                     r"rank 0 .*lost the connection to rank 1 \(host \S+\)")
        self.assertEqual(child_pids(p.pid), {p.pid})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--flood-prog")
    ap.add_argument("--vanish-prog")
    ap.add_argument("--vcluster")
    ap.add_argument("--wanemu")
    args, rest = ap.parse_known_args()
    MPIRUN, PROG, FLOOD_PROG = args.mpirun, args.prog, args.flood_prog
    VANISH_PROG, VCLUSTER, WANEMU = args.vanish_prog, args.vcluster, args.wanemu
    unittest.main(argv=[sys.argv[0]] + rest)
