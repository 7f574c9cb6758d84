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
  Death     a rank killed by SIGKILL in the middle of the job: mpirun reports it (rank,
            host, cause) and the job is gone within 2 s, nothing left behind.
"""
import argparse
import hashlib
import hmac
import os
import re
import select
import socket
import struct
import subprocess
import sys
import time
import unittest

MPIRUN = PROG = None
CHALLENGE_LEN, HELLO_LEN = 24, 64


def listeners(pids):
    """The TCP ports the given processes listen on."""
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, check=True).stdout
    ports = []
    for line in out.splitlines():
        m = re.search(r"pid=(\d+)", line)
        if m and int(m.group(1)) in pids:
            ports.append(int(line.split()[3].rsplit(":", 1)[1]))
    return ports


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


def attack_garbage(port):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.recv(CHALLENGE_LEN)
        s.sendall(b"GET / HTTP/1.0\r\n\r\n".ljust(HELLO_LEN, b"x"))
        s.settimeout(5)
        assert s.recv(100) == b""  # dropped: closed without a word


def attack_wrong_key(port):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
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


def attack_silent(port):
    socket.create_connection(("127.0.0.1", port), timeout=5).close()


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
            ports = listeners(child_pids(p.pid))
            self.assertEqual(len(ports), 2, "expected one listening socket per rank")
            for port in ports:
                attack_garbage(port)
                attack_wrong_key(port)
                attack_silent(port)
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
        self.assertEqual(sum("not a metampi hello" in l for l in drops), 2, err)
        self.assertEqual(sum("wrong job key" in l for l in drops), 2, err)
        self.assertEqual(len(drops), 4, err)  # the silent ones are not worth a line

    def test_interfaces(self):
        p = self.start("plain", ["--if", "lo"])
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 0, err)
        p = self.start("plain", ["--if", "nosuch0,10.255.255.0/24"])
        out, err = p.communicate(timeout=30)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("no network interface matches METAMPI_TCP_IF=nosuch0,10.255.255.0/24",
                      err)

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
        reports = [l for l in err.splitlines() if l.startswith("mpirun:")]
        self.assertEqual(len(reports), 1, err)
        self.assertRegex(reports[0], r"rank 1 .*on host \S+.*(signal 9|Killed)|"
                                     r"rank 0 .*lost the connection to rank 1 \(host \S+\)")
        self.assertEqual(child_pids(p.pid), {p.pid})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN, PROG = args.mpirun, args.prog
    unittest.main(argv=[sys.argv[0]] + rest)
