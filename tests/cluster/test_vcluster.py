#!/usr/bin/env python3
"""Tests of vcluster.sh, the emulated cluster (standard library only).

Run: test_vcluster.py --vcluster PATH [unittest args, e.g. -v Teardown]
Exits 77 (ctest's SKIP_RETURN_CODE) when `vcluster.sh --check` says no cluster can be made
here. Every test checks that its clusters left nothing behind (clustertest.py); the ones
here also check that a process started inside a host is gone.
"""
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

import clustertest as ct
from clustertest import (GUARD_TEARDOWN_S, ClusterTest, leftovers, pid_alive, start_vcluster,
                         stop, vcluster, wait_for)


class Basics(ClusterTest):
    def test_check(self):
        r = subprocess.run([ct.VCLUSTER, "--check"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_environment(self):
        p = self.prefix()
        out = self.run_ok(["--hosts", "3"],
                          'echo "$VCLUSTER_HOSTS|$VCLUSTER_ADDRS|$VCLUSTER_AGENT"', prefix=p)
        self.assertEqual(out, "%sh1 %sh2 %sh3|10.0.0.1 10.0.0.2 10.0.0.3|ip netns exec {host}\n"
                         % (p, p, p))

    def test_exit_status(self):
        for script, status in [("true", 0), ("exit 3", 3), ("no-such-command-xyz", 127),
                               ("kill -TERM $$", 128 + signal.SIGTERM)]:
            r = vcluster([], script, self.prefix())
            self.assertEqual(r.returncode, status, script + ": " + r.stderr)

    def test_in_host(self):
        p = self.prefix()
        out = self.run_ok(["--hosts", "2", "--in", "h2"], "ip netns identify", prefix=p)
        self.assertEqual(out.strip(), p + "h2")
        out = self.run_ok(["--hosts", "2", "--in", p + "h1"], "ip netns identify", prefix=p)
        self.assertEqual(out.strip(), p + "h1")

    def test_stdin_reaches_cmd(self):
        r = vcluster([], "cat", self.prefix(), input="through\n")
        self.assertEqual((r.returncode, r.stdout), (0, "through\n"), r.stderr)

    def test_names_resolve_everywhere(self):
        p = self.prefix()
        out = self.run_ok(["--hosts", "3"], """
            for h in "${H[@]}"; do
              for t in "${H[@]}" localhost; do
                ip netns exec "$h" getent ahostsv4 "$t" | head -1
              done
            done""", prefix=p)
        addrs = [l.split()[0] for l in out.splitlines()]
        self.assertEqual(addrs, ["10.0.0.1", "10.0.0.2", "10.0.0.3", "127.0.0.1"] * 3)

    def test_ping_by_name_and_address(self):
        self.run_ok(["--hosts", "3"], """
            for h in "${H[@]}"; do
              for t in "${H[@]}" 10.0.0.1 10.0.0.2 10.0.0.3; do
                ip netns exec "$h" ping -q -c 1 -W 2 "$t" >/dev/null || { echo "$h cannot ping $t"; exit 1; }
              done
            done""")

    def test_root_namespace_untouched(self):
        before = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        during = self.run_ok(["--hosts", "2"], "ip -o link")
        self.assertEqual([l.split(":")[1] for l in before.splitlines()],
                         [l.split(":")[1] for l in during.splitlines()])

    def test_usage_errors(self):
        for args in (["--hosts", "0"], ["--hosts", "x"], ["--prefix", "a.b"], ["--rate", "fast"],
                     ["--bogus", "1"], ["--hosts", "2", "--sites", "2"]):
            r = subprocess.run([ct.VCLUSTER] + args + ["--", "true"], capture_output=True,
                               text=True, timeout=30)
            self.assertEqual(r.returncode, 2, "%s: %s" % (args, r.stderr))
            self.assertRegex(r.stderr, "^vcluster: ")
        r = subprocess.run([ct.VCLUSTER, "--hosts", "2"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no command", r.stderr)

    def test_too_long_names(self):
        r = vcluster(["--sites", "10", "--hosts-per-site", "10", "--wanemu", "/bin/true"],
                     "true", "abcdefghijk")
        self.assertEqual(r.returncode, 1)
        self.assertIn("longer than 15", r.stderr)
        self.assertEqual(leftovers("abcdefghijk"), [])

    def test_mtu(self):
        out = self.run_ok(["--hosts", "2", "--mtu", "9000"], """
            ip -n ${H[0]} -o link show eth0 | grep -o 'mtu [0-9]*'
            ip netns exec ${H[0]} ping -q -c 1 -W 2 -M do -s 8972 ${H[1]} >/dev/null && echo jumbo""")
        self.assertEqual(out, "mtu 9000\njumbo\n")


class Tcp(ClusterTest):
    def test_tcp_between_hosts(self):
        out = self.run_ok(["--hosts", "3"], """
            ip netns exec ${H[2]} python3 $T serve 7000 third & srv=$!
            for h in ${H[0]} ${H[1]}; do ip netns exec $h python3 $T echo ${H[2]} 7000 "from $h"; done
            ip netns exec ${H[0]} python3 $T echo 10.0.0.3 7000 by-address
            kill $srv""")
        p = self.last_prefix
        self.assertEqual(out, "third from %sh1\nthird from %sh2\nthird by-address\n" % (p, p))

    def test_parallel_clusters_do_not_meet(self):
        # the same addresses and ports in both: each client must reach its own server
        script = """
            ip netns exec ${H[1]} python3 $T serve 7001 "$TOKEN" & srv=$!
            sleep 0.3
            for i in 1 2 3 4 5; do ip netns exec ${H[0]} python3 $T echo 10.0.0.2 7001 x; sleep 0.1; done
            kill $srv"""
        procs = [start_vcluster(self, [], script.replace("$TOKEN", tok), self.prefix())
                 for tok in ("red", "blue")]
        outs = [p.communicate(timeout=60) for p in procs]
        for (out, err), proc, tok in zip(outs, procs, ("red", "blue")):
            self.assertEqual(proc.returncode, 0, err)
            self.assertEqual(out, ("%s x\n" % tok) * 5)


class Ipv6(ClusterTest):
    """--ipv6: hosts whose only address is IPv6 (only), or both families (dual)."""

    def test_only(self):
        p = self.prefix()
        out = self.run_ok(["--hosts", "2", "--ipv6", "only"], """
            echo "$VCLUSTER_ADDRS|$VCLUSTER_ADDRS6"
            ip -n ${H[0]} -o addr show dev eth0 | awk '{print $3, $4}'
            ip netns exec ${H[0]} getent ahosts ${H[1]} | head -1 | awk '{print $1}'
            ip netns exec ${H[0]} ping -q -c 1 -W 2 ${H[1]} >/dev/null && echo ping
            ip netns exec ${H[1]} python3 $T serve 7000 six & srv=$!
            ip netns exec ${H[0]} python3 $T echo ${H[1]} 7000 tcp
            kill $srv""", prefix=p)
        self.assertEqual(out, "fd00::1 fd00::2|fd00::1 fd00::2\ninet6 fd00::1/64\nfd00::2\n"
                         "ping\nsix tcp\n")

    def test_dual(self):
        out = self.run_ok(["--hosts", "2", "--ipv6", "dual"], """
            echo "$VCLUSTER_ADDRS|$VCLUSTER_ADDRS6"
            ip -n ${H[0]} -o addr show dev eth0 | awk '{print $3, $4}'
            for t in 10.0.0.2 fd00::2; do
              ip netns exec ${H[0]} ping -q -c 1 -W 2 $t >/dev/null && echo $t
            done""")
        self.assertEqual(out, "10.0.0.1 10.0.0.2|fd00::1 fd00::2\ninet 10.0.0.1/24\n"
                         "inet6 fd00::1/64\n10.0.0.2\nfd00::2\n")

    def test_bad(self):
        for v in ("maybe", "only,", "v6"):
            r = subprocess.run([ct.VCLUSTER, "--ipv6", v, "--", "true"], capture_output=True,
                               text=True, timeout=30)
            self.assertEqual(r.returncode, 2, "%s: %s" % (v, r.stderr))
            self.assertIn("bad --ipv6", r.stderr)


class Teardown(ClusterTest):
    # a process that escapes CMD's process tree and session inside host 1; its pid goes to
    # stdout, then CMD finishes as SCRIPT says
    STRAY = 'ip netns exec ${H[0]} setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!; '

    def stray_pid(self, out):
        return int(out.split()[0])

    def test_normal_exit_kills_strays(self):
        out = self.run_ok(["--hosts", "2"], self.STRAY + "sleep 0.2")
        self.assertFalse(pid_alive(self.stray_pid(out)))

    def test_failing_cmd(self):
        r = vcluster(["--hosts", "2"], self.STRAY + "sleep 0.2; exit 5", self.prefix())
        self.assertEqual(r.returncode, 5)
        self.assertFalse(pid_alive(self.stray_pid(r.stdout)))

    def test_in_host_strays(self):
        r = vcluster(["--hosts", "2", "--in", "h2"],
                     "setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!", self.prefix())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(pid_alive(int(r.stdout)))

    def interrupt(self, sig):
        p = start_vcluster(self, ["--hosts", "2"], self.STRAY + "sleep 1000", self.prefix())
        stray = int(p.stdout.readline())
        p.send_signal(sig)
        out, err = p.communicate(timeout=30)
        self.assertEqual(p.returncode, 128 + sig, err)
        self.assertIn("received %s" % signal.Signals(sig).name, err)
        self.assertFalse(pid_alive(stray))

    def test_sigterm_mid_run(self):
        self.interrupt(signal.SIGTERM)

    def test_sigint_mid_run(self):
        self.interrupt(signal.SIGINT)

    def test_sighup_mid_run(self):
        self.interrupt(signal.SIGHUP)

    def test_cmd_ignoring_sigterm_is_killed(self):
        p = start_vcluster(self, ["--hosts", "2"], "trap '' TERM; echo up; while :; do sleep 0.05; done",
                           self.prefix())
        p.stdout.readline()
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        p.communicate(timeout=30)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM)
        self.assertLess(time.monotonic() - t0, 6.0)

    def kill_tree(self, root):
        """What ctest does on a timeout: SIGKILL to the test process and its descendants."""
        kids = subprocess.run(["pgrep", "-P", str(root)], capture_output=True, text=True).stdout
        os.kill(root, signal.SIGKILL)
        for k in kids.split():
            self.kill_tree(int(k)) if pid_alive(int(k)) else None

    def test_sigkill_guardian_tears_down(self):
        p = self.prefix()
        proc = start_vcluster(self, ["--hosts", "2"], self.STRAY + "sleep 1000", p)
        stray = int(proc.stdout.readline())
        self.kill_tree(proc.pid)
        proc.communicate(timeout=10)
        wait_for(lambda: not leftovers(p) and not pid_alive(stray), GUARD_TEARDOWN_S,
                 "the guardian's teardown of " + p)

    @unittest.skipUnless(shutil.which("cmake") and shutil.which("ctest"), "needs cmake and ctest")
    def test_ctest_timeout(self):
        # the real thing: ctest kills a test that runs over its TIMEOUT (CMake 3.25: SIGKILL to
        # the test's process tree, no signal the script could trap)
        p = self.prefix()
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
                f.write("cmake_minimum_required(VERSION 3.18)\nproject(t NONE)\nenable_testing()\n"
                        "add_test(NAME t COMMAND %s --prefix %s -- sleep 100)\n"
                        "set_tests_properties(t PROPERTIES TIMEOUT 1)\n" % (ct.VCLUSTER, p))
            b = os.path.join(d, "b")
            subprocess.run(["cmake", "-S", d, "-B", b], check=True, capture_output=True, timeout=60)
            r = subprocess.run(["ctest"], cwd=b, capture_output=True, text=True, timeout=60)
            self.assertIn("Timeout", r.stdout)
        wait_for(lambda: not leftovers(p), GUARD_TEARDOWN_S, "the teardown of " + p)

    def test_sweep_after_guardian_died_too(self):
        p = self.prefix()
        proc = start_vcluster(self, ["--hosts", "2"], self.STRAY + "sleep 1000", p)
        stray = int(proc.stdout.readline())
        guard = subprocess.run(["pgrep", "-f", "vcluster.sh --guard %s %d " % (p, proc.pid)],
                               capture_output=True, text=True).stdout.split()
        self.assertEqual(len(guard), 1, "no guardian found for " + p)
        os.kill(int(guard[0]), signal.SIGKILL)
        wait_for(lambda: not pid_alive(int(guard[0])), 5, "the guardian's death")
        self.kill_tree(proc.pid)
        proc.communicate(timeout=10)
        r = subprocess.run([ct.VCLUSTER, "--sweep"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        # the start of any other cluster run sweeps too (another ctest job, another worktree);
        # if one of those claimed this cluster first, our sweep left it to that live claimer
        wait_for(lambda: not leftovers(p), GUARD_TEARDOWN_S, "the sweep of " + p)
        self.assertFalse(pid_alive(stray))

    def test_sweep_spares_live_clusters(self):
        p = self.prefix()
        proc = start_vcluster(self, ["--hosts", "2"], "echo up; sleep 1000", p)
        proc.stdout.readline()
        r = subprocess.run([ct.VCLUSTER, "--sweep"], capture_output=True, text=True, timeout=30)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(leftovers(p)), 6)      # 3 namespaces, 2 /etc/netns, the state
        stop(proc)

    def test_prefix_in_use(self):
        p = self.prefix()
        proc = start_vcluster(self, ["--hosts", "2"], "echo up; sleep 1000", p)
        proc.stdout.readline()
        r = vcluster([], "true", p)
        self.assertEqual(r.returncode, 1)
        self.assertIn("exists already", r.stderr)
        self.assertEqual(len(leftovers(p)), 6)      # the first cluster is intact
        stop(proc)


class Rate(ClusterTest):
    STREAM = """
        ip netns exec ${H[1]} python3 $T sink 5001 & s=$!
        ip netns exec ${H[0]} python3 $T stream ${H[1]} 5001 1.0; wait $s
        ip netns exec ${H[0]} python3 $T sink 5002 & s=$!
        ip netns exec ${H[1]} python3 $T stream ${H[0]} 5002 1.0; wait $s"""

    def mbits(self, out):
        return [float(l.split()[2]) for l in out.splitlines()]

    def test_50mbit_both_directions(self):
        for rate in self.mbits(self.run_ok(["--hosts", "2", "--rate", "50mbit"], self.STREAM)):
            self.assertGreater(rate, 30)
            self.assertLess(rate, 70)

    def test_unshaped_is_faster(self):
        for rate in self.mbits(self.run_ok(["--hosts", "2"], self.STREAM)):
            self.assertGreater(rate, 200)


if __name__ == "__main__":
    ct.main()
