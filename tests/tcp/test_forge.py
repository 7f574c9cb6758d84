#!/usr/bin/env python3
"""Forged protocol frames from a peer that holds the ranks' key (standard library only).

Run: test_forge.py --mpirun PATH --prog PATH/forge_victim [unittest args]

The job runs through a host helper (--host localhost:3), as on a cluster, so the ranks get
the ranks' key in their environment; rank 0 leaks it to the test before MPI_Init removes it
(the attacker is a key holder), the test derives the TCP transport's key from it, connects to rank 0's listening socket as another rank, passes the TCP handshake and
sends one crafted protocol frame (src/proto/wire.h) while rank 0 holds live operations of
every kind (forge_victim.c).
  Ids       frames that name operations by ids no live operation has (0x4141414141414141,
            which killed rank 0 with SIGBUS when ids were pointers, and an id of the table's
            form whose operation has ended): rank 0 ends the job with one line naming itself,
            the peer and what was wrong — no signal, no hang, nothing left behind.
  Source    a message claiming another source rank than its sender's: the same.
  Host      a connection that claims a rank of rank 0's own host (reached through shared
            memory, never TCP) is dropped at the handshake with one logged line, and the
            job finishes its work.
  TlsStall  two sites of this machine with --direct-wan (rank 0 at alpha, rank 2 at beta:
            TLS between them): a connection that passes the handshake as rank 2 and then
            sends no ClientHello holds rank 0's place for rank 2 while rank 0 has a message
            for it; rank 0 closes it about 10 s after its WELCOME (TCP_HELLO_TIMEOUT_MS),
            opens its own connection to the real rank 2, and the job finishes its work;
            connector_away: rank 0 connects to rank 2 and is stopped (as a rank computing
            without the progress thread) from its HELLO until rank 2 has closed the
            connection for want of a ClientHello: rank 0 opens a new one, the job finishes.
"""
import argparse
import glob
import hashlib
import hmac
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_tcp import child_pids, listeners, read_line  # noqa: E402

MPIRUN = PROG = None
CHALLENGE_LEN, WELCOME_LEN = 24, 48
F_EAGER, F_EAGER_SYNC, F_RTS, F_CTS, F_DATA, F_FIN, F_ACK, F_CANCEL, F_CANCEL_REPLY = range(1, 10)
BOGUS = 0x4141414141414141


def frame(body, head_len=None):
    """A TCP transport frame: header (length, head length, kind 0) and body."""
    hl = len(body) if head_len is None else head_len
    return struct.pack("<IBBxx", len(body), min(hl, 255), 0) + body


def ctrl(kind, sreq, result=0):
    return struct.pack("<BB6xQ", kind, result, sreq)


def rank_environ(pid):
    with open("/proc/%d/environ" % pid, "rb") as f:
        return dict(kv.split(b"=", 1) for kv in f.read().split(b"\0") if b"=" in kv)


def rank_ports(root):
    """{rank: (address, port)} of the ranks under process root."""
    found = {}
    for pid in child_pids(root):
        try:
            env = rank_environ(pid)
        except OSError:
            continue
        if b"PMI_RANK" in env:
            addrs = listeners({pid})  # the ranks listen on the chosen interfaces only
            if addrs:
                found[int(env[b"PMI_RANK"])] = addrs[0]
    return found


