#!/usr/bin/env python3
"""TLS on the rendezvous protocol (rdv_wire.h, docs/wan-security.md), seen by a man in the
middle: one part reaches the real metampi-rendezvous through a relay of this test, which
forwards both directions and records what passes (standard library only).

  test_capture  the job's start through the relay: the recorded bytes hold the handshake's
                clear magics (so the capture sees the connection) but not the job ID, site
                or host names the JOIN and LAYOUT carry;
  test_flip     one byte of the part's JOIN record is flipped in flight: the server detects
                it and drops the connection (one line naming the integrity check), the part
                ends with status 1 and one line saying so, nothing is started; the site then
                joins directly and the job starts.

Run: test_rdv_tls.py --bin BUILD/bin --tests-bin BUILD/tests/bin [unittest args]
"""
import os
import socket
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_federated as fed  # noqa: E402

HELLO_LEN = 56      # the part's HELLO (rdv_wire.h), the last clear bytes it sends
JOB = "canary-job-5b1e"


class Relay:
    """Listens on 127.0.0.1; relays each connection to target. flip: the part's second
    application-data record (its first is TLS's Finished; the second carries the JOIN) gets
    one byte flipped."""

    def __init__(self, target, flip=False):
        self.target, self.flip = target, flip
        self.captured = bytearray()
        self.flipped = False
        self.lock = threading.Lock()
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(8)
        self.addr = "127.0.0.1:%d" % self.ls.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                c, _ = self.ls.accept()
            except OSError:
                return
            s = socket.create_connection(self.target)
            threading.Thread(target=self.pump, args=(s, c, False), daemon=True).start()
            threading.Thread(target=self.pump, args=(c, s, True), daemon=True).start()

    def pump(self, src, dst, from_part):
        clear, pending, records = HELLO_LEN, b"", 0
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                with self.lock:
                    self.captured += data
                if not from_part or not self.flip:
                    dst.sendall(data)
                    continue
                take = min(clear, len(data))
                dst.sendall(data[:take])
                clear -= take
                pending += data[take:]
                while len(pending) >= 5:
                    n = 5 + int.from_bytes(pending[3:5], "big")
                    if len(pending) < n:
                        break
                    rec, pending = bytearray(pending[:n]), pending[n:]
                    records += rec[0] == 23
                    if rec[0] == 23 and records == 2:
                        rec[5 + (n - 5) // 2] ^= 0x20
                        self.flipped = True
                    dst.sendall(bytes(rec))
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.ls.close()


class Secure(fed.FederatedTest):
    def relay(self, flip=False):
        host, port = self.addr.rsplit(":", 1)
        r = Relay((host, int(port)), flip)
        self.addCleanup(r.close)
        return r

    def test_capture(self):
        s = self.server(job=JOB)
        relay = self.relay()
        server_addr, self.addr = self.addr, relay.addr
        alpha = self.part("alpha", job=JOB)
        self.addr = server_addr
        parts = [alpha, self.part("beta", job=JOB), self.part("gamma", job=JOB)]
        for p in parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        cap = bytes(relay.captured)
        self.assertIn(b"MMPIrdvh", cap, "the relay saw the connection")
        self.assertGreater(len(cap), 500)
        for known in (JOB.encode(), b"alpha", b"gamma", b"127.0.0.1:%d" % self.ports[1]):
            self.assertNotIn(known, cap, "plaintext on the rendezvous connection")

    def test_flip(self):
        s = self.server()
        relay = self.relay(flip=True)
        server_addr, self.addr = self.addr, relay.addr
        alpha = self.part("alpha")
        self.assertEqual(alpha.wait(), 1, alpha.text)
        self.addr = server_addr
        self.assertTrue(relay.flipped, alpha.text)
        self.assertNotIn("probe", alpha.text)
        lines = [l for l in alpha.text.splitlines() if l.startswith("mpirun:")]
        self.assertEqual(len(lines), 1, alpha.text)
        self.assertIn("mpirun: site alpha of job job1: lost the connection to the rendezvous "
                      "server at %s" % relay.addr, lines[0])
        self.assertIn("integrity check failed", lines[0])
        parts = [self.part("alpha", name="part-alpha2"), self.part("beta"),
                 self.part("gamma")]
        for p in parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        self.assertIn("integrity check failed", s.text)


if __name__ == "__main__":
    fed.main()
