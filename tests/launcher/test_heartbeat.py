#!/usr/bin/env python3
"""Heartbeats between mpirun and its per-host helpers (standard library only, no root).

Run: test_heartbeat.py --mpirun PATH --wait-prog PATH/tcp_vanish --compute-prog PATH/tcp_compute
     --agent PATH/same_machine_agent.sh [unittest args]

Two "hosts" of this machine (helpers started by same_machine_agent.sh, so mpirun talks to
them over the control channel as to remote hosts), one rank each, METAMPI_PEER_TIMEOUT=4:
mpirun and the helpers give up on each other after 2 s of silence.
  host_stopped    the second host's helper and rank are stopped (SIGSTOP: as a host whose
                  power went, for everyone but the kernel): mpirun ends the job within the
                  timeout and its teardown, with one line naming the host and its rank, and
                  nothing is left (the stopped processes are killed);
  mpirun_stopped  mpirun is stopped: each helper ends its part of the job (its rank) within
                  the timeout and a second, and mpirun, continued, ends with a failure;
  job_suspended   the whole job (mpirun, helpers, ranks) is stopped for twice the timeout and
                  continued, as a batch system suspends a job: nobody takes the others' silence
                  for a failure, and the job finishes;
  bad_value       METAMPI_PEER_TIMEOUT that is no number of seconds: one line, status 1,
                  nothing started.
"""
import argparse
import os
import re
import select
import signal
import subprocess
import sys
import time
import unittest

MPIRUN = WAIT_PROG = COMPUTE_PROG = AGENT = None
PEER_TIMEOUT = 4


def descendants(root):
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            with open("/proc/%d/task/%d/children" % (p, p)) as f:
                todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return found


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


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


class Heartbeat(unittest.TestCase):
    def start(self, prog, args):
        env = dict(os.environ, METAMPI_PEER_TIMEOUT=str(PEER_TIMEOUT))
        p = subprocess.Popen([MPIRUN, "--bind-to", "none", "--host", "hbA:1,hbB:1",
                              "--launch-agent", AGENT + " {host}", "-n", "2", prog, *args],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
        self.addCleanup(self.kill_all, p)
        return p

    def kill_all(self, p):
        for pid in reversed(descendants(p.pid)):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        p.communicate()

    def helper_of(self, p, host):
        """The helper of host and everything under it (its rank)."""
        for pid in descendants(p.pid):
            argv = cmdline(pid)
            if any(a.endswith(b"metampi-hostd") for a in argv) and host.encode() in argv:
                return descendants(pid)
        self.fail("no helper for %s" % host)

    def test_host_stopped(self):
        p = self.start(WAIT_PROG, ["idle"])
        self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
        stopped = self.helper_of(p, "hbB")
        t0 = time.monotonic()
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        out, err = p.communicate(timeout=30)
        took = time.monotonic() - t0
        self.assertEqual(p.returncode, 1, err)
        reports = [l for l in err.splitlines()
                   if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertEqual(reports, [
            "mpirun: host hbB: no word from its helper for %d s (the host is down or "
            "unreachable, or the helper was stopped; METAMPI_PEER_TIMEOUT); rank 1 lost"
            % (PEER_TIMEOUT // 2)], err)
        self.assertLess(took, PEER_TIMEOUT / 2 + 5)
        time.sleep(0.5)
        self.assertEqual([x for x in stopped if alive(x)], [])

    def test_mpirun_stopped(self):
        p = self.start(WAIT_PROG, ["idle"])
        self.assertTrue(read_line(p, "READY", 30), "the job never got ready")
        helpers = self.helper_of(p, "hbA") + self.helper_of(p, "hbB")
        os.kill(p.pid, signal.SIGSTOP)
        try:
            deadline = time.monotonic() + PEER_TIMEOUT / 2 + 4
            while time.monotonic() < deadline and any(alive(x) for x in helpers):
                time.sleep(0.1)
            left = [x for x in helpers if alive(x)]
        finally:
            os.kill(p.pid, signal.SIGCONT)
        self.assertEqual(left, [], "the helpers and ranks went on without mpirun")
        out, err = p.communicate(timeout=20)
        self.assertNotEqual(p.returncode, 0, err)
        said = [l for l in err.splitlines()
                if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertLessEqual(len(said), 1, err)
        self.assertIn("no word from mpirun for %d s" % (PEER_TIMEOUT // 2), err)
        self.assertEqual(descendants(p.pid), [p.pid])

    def test_bad_value(self):
        env = dict(os.environ, METAMPI_PEER_TIMEOUT="soon")
        r = subprocess.run([MPIRUN, "--host", "hbA:1,hbB:1", "--launch-agent", AGENT + " {host}",
                            "-n", "2", "true"], capture_output=True, text=True, timeout=30,
                           env=env)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stderr.splitlines(), [
            "mpirun: METAMPI_PEER_TIMEOUT=soon is not a number of seconds from 0 (off) to "
            "86400"])

    def test_job_suspended(self):
        p = self.start(COMPUTE_PROG, ["3"])
        time.sleep(1.0)
        everyone = descendants(p.pid)
        for pid in everyone:
            os.kill(pid, signal.SIGSTOP)
        time.sleep(PEER_TIMEOUT)  # twice the heartbeat timeout
        for pid in reversed(everyone):
            os.kill(pid, signal.SIGCONT)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("compute phases: ok", out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--wait-prog", required=True)
    ap.add_argument("--compute-prog", required=True)
    ap.add_argument("--agent", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN, WAIT_PROG, COMPUTE_PROG, AGENT = (args.mpirun, args.wait_prog, args.compute_prog,
                                              args.agent)
    unittest.main(argv=[sys.argv[0]] + rest)
