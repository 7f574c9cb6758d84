"""Helpers of the emulated-cluster tests (test_vcluster.py, test_wan.py): running
vcluster.sh, and the check that a cluster left nothing behind.

Every cluster of a test gets its own prefix, and every test that makes one ends by checking
that nothing of it is left: no namespace, no /etc/netns/<host>, no state directory under
/run/vcluster.
"""
import argparse
import os
import subprocess
import sys
import time
import unittest

VCLUSTER = None
WANEMU = None
HERE = os.path.dirname(os.path.abspath(__file__))
NETTOOL = os.path.join(HERE, "nettool.py")
RUN_DIR = os.environ.get("VCLUSTER_RUN_DIR", "/run/vcluster")
GUARD_TEARDOWN_S = 5.0    # from a SIGKILL of vcluster.sh to the guardian's finished teardown
_serial = 0


def new_prefix():
    """Unique per test run and per cluster, at most 11 characters."""
    global _serial
    _serial += 1
    return "t%d%s-" % (os.getpid() % 100000, chr(ord("a") + _serial % 26))


def leftovers(prefix):
    found = []
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found += [l.split()[0] for l in netns.splitlines() if l.startswith(prefix)]
    if os.path.isdir("/etc/netns"):
        found += ["/etc/netns/" + d for d in os.listdir("/etc/netns") if d.startswith(prefix)]
    if os.path.isdir(RUN_DIR):
        found += [RUN_DIR + "/" + d for d in os.listdir(RUN_DIR)
                  if d == prefix or d.startswith(".gone." + prefix + ".")]
    return found


def pid_alive(pid):
    """Running (a zombie has finished: its namespace is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def vcluster(args, script, prefix, timeout=60, **kw):
    """Runs `vcluster.sh --prefix PREFIX ARGS -- bash -c SCRIPT`; H is the array of hosts."""
    cmd = [VCLUSTER, "--prefix", prefix] + args + [
        "--", "bash", "-c", 'set -euo pipefail; H=($VCLUSTER_HOSTS); T=%s; %s' % (NETTOOL, script)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def start_vcluster(test, args, script, prefix):
    """Starts a cluster in the background; it is stopped at the end of TEST in any case."""
    cmd = [VCLUSTER, "--prefix", prefix] + args + [
        "--", "bash", "-c", 'H=($VCLUSTER_HOSTS); T=%s; %s' % (NETTOOL, script)]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    test.addCleanup(stop, p)
    return p


def stop(p):
    if p.poll() is None:
        p.terminate()
    p.communicate(timeout=30)


def wait_for(cond, timeout, what):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.1f s waiting for %s" % (timeout, what))
        time.sleep(0.02)


class ClusterTest(unittest.TestCase):
    def prefix(self):
        """A new cluster prefix, checked for leftovers when the test ends (after the clusters
        started in the background are stopped: cleanups run last-registered first)."""
        p = new_prefix()
        self.addCleanup(lambda: self.assertEqual(leftovers(p), [], "cluster %s left things behind" % p))
        self.last_prefix = p
        return p

    def run_ok(self, args, script, prefix=None, **kw):
        r = vcluster(args, script, prefix or self.prefix(), **kw)
        self.assertEqual(r.returncode, 0, "vcluster failed:\n%s%s" % (r.stdout, r.stderr))
        return r.stdout


def main():
    """Parses --vcluster PATH [--wanemu PATH], then runs the tests of __main__; exits 77
    (ctest's SKIP_RETURN_CODE) when `vcluster.sh --check` says no cluster can be made here."""
    global VCLUSTER, WANEMU
    ap = argparse.ArgumentParser()
    ap.add_argument("--vcluster", required=True)
    ap.add_argument("--wanemu")
    args, rest = ap.parse_known_args()
    VCLUSTER = os.path.abspath(args.vcluster)
    WANEMU = args.wanemu and os.path.abspath(args.wanemu)
    check = [VCLUSTER, "--check"] + (["--sites", "2", "--wanemu", WANEMU] if WANEMU else [])
    r = subprocess.run(check, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        print(r.stderr.strip() or "vcluster.sh --check failed", file=sys.stderr)
        sys.exit(77 if r.returncode == 77 else 1)
    unittest.main(module="__main__", argv=[sys.argv[0]] + rest)
