#!/usr/bin/env python3
"""TLS on the gateways' WAN streams (net/secure.h, docs/wan-security.md), attacked by a man in
the middle (standard library only).

Run: test_wan_security.py --mpirun PATH --prog PATH/gw_secret [unittest args]

Two sites on this machine, as in test_gateway.py's Local; site alpha's gateway opens its link
to beta's through a relay of this test (METAMPI_GW_LINK_VIA), which forwards both directions
and, from alpha to beta, cuts the bytes after the handshake's HELLO into TLS records:
  capture     the bytes on the WAN carry no trace of the program's known plaintext; with
              [wan] encrypt = off they do (the capture sees what an eavesdropper would);
  flip        one byte of a record is flipped in flight;
  replay      a record is sent twice;
  inject      a record the relay made up is inserted;
each of the last three is detected, the gateways open the link again (the relay attacks
only once) and send again what was not acknowledged: the job ends normally, no altered
message reaches the program (it checks every byte), and the gateways' notes say what broke;
  flip_outage0  with [wan] outage = 0 a flipped byte ends the job with one line naming both
              sites and "integrity" instead;
  capture_ipv6, flip_ipv6  the same over IPv6 (the gateways and the relay on ::1, the sites'
              wan [::1]:PORT).
DirectWan (root: a packet socket on the loopback interface): with --direct-wan the ranks at
the two sites connect to each other; their TCP connections carry no trace of the known
plaintext, and do with [wan] encrypt = off.
WanEmu (root: an emulated metacomputer, vcluster.sh --sites 2 with the WAN emulator, one rank
per site, the real gateways on the WAN link through wanemu):
  capture     a packet socket in the router's namespace (every interface: both sites' and the
              emulator's) records the job's WAN traffic: no trace of the known plaintext; with
              [wan] encrypt = off it is there;
  flip        once the job runs, wanemu (--flip-port 7000, SIGUSR1) flips one bit of the next
              TCP segment of the gateways' link and mends its TCP checksum, as an on-path
              attacker would: a gateway reports the failed integrity check, the link is opened
              again, the job ends normally and the program saw no altered byte.
"""
import argparse
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import unittest

MPIRUN = PROG = VCLUSTER = WANEMU = None
HELLO_LEN = 68          # the gateway's HELLO (handshake.h), before TLS starts
MARKER = b"metampi-known-plaintext:"
TAMPER_AFTER = 40       # application records forwarded before the attack


