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

MPIRUN = PROG = None
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
            try:
                s = socket.create_connection(self.target)
            except OSError:  # beta's gateway does not listen yet: alpha's tries again
                c.close()
                continue
            threading.Thread(target=self.pump, args=(s, c, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(c, s, True), daemon=True).start()

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


def main():
    global MPIRUN, PROG
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN, PROG = args.mpirun, args.prog
    r = unittest.main(argv=[sys.argv[0]] + rest, exit=False).result
    if r.skipped and not r.failures and not r.errors and r.testsRun == len(r.skipped):
        sys.exit(77)
    sys.exit(0 if r.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