def hkdf_sha256(ikm, info):
    """RFC 5869 with no salt, one block (32 bytes): what net/auth.c's auth_derive gives."""
    prk = hmac.new(b"\0" * 32, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\1", hashlib.sha256).digest()


def tcp_key(key_file):
    """The TCP transport's key, derived from the ranks' key the victim leaked."""
    with open(key_file) as f:
        ranks_key = bytes.fromhex(f.read().strip())
    return hkdf_sha256(ranks_key, b"metampi v1 rank-rank tcp")


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        piece = s.recv(n - len(b))
        if not piece:
            break
        b += piece
    return b


def connect_as(addr, key, rank, size):
    """Passes the handshake as `rank`; the socket, or None when the rank dropped us."""
    s = socket.create_connection(addr, timeout=10)
    ch = recv_exact(s, CHALLENGE_LEN)
    assert ch[:8] == b"MMPItcp1", ch
    na, nc = ch[8:], os.urandom(16)
    mac = hmac.new(key, b"tcp-c" + na + nc + struct.pack("<Q", rank | size << 32),
                   hashlib.sha256).digest()
    s.sendall(b"MMPIhelo" + struct.pack("<II", rank, size) + nc + mac)
    w = recv_exact(s, WELCOME_LEN)
    if not w:
        s.close()
        return None
    assert w[:8] == b"MMPIwelc" and struct.unpack("<I", w[8:12])[0] == 0, w
    return s


def shm_leftovers(mpirun_pid):
    """This job's names in /dev/shm (metampi.kvs_<mpirun's pid>_...): other tests' jobs may
    run beside this one."""
    return set(glob.glob("/dev/shm/metampi.kvs_%d_*" % mpirun_pid))


class Forge(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="forge.")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def run_job(self, hosts, claim, frames, expect_end):
        """Starts the job, forges, lets it go on; (returncode, stdout, stderr)."""
        key_file = os.path.join(self.tmp, "key")
        env = dict(os.environ, METAMPI_VIRTUAL_HOSTS=str(hosts), FORGE_KEY_FILE=key_file)
        # through a host helper, as on a cluster: the ranks get the job key in their environment
        p = subprocess.Popen([MPIRUN, "--host", "localhost:3", "-n", "3", PROG], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            ranks = rank_ports(p.pid)
            self.assertIn(0, ranks, "rank 0 has no listening socket")
            addr, key = ranks[0], tcp_key(key_file)
            s = connect_as(addr, key, claim, 3)
            if s is not None:
                for f in frames:
                    s.sendall(f)
                if expect_end:
                    try:  # rank 0 ends the job; the connection ends with it
                        s.settimeout(20)
                        while s.recv(4096):
                            pass
                    except OSError:
                        pass
                s.close()
            if p.poll() is None:
                try:
                    p.stdin.write("go\n")
                    p.stdin.flush()
                except BrokenPipeError:
                    pass
            out, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        time.sleep(0.2)
        self.assertEqual(child_pids(p.pid) - {p.pid}, set(), "processes left behind")
        self.assertEqual(shm_leftovers(p.pid), set(), "shared memory left behind")
        return p.returncode, out, err, s is None

    def forged_ends_job(self, name, frames, why):
        rc, out, err, dropped = self.run_job(3, 2, frames, True)
        self.assertFalse(dropped, "the forged connection was refused: nothing was tested")
        self.assertNotEqual(rc, 0, "%s: the job went on\n%s" % (name, err))
        self.assertNotIn("DONE", out)
        self.assertNotRegex(err, r"signal|Segmentation|Bus error|core dumped|AddressSanitizer|"
                                 r"runtime error", name)
        reports = [l for l in err.splitlines()
                   if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertEqual(len(reports), 1, err)
        self.assertRegex(reports[0], r"rank 0 .*rank 2.*" + why, err)

    def test_ids(self):
        """Every reply kind naming an operation no live one has; DATA and CTS too."""
        cases = [
            ("DATA", frame(struct.pack("<B7xQQ", F_DATA, BOGUS, 0) + b"x" * 64, 24)),
            ("CTS", frame(struct.pack("<B7xQQQ", F_CTS, BOGUS, 1, 64))),
            ("FIN", frame(ctrl(F_FIN, BOGUS))),
            ("ACK", frame(ctrl(F_ACK, BOGUS))),
            ("CANCEL_REPLY", frame(ctrl(F_CANCEL_REPLY, BOGUS, 1))),
        ]
        # an id of the table's form (index 0, generation 1), which rank 0 has used before
        cases.append(("FIN", frame(ctrl(F_FIN, 1 << 32))))
        cases.append(("CTS", frame(struct.pack("<B7xQQQ", F_CTS, 1 << 32, 1, 8))))
        for name, f in cases:
            with self.subTest(frame=name):
                self.forged_ends_job(name, [f], name)

    def test_source(self):
        """A message whose envelope names another rank as its source, matching the receive
        rank 0 holds from rank 1 (before: the receive took it as rank 1's)."""
        eager = struct.pack("<B3xIii", F_EAGER, 0, 1, 77) + b"x"
        self.forged_ends_job("EAGER", [frame(eager, 16)],
                             r"MPI_COMM_WORLD names source rank 1 \(world rank 1\)")

    def test_same_host_claim(self):
        """A connection claiming rank 1, which shares rank 0's host, carrying an RTS for the
        receive rank 0 holds from rank 1 (before: rank 0 read rank 1's memory at the forged
        address and sent rank 1 a FIN naming a raw pointer)."""
        rts = struct.pack("<B3xIiiQQQ", F_RTS, 0, 1, 77, 1 << 20, BOGUS, 0x10000)
        eager = struct.pack("<B3xIii", F_EAGER, 0, 1, 77) + b"x"
        rc, out, err, dropped = self.run_job(2, 1, [frame(rts), frame(eager, 16)], False)
        self.assertTrue(dropped, err)
        self.assertEqual(rc, 0, err)
        self.assertIn("DONE", out)
        drops = [l for l in err.splitlines() if "dropped a TCP connection from" in l]
        self.assertEqual(len(drops), 1, err)
        self.assertIn("rank 1", drops[0])


def rank_pids(root):
    """{rank: pid} of the ranks under process root."""
    found = {}
    for pid in child_pids(root):
        try:
            env = rank_environ(pid)
        except OSError:
            continue
        if b"PMI_RANK" in env:
            found[int(env[b"PMI_RANK"])] = pid
    return found


class TlsStall(unittest.TestCase):
    def start(self, tmp):
        key_file, desc = os.path.join(tmp, "key"), os.path.join(tmp, "sites.ini")
        with open(desc, "w") as f:
            f.write("[site alpha]\nhosts = localhost:2\n\n[site beta]\nhosts = %s:1\n"
                    % socket.gethostname())
        env = dict(os.environ, FORGE_KEY_FILE=key_file)
        return subprocess.Popen([MPIRUN, "--bind-to", "none", "--metacomputer", desc,
                                 "--direct-wan", "-n", "3", PROG], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env), key_file

    def test_connector_away(self):
        """Rank 0 opens the connection to rank 2 (at the other site) and is away (stopped,
        as a rank that computes without the progress thread) from its HELLO until after
        rank 2 closed the connection for want of a ClientHello: rank 0 then finds its TLS
        handshake closed and opens a new connection, and the job finishes (before: it ended
        with "cannot secure the connection to rank 2")."""
        tmp = tempfile.mkdtemp(prefix="forge.")
        self.addCleanup(shutil.rmtree, tmp, True)
        p, _ = self.start(tmp)
        stopped = []

        def stop(pid):
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)

        def cont(pid):
            os.kill(pid, signal.SIGCONT)
            stopped.remove(pid)

        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            pids = rank_pids(p.pid)
            r0, r2 = pids[0], pids[2]
            stop(r2)
            p.stdin.write("go\n")  # rank 0 connects to rank 2, which cannot answer yet
            p.stdin.flush()
            time.sleep(2)
            stop(r0)
            cont(r2)    # rank 2 accepts and sends its CHALLENGE
            time.sleep(1)
            stop(r2)
            cont(r0)    # rank 0 reads it and sends its HELLO
            time.sleep(1)
            stop(r0)
            cont(r2)    # rank 2 sends its WELCOME, waits 10 s for a ClientHello, closes
            time.sleep(13)
            cont(r0)    # rank 0 reads the WELCOME, begins TLS, finds the connection closed
            out, err = p.communicate(timeout=40)
        finally:
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("DONE", out)

    def test_no_client_hello(self):
        tmp = tempfile.mkdtemp(prefix="forge.")
        self.addCleanup(shutil.rmtree, tmp, True)
        p, key_file = self.start(tmp)
        try:
            self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
            ranks = rank_ports(p.pid)
            self.assertIn(0, ranks, "rank 0 has no listening socket")
            s = connect_as(ranks[0], tcp_key(key_file), 2, 3)
            self.assertIsNotNone(s, "the handshake as rank 2 was refused: nothing was tested")
            t0 = time.monotonic()
            p.stdin.write("go\n")  # rank 0 now sends to rank 2: it waits for this connection
            p.stdin.flush()
            s.settimeout(30)
            try:
                while s.recv(4096):
                    pass
            except OSError:
                pass
            closed_after = time.monotonic() - t0
            s.close()
            out, err = p.communicate(timeout=40)
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("DONE", out)
        # 10 s after the WELCOME, judged once a second; the test's own steps take a little
        self.assertGreater(closed_after, 8, err)
        self.assertLess(closed_after, 20, err)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN, PROG = args.mpirun, args.prog
    unittest.main(argv=[sys.argv[0]] + rest)