def free_port(host="127.0.0.1"):
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    s.bind((host, 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Relay:
    """Listens on a free port, relays each connection to target; mode as in the docstring."""

    def __init__(self, target, mode):
        self.target, self.mode = target, mode
        self.captured = bytearray()
        self.attacked = False
        self.lock = threading.Lock()
        self.ls = socket.socket(socket.AF_INET6 if ":" in target[0] else socket.AF_INET)
        self.ls.bind((target[0], 0))
        self.ls.listen(16)
        self.port = self.ls.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            if self.hold_back(c):
                continue
            try:
                s = socket.create_connection(self.target)
            except OSError:  # beta's gateway does not listen yet: alpha's tries again
                c.close()
                continue
            threading.Thread(target=self.pump, args=(s, c, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(c, s, True), daemon=True).start()

    def hold_back(self, c):
        """Whether to keep connection c without relaying it (never here; a subclass may)."""
        return False

    def record(self, data):
        with self.lock:
            self.captured += data

    def pump(self, src, dst, forward):
        """forward: alpha -> beta, where records are attacked."""
        pending, hello, records = b"", HELLO_LEN, 0
        reset = None  # the socket a reset is passed on to, as a router would
        try:
            while True:
                try:
                    data = src.recv(65536)
                except ConnectionResetError:  # src reset: so is dst
                    reset = dst
                    break
                if not data:
                    break
                self.record(data)
                if not forward or self.mode == "capture":
                    dst.sendall(data)
                    continue
                if hello:
                    take = min(hello, len(data))
                    dst.sendall(data[:take])
                    hello -= take
                    data = data[take:]
                pending += data
                while len(pending) >= 5:
                    n = 5 + int.from_bytes(pending[3:5], "big")
                    if len(pending) < n:
                        break
                    rec, pending = bytearray(pending[:n]), pending[n:]
                    if rec[0] == 23:
                        records += 1
                    attack = records == TAMPER_AFTER and rec[0] == 23 and not self.attacked
                    if attack:
                        self.attacked = True
                    if attack and self.mode == "flip":
                        rec[5 + (n - 5) // 2] ^= 0x20
                    if attack and self.mode == "inject":
                        dst.sendall(bytes([23, 3, 3, 0, 64]) + os.urandom(64))
                    dst.sendall(bytes(rec))
                    if attack and self.mode == "replay":
                        dst.sendall(bytes(rec))
        except OSError:  # dst went away abnormally (sending failed): so does src
            reset = src
        if reset is not None:
            try:
                reset.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                reset.close()
            except OSError:  # the pump of the other direction closed it first
                pass
            return
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.ls.close()


def ipv6_loopback_or_skip():
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError as e:
        raise unittest.SkipTest("no IPv6 loopback here: %s" % e)


class Mitm(unittest.TestCase):
    def run_job(self, mode, encrypt="on", seconds=3, outage=None, host="127.0.0.1"):
        ports = [free_port(host), free_port(host)]
        relay = Relay((host, ports[1]), mode)
        self.addCleanup(relay.close)
        fd, desc = tempfile.mkstemp(suffix=".ini")
        self.addCleanup(os.unlink, desc)
        wan = "[%s]" % host if ":" in host else host
        with os.fdopen(fd, "w") as f:
            f.write("[wan]\nencrypt = %s\n%s[site alpha]\nhosts = localhost:2\n"
                    "wan = %s:%d\n\n[site beta]\nhosts = %s:2\nwan = %s:%d\n"
                    % (encrypt, "" if outage is None else "outage = %d\n" % outage, wan,
                       ports[0], socket.gethostname(), wan, ports[1]))
        env = dict(os.environ, METAMPI_GW_LINK_VIA="%s:%d" % (wan, relay.port))
        r = subprocess.run([MPIRUN, "--bind-to", "none", "--metacomputer", desc, "-n", "4",
                            PROG, str(seconds)], capture_output=True, text=True, timeout=60,
                           env=env)
        return r, relay

    def test_capture(self):
        r, relay = self.run_job("capture")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        self.assertGreater(len(relay.captured), 100000)
        self.assertNotIn(MARKER, relay.captured)
        r, relay = self.run_job("capture", encrypt="off", seconds=1)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn(MARKER, relay.captured)

    def test_capture_ipv6(self):
        ipv6_loopback_or_skip()
        r, relay = self.run_job("capture", host="::1")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        self.assertGreater(len(relay.captured), 100000)
        self.assertNotIn(MARKER, relay.captured)

    def test_flip_ipv6(self):
        ipv6_loopback_or_skip()
        self.assert_recovered("flip", host="::1")

    def assert_recovered(self, mode, host="127.0.0.1"):
        r, relay = self.run_job(mode, seconds=4, host=host)
        a = re.escape("[%s]" % host if ":" in host else host)
        self.assertTrue(relay.attacked, "the relay never attacked: " + r.stdout + r.stderr)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        self.assertNotIn("wrong byte", r.stdout + r.stderr)
        self.assertEqual([l for l in r.stderr.splitlines() if l.startswith("mpirun:")], [],
                         r.stderr)
        # beta finds the fault; alpha may see it first, from beta's alert
        self.assertRegex(r.stderr, r"metampi-gateway \(site (alpha|beta)\): the WAN link to "
                         r"site (alpha|beta) \(" + a + r":\d+\) broke \(stream 0: "
                         r"integrity check failed")
        self.assertRegex(r.stderr, r"the WAN link to site (alpha|beta) \(" + a + r":\d+\) "
                         r"is up again after [0-9.]+ s")

    def test_flip_outage0(self):
        r, relay = self.run_job("flip", seconds=20, outage=0)
        self.assertTrue(relay.attacked, "the relay never attacked: " + r.stdout + r.stderr)
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("wrong byte", r.stdout + r.stderr)
        self.assertNotIn("secret ok", r.stdout)
        lines = [l for l in r.stderr.splitlines()
                 if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertEqual(len(lines), 1, r.stderr)
        # beta finds the fault; alpha may report first, from beta's alert
        self.assertRegex(lines[0], r"gateway of site (beta: the WAN link to site alpha|alpha: "
                         r"the WAN link to site beta) \(127\.0\.0\.1:\d+\) failed: stream 0: "
                         r"integrity check failed")

    def test_flip(self):
        self.assert_recovered("flip")

    def test_replay(self):
        self.assert_recovered("replay")

    def test_inject(self):
        self.assert_recovered("inject")


class Capture:
    """Every frame on the loopback interface while it runs (AF_PACKET; root)."""

    def __init__(self):
        self.s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
        self.s.bind(("lo", 0))
        self.s.settimeout(0.2)
        self.data, self.stop = bytearray(), False
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        while not self.stop:
            try:
                self.data += self.s.recv(65536)
            except socket.timeout:
                pass

    def close(self):
        self.stop = True
        self.t.join()
        self.s.close()
        return self.data


class DirectWan(unittest.TestCase):
    def run_job(self, encrypt, marker):
        fd, desc = tempfile.mkstemp(suffix=".ini")
        self.addCleanup(os.unlink, desc)
        with os.fdopen(fd, "w") as f:
            f.write("[wan]\nencrypt = %s\n[site alpha]\nhosts = localhost:2\n\n"
                    "[site beta]\nhosts = %s:2\n" % (encrypt, socket.gethostname()))
        try:
            cap = Capture()
        except PermissionError:
            raise unittest.SkipTest("a packet socket needs root")
        r = subprocess.run([MPIRUN, "--bind-to", "none", "--metacomputer", desc, "--direct-wan",
                            "-n", "4", PROG, "1", marker.decode()], capture_output=True,
                           text=True, timeout=60)
        data = cap.close()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        return data

    def test_capture(self):
        # the loopback capture sees every test's traffic: a marker of this run's own
        marker = b"metampi-plaintext-%s:" % os.urandom(8).hex().encode()
        self.assertNotIn(marker, self.run_job("on", marker))
        self.assertIn(marker, self.run_job("off", marker))


# Runs inside vcluster.sh --sites 2 --hosts-per-site 1: gw_secret on one rank per site
# through the gateways; with CAPFILE, a packet socket in the router's namespace records every
# frame meanwhile; with FLIP, wanemu is told to flip a byte once the program runs.
WANEMU_JOB = r"""
set -u
desc=$(mktemp); out=$(mktemp); err=$(mktemp)
{ printf '[wan]\nencrypt = %s\n' "$ENCRYPT"
  "$RUN_ON_SITES" --describe 2x1x1 "$VCLUSTER_PREFIX"; } > "$desc"
if [ -n "$CAPFILE" ]; then
  ip netns exec "$VCLUSTER_WAN_NS" python3 -c "$CAPTURE" "$CAPFILE" & cap=$!
  for i in $(seq 200); do [ -e "$CAPFILE.ready" ] && break; sleep 0.05; done
  [ -e "$CAPFILE.ready" ] || { echo "the capture never started"; exit 1; }
fi
"$MPIRUN" --bind-to none --metacomputer "$desc" --launch-agent "$VCLUSTER_AGENT" -n 2 \
    "$PROG" "$SECONDS_" "$MARKER" > "$out" 2> "$err" &
job=$!
if [ -n "$FLIP" ]; then
  for i in $(seq 600); do grep -q "secret running" "$out" && break; sleep 0.05; done
  kill -USR1 $(ip netns pids "$VCLUSTER_WAN_NS")
fi
wait $job; echo "rc=$?"
[ -z "$CAPFILE" ] || { kill -TERM $cap; wait $cap; }
kill -TERM $(ip netns pids "$VCLUSTER_WAN_NS")  # its counters
for i in $(seq 100); do grep -q "failed writes" "$VCLUSTER_WANEMU_LOG" && break; sleep 0.05; done
cat "$out" "$err" "$VCLUSTER_WANEMU_LOG"
rm -f "$desc" "$out" "$err"
"""

# The capture in the router's namespace: every frame of every interface (both directions)
# into argv[1] until SIGTERM; argv[1].ready once the socket is open.
CAPTURE = r"""
import signal, socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.settimeout(0.2)
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
open(sys.argv[1] + ".ready", "w").close()
with open(sys.argv[1], "wb") as f:
    while not stop:
        try:
            f.write(s.recv(1 << 18))
        except (socket.timeout, InterruptedError):
            pass
"""


class WanEmu(unittest.TestCase):
    def run_job(self, encrypt="on", capture=False, flip=False, seconds=2):
        if not VCLUSTER or not WANEMU:
            raise unittest.SkipTest("no --vcluster and --wanemu")
        check = subprocess.run([VCLUSTER, "--check", "--sites", "2", "--wanemu", WANEMU],
                               capture_output=True, text=True)
        if check.returncode == 77:
            raise unittest.SkipTest(check.stderr.strip())
        capfile = ""
        if capture:
            d = tempfile.mkdtemp()
            capfile = os.path.join(d, "wan.cap")
            self.addCleanup(subprocess.run, ["rm", "-rf", d])
        marker = "metampi-plaintext-%s:" % os.urandom(8).hex()
        env = dict(os.environ, MPIRUN=MPIRUN, PROG=PROG, ENCRYPT=encrypt, CAPFILE=capfile,
                   FLIP="1" if flip else "", MARKER=marker, SECONDS_=str(seconds),
                   CAPTURE=CAPTURE,
                   RUN_ON_SITES=os.path.join(os.path.dirname(VCLUSTER), "run_on_sites.sh"))
        r = subprocess.run([VCLUSTER, "--sites", "2", "--hosts-per-site", "1", "--wanemu",
                            WANEMU, "--wanemu-arg", "--flip-port", "--wanemu-arg", "7000",
                            "--", "bash", "-c", WANEMU_JOB], capture_output=True, text=True,
                           timeout=80, env=env)
        out = r.stdout + r.stderr
        self.assertEqual(r.returncode, 0, out)
        self.assertIn("rc=0", out)
        self.assertIn("secret ok", out)
        self.assertNotIn("wrong byte", out)
        data = b""
        if capture:
            with open(capfile, "rb") as f:
                data = f.read()
        return out, data, marker.encode()

    def test_capture(self):
        out, data, marker = self.run_job(capture=True)
        self.assertGreater(len(data), 100000, out)
        self.assertRegex(out, r"wanemu: site 1 -> 2: \d+ in")  # the job crossed the emulator
        self.assertNotIn(marker, data)
        out, data, marker = self.run_job(encrypt="off", capture=True, seconds=1)
        self.assertIn(marker, data)

    def test_flip(self):
        out, _, _ = self.run_job(flip=True, seconds=4)
        self.assertRegex(out, r"wanemu: flipped bit 0x20 of byte \d+ of the \d+-byte TCP "
                         r"payload from 10\.0\.[12]\.1 port \d+ to 10\.0\.[12]\.1 port \d+ ")
        self.assertIn(" 1 flipped", out)
        self.assertEqual([l for l in out.splitlines() if l.startswith("mpirun:")], [], out)
        self.assertRegex(out, r"metampi-gateway \(site s[12]\): the WAN link to site s[12] "
                         r"\(10\.0\.[12]\.1:7000\) broke \(stream 0: integrity check failed")
        self.assertRegex(out, r"the WAN link to site s[12] \(10\.0\.[12]\.1:7000\) is up "
                         r"again after [0-9.]+ s")


def main():
    global MPIRUN, PROG, VCLUSTER, WANEMU
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--vcluster")
    ap.add_argument("--wanemu")
    args, rest = ap.parse_known_args()
    MPIRUN, PROG, VCLUSTER, WANEMU = args.mpirun, args.prog, args.vcluster, args.wanemu
    r = unittest.main(argv=[sys.argv[0]] + rest, exit=False).result
    if r.skipped and not r.failures and not r.errors and r.testsRun == len(r.skipped):
        sys.exit(77)
    sys.exit(0 if r.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
