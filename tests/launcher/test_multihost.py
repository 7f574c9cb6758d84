#!/usr/bin/env python3
"""Scenario tests of mpirun's jobs on several hosts (standard library only).

Run: test_multihost.py --mpirun PATH --prog PATH/lt_prog [unittest args, e.g. -v Failures]

The hosts are network namespaces made for this run ("<prefix>-h1" ...), started with
--launch-agent "ip netns exec {host}"; they are deleted at the end whatever happens. Without
root, or when `ip netns` does not work, the run is skipped (exit status 77).

Nothing of a job may be left behind on any host: on top of test_launcher's checks (no
process with the job's marker in its environment — ranks, helpers and agents all inherit
it —, no orphan, no /dev/shm entry or unix socket of the job), every namespace must hold no
process (`ip netns pids`).

MPI programs on several hosts can MPI_Init but not finalize until the TCP transport exists:
they are used in modes that block (the test ends the job) or fail; the global PMI key-value
space is exercised with the pure-Python PMI client (pmi_client.py hosts).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import test_launcher as tl
from test_launcher import Job, LauncherTest, TEARDOWN_LIMIT, procs_with_marker

HERE = os.path.dirname(os.path.abspath(__file__))
PMI_CLIENT = os.path.join(HERE, "pmi_client.py")
SKIP = 77
PREFIX = "mh%d" % os.getpid()
HOSTS = ["%s-h%d" % (PREFIX, i) for i in (1, 2, 3)]
H1, H2, H3 = HOSTS
AGENT = ["--launch-agent", "ip netns exec {host}"]
SITES_PROG = None  # tests/mpi/sites/sites.c (--sites-prog)


def ip(*args):
    return subprocess.run(["ip"] + list(args), capture_output=True, text=True, timeout=20)


def make_hosts():
    """Creates the namespaces; returns an error text when this machine cannot."""
    if os.geteuid() != 0:
        return "not root: network namespaces need root"
    for h in HOSTS:
        r = ip("netns", "add", h)
        if r.returncode != 0:
            return "ip netns add %s failed: %s" % (h, r.stderr.strip())
        r = ip("netns", "exec", h, "ip", "link", "set", "lo", "up")
        if r.returncode != 0:
            return "ip netns exec %s failed: %s" % (h, r.stderr.strip())
    return None


def delete_hosts():
    for h in HOSTS:
        for pid in netns_pids(h):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        ip("netns", "del", h)


def netns_pids(host):
    r = ip("netns", "pids", host)
    return [int(x) for x in r.stdout.split()] if r.returncode == 0 else []


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return b""


def decode_mapping(value, size):
    """PMI_process_mapping -> host index per rank (the library's reading of it)."""
    m = re.fullmatch(r"\(vector((?:,\(\d+,\d+,\d+\))*)\)", value)
    assert m, "malformed mapping %r" % value
    out = []
    for first, count, per in re.findall(r"\((\d+),(\d+),(\d+)\)", m.group(1)):
        for n in range(int(count)):
            out += [int(first) + n] * int(per)
    assert len(out) == size, "mapping %r covers %d ranks, not %d" % (value, len(out), size)
    return out


class MultiHostTest(LauncherTest):
    def mh_job(self, args, **kw):
        return self.run_job(AGENT + args, **kw)

    def assert_clean(self, job, settle=0.0):
        super().assert_clean(job, settle)
        for h in HOSTS:
            self.assertEqual(netns_pids(h), [], "processes left in namespace %s" % h)

    def placement(self, args, np):
        """Runs `sh` printing rank and host per rank; returns {rank: host name}."""
        job = self.mh_job(args + ["sh", "-c", 'echo "at $PMI_RANK $PMI_SIZE $METAMPI_HOSTNAME"'])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        got = {}
        for r, size, host in re.findall(r"^at (\d+) (\d+) (\S+)$", job.stdout, re.M):
            self.assertEqual(int(size), np)
            got[int(r)] = host
        self.assertEqual(sorted(got), list(range(np)), job.stdout)
        self.assertEqual(job.mpirun_lines(), [])
        self.assert_clean(job)
        return got

    def check_error(self, args, pattern, code=1):
        job = self.run_job(args)
        self.assertEqual(job.p.returncode, code, job.stderr)
        self.assert_one_report(job, pattern)
        self.assertEqual(job.stdout, "")
        self.assert_clean(job)
        return job


class HostOptions(MultiHostTest):
    """--host and --hostfile: good input gives the layout, bad input one clear error."""

    def test_host_slots_and_repeats(self):
        self.assertEqual(self.placement(["--host", "%s:2,%s:2" % (H1, H2)], 4),
                         {0: H1, 1: H1, 2: H2, 3: H2})
        # a name without :N is one slot, a repeated name adds slots (a,a,b = a:2,b:1)
        self.assertEqual(self.placement(["--host", "%s,%s,%s" % (H1, H1, H2)], 3),
                         {0: H1, 1: H1, 2: H2})
        # -n below the slots uses the first ones; -H is --host; --host=LIST works
        self.assertEqual(self.placement(["-n", "2", "-H", "%s:2,%s:2" % (H2, H1)], 2),
                         {0: H2, 1: H2})
        self.assertEqual(self.placement(["--host=%s" % H3], 1), {0: H3})

    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", prefix="mh-hostfile-", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_hostfile_forms(self):
        path = self.write("# the hosts\n\n%s slots=2   # Open MPI style\n  %s:1\n%s\n\t\n"
                          % (H1, H2, H3))
        for opt in ("--hostfile", "--machinefile", "-hostfile"):
            self.assertEqual(self.placement([opt, path], 4), {0: H1, 1: H1, 2: H2, 3: H3})

    def test_hostfile_errors(self):
        tail = r" \(expected NAME, NAME slots=N or NAME:N, N from 1 to 4096\)$"
        cases = [
            ("%s slots=2\n%s max=2\n" % (H1, H2), r"line 2: unexpected 'max=2'" + tail),
            ("%s slots=0\n" % H1, r"line 1: unexpected 'slots=0'" + tail),
            ("%s:x\n" % H1, r"line 1: invalid host '%s:x'" % H1 + tail),
            ("# nothing\n%s a b\n" % H1, r"line 2: too many fields" + tail),
            ("bad/name\n", r"line 1: invalid host 'bad/name'" + tail),
            ("%s:2 slots=3\n" % H1, r"line 1: unexpected 'slots=3'" + tail),
        ]
        for text, pattern in cases:
            path = self.write(text)
            self.check_error(["--hostfile", path, "true"],
                             r"^mpirun: hostfile '%s', " % re.escape(path) + pattern)
        path = self.write("# only comments\n\n")
        self.check_error(["--hostfile", path, "true"],
                         r"^mpirun: hostfile '%s' names no host$" % re.escape(path))
        self.check_error(["--hostfile", "/nonexistent/hosts", "true"],
                         r"^mpirun: cannot open hostfile '/nonexistent/hosts': No such file")
        self.check_error(["--hostfile"], r"^mpirun: option --hostfile requires a file name$")

    def test_host_errors(self):
        msg = (r"\(expected NAME or NAME:SLOTS, SLOTS from 1 to 4096; NAME of letters, "
               r"digits, '\.', '-', '_'\)$")
        for bad, part in (("a:0", "a:0"), ("a,,b", ""), ("a:x", "a:x"), ("-a", "-a"),
                          ("a b", "a b"), ("a:5000", "a:5000")):
            self.check_error(["--host", bad, "true"],
                             r"^mpirun: invalid host '%s' in --host '%s' " % (re.escape(part),
                                                                                re.escape(bad))
                             + msg)
        self.check_error(["--host"], r"^mpirun: option --host requires a list of hosts")
        path = self.write("%s\n" % H1)
        self.check_error(["--host", H1, "--hostfile", path, "true"],
                         r"^mpirun: --host and --hostfile cannot be combined")

    def test_too_many_ranks(self):
        self.check_error(["--host", "%s:1,%s:2,%s:3" % (H1, H2, H3), "-n", "7", "true"],
                         r"^mpirun: 7 ranks but only 6 slots on 3 hosts \(use --oversubscribe "
                         r"to place more ranks than slots, or give more slots\)$")
        self.check_error(["--host", H1, "-n", "2", "true"],
                         r"^mpirun: 2 ranks but only 1 slot on 1 host \(use --oversubscribe")

    def test_other_option_errors(self):
        self.check_error(["--map-by", "socket", "true"],
                         r"^mpirun: invalid --map-by value 'socket' \(valid values: slot, node\)$")
        self.check_error(["--map-by"], r"^mpirun: option --map-by requires a value")
        self.check_error(["--launch-agent", " ", "true"],
                         r"^mpirun: option --launch-agent requires a command")
        self.check_error(["--host", H1, "--launch-agent", "no-such-agent-mh {host}", "true"],
                         r"^mpirun: cannot execute the launch agent 'no-such-agent-mh' \(from "
                         r"--launch-agent 'no-such-agent-mh \{host\}'\): No such file or directory$")


class Placement(MultiHostTest):
    """--map-by slot|node, the published PMI_process_mapping and MPI_Get_processor_name."""

    def layout(self, args, np):
        """pmi_client hosts: returns ({rank: host}, mapping decoded per rank)."""
        job = self.mh_job(args + [sys.executable, PMI_CLIENT, "hosts"])
        self.assertEqual(job.p.returncode, 0, job.stdout + job.stderr)
        lines = re.findall(r"^layout (\d+) (\S+) (\S+)$", job.stdout, re.M)
        self.assertEqual(sorted(int(r) for r, _, _ in lines), list(range(np)), job.stdout)
        self.assertEqual(sorted(re.findall(r"^ok (\d+)$", job.stdout, re.M), key=int),
                         [str(r) for r in range(np)])
        mappings = {m for _, _, m in lines}
        self.assertEqual(len(mappings), 1, "ranks saw different mappings: %r" % mappings)
        self.assertEqual(job.mpirun_lines(), [])
        self.assert_clean(job)
        return {int(r): h for r, h, _ in lines}, decode_mapping(mappings.pop(), np)

    def check(self, args, np, expected_hosts):
        where, mapping = self.layout(args, np)
        self.assertEqual([where[r] for r in range(np)], expected_hosts, args)
        # the mapping's host index is the position in the host list
        self.assertEqual([HOSTS[i] for i in mapping], expected_hosts, args)

    def test_2x2(self):
        hosts = ["--host", "%s:2,%s:2" % (H1, H2)]
        self.check(hosts, 4, [H1, H1, H2, H2])
        self.check(hosts + ["--map-by", "slot"], 4, [H1, H1, H2, H2])
        self.check(hosts + ["--map-by", "node"], 4, [H1, H2, H1, H2])
        self.check(hosts + ["--map-by=node", "-n", "3"], 3, [H1, H2, H1])

    def test_3_hosts_1_2_3(self):
        hosts = ["--host", "%s:1,%s:2,%s:3" % (H1, H2, H3)]
        self.check(hosts, 6, [H1, H2, H2, H3, H3, H3])
        # round-robin skips full hosts
        self.check(hosts + ["--map-by", "node"], 6, [H1, H2, H3, H2, H3, H3])

    def test_oversubscribe_repeats_the_layout(self):
        hosts = ["--host", "%s:1,%s:2" % (H1, H2), "--oversubscribe"]
        self.check(hosts + ["-n", "5"], 5, [H1, H2, H2, H1, H2])
        self.check(hosts + ["-n", "4", "--map-by", "node"], 4, [H1, H2, H2, H1])

    def test_single_host_list(self):
        # one host through its helper: MPI programs run completely
        job = self.mh_job(["--host", "%s:3" % H2, tl.PROG, "ok"])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(sorted(job.stdout.splitlines()),
                         sorted("ready %d 3" % r for r in range(3)))
        self.assert_clean(job)

    def test_processor_name(self):
        np = 6
        job = Job(AGENT + ["--host", "%s:1,%s:2,%s:3" % (H1, H2, H3), "--map-by", "node",
                           tl.PROG, "procname"])
        job.wait_lines(rb"^procname ", np)
        job.p.send_signal(signal.SIGTERM)
        job.wait(30)
        got = {int(r): n for r, n in re.findall(r"^procname (\d+) (\S+)$", job.stdout, re.M)}
        self.assertEqual(got, dict(enumerate([H1, H2, H3, H2, H3, H3])))
        self.assert_one_report(job, r"^mpirun: received signal 15 \(Terminated\); terminating "
                                    r"the job$")
        self.assert_clean(job)


def without_progress(stderr):
    """stderr's lines without mpirun's launch progress (hosts slow to start, under load)."""
    return [l for l in stderr.splitlines() if not l.startswith("mpirun: still waiting for ")]


class Output(MultiHostTest):
    def test_output_and_tags(self):
        hosts = ["--host", "%s:2,%s:1" % (H1, H2)]
        script = 'echo "out $PMI_RANK"; echo "err $PMI_RANK" >&2; printf "partial $PMI_RANK"'
        job = self.mh_job(hosts + ["sh", "-c", script])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(sorted(re.findall(r"out \d", job.stdout)), ["out 0", "out 1", "out 2"])
        self.assertEqual(sorted(without_progress(job.stderr)), ["err 0", "err 1", "err 2"])
        self.assertEqual(sorted(re.findall(r"partial \d", job.stdout)),
                         ["partial 0", "partial 1", "partial 2"])
        job = self.mh_job(["--tag-output"] + hosts + ["sh", "-c", script])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(sorted(job.stdout.splitlines()),
                         sorted(["[1,%d]<stdout>:out %d" % (r, r) for r in range(3)] +
                                ["[1,%d]<stdout>:partial %d" % (r, r) for r in range(3)]))
        self.assertEqual(sorted(without_progress(job.stderr)),
                         ["[1,%d]<stderr>:err %d" % (r, r) for r in range(3)])
        self.assert_clean(job)

    def test_long_lines_never_interleave(self):
        script = ("import os\nr=os.environ['PMI_RANK']\n"
                  "for i in range(200):\n"
                  "    line=('%s:%d:'%(r,i))+r*3000+'\\n'\n"
                  "    for j in range(0,len(line),1000):\n"
                  "        os.write(1,line[j:j+1000].encode())\n")
        job = self.mh_job(["--host", "%s:2,%s:2" % (H1, H2), sys.executable, "-c", script])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        lines = job.stdout.splitlines()
        self.assertEqual(len(lines), 800)
        for l in lines:
            r, i, body = l.split(":")
            self.assertEqual(body, r * 3000, "interleaved line")
        self.assert_clean(job)

    def test_env(self):
        job = self.mh_job(["--host", "%s,%s" % (H1, H2), "-x", "MH_A=1", "-x", "MH_FWD",
                           "sh", "-c", 'echo "$PMI_RANK A=$MH_A F=$MH_FWD M=$METAMPI_MPIRUN '
                           'K=${#METAMPI_RANK_KEY} J=${#METAMPI_JOB_KEY} S=$PMI_SIZE"'],
                          env={"MH_FWD": "forwarded", "METAMPI_JOB_KEY": "stale",
                               "METAMPI_RANK_KEY": "stale"})
        self.assertEqual(job.p.returncode, 0, job.stderr)
        # the ranks get their own key, never the job key (net/auth.h)
        self.assertEqual(sorted(job.stdout.splitlines()),
                         ["%d A=1 F=forwarded M=1 K=64 J=0 S=2" % r for r in range(2)])
        # the key is fresh for every job and on no command line
        keys = set()
        for _ in range(2):
            job = self.mh_job(["--host", "%s,%s" % (H1, H2), "sh", "-c",
                               'echo $METAMPI_RANK_KEY; cat /proc/$PPID/cmdline | tr "\\0" " "; '
                               'echo'])
            lines = job.stdout.splitlines()
            keys.add(lines[0])
            self.assertRegex(lines[0], r"^[0-9a-f]{64}$")
            self.assertNotIn(lines[0], job.stdout.replace(lines[0], "", 2))
            self.assertIn("metampi-hostd", job.stdout)
            self.assert_clean(job)
        self.assertEqual(len(keys), 2)


class Stdin(MultiHostTest):
    def test_stdin_to_remote_rank0(self):
        # rank 0 runs on the second namespace of the list given first
        data = b"line one\nline two\n"
        job = self.mh_job(["--host", "%s:1,%s:2" % (H2, H1), "sh", "-c",
                           'echo "stdin $PMI_RANK $METAMPI_HOSTNAME $(wc -c)"'],
                          input_data=data)
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(sorted(job.stdout.splitlines()),
                         ["stdin 0 %s %d" % (H2, len(data)), "stdin 1 %s 0" % H1,
                          "stdin 2 %s 0" % H1])
        self.assert_clean(job)

    def test_large_stdin(self):
        import hashlib
        data = os.urandom(1 << 20) + b"tail-without-newline"
        job = self.mh_job(["--host", "%s,%s" % (H1, H2), "--map-by", "node", "sh", "-c",
                           'if [ $PMI_RANK = 0 ]; then md5sum; else wc -c; fi'],
                          input_data=data)
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(sorted(job.stdout.splitlines()),
                         sorted(["0", hashlib.md5(data).hexdigest() + "  -"]))
        self.assert_clean(job)

    def test_rank0_ignores_stdin(self):
        job = self.mh_job(["--host", "%s,%s" % (H1, H2), "sh", "-c", "sleep 0.3; echo done"],
                          input_data=b"x" * (1 << 20))
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(job.stdout.splitlines(), ["done", "done"])
        self.assert_clean(job)


class Failures(MultiHostTest):
    """Every failure: one report naming rank, host and cause; the job gone on every host
    within 2 s; nothing left anywhere."""

    HOSTS22 = ["--host", "%s:2,%s:2" % (H1, H2)]

    def check(self, args, pattern, status, event=True):
        job = self.mh_job(args)
        self.assertEqual(job.p.returncode, status, job.stdout + job.stderr)
        self.assert_one_report(job, pattern)
        if event:
            self.assert_fast(job, job.event_time())
        self.assert_clean(job)
        return job

    def test_rank_sigkill(self):
        for target, host in ((3, H2), (0, H1)):
            self.check(self.HOSTS22 + [tl.PROG, "kill", str(target)],
                       r"^mpirun: rank %d \(pid \d+\) on host %s was killed by signal 9 "
                       r"\(Killed\)$" % (target, host), 137)

    def test_segv_and_exit_codes(self):
        self.check(self.HOSTS22 + [tl.PROG, "segv", "2"],
                   r"^mpirun: rank 2 \(pid \d+\) on host %s was killed by signal 11" % H2, 139)
        self.check(self.HOSTS22 + [tl.PROG, "exit", "3", "4"],
                   r"^mpirun: rank 3 \(pid \d+\) on host %s exited with code 4 without calling "
                   r"MPI_Finalize$" % H2, 4)
        job = self.mh_job(self.HOSTS22 + ["sh", "-c",
                                          'if [ $PMI_RANK = 2 ]; then exit 5; fi; sleep 30'])
        self.assertEqual(job.p.returncode, 5)
        self.assert_one_report(job, r"^mpirun: rank 2 \(pid \d+\) on host %s exited with code "
                                    r"5$" % H2)
        self.assert_clean(job)

    def test_abort(self):
        self.check(self.HOSTS22 + [tl.PROG, "abort", "2", "6"],
                   r"^mpirun: rank 2 \(pid \d+\) on host %s aborted the job with exit code 6"
                   % H2, 6)

    def test_exit_before_init_on_other_host(self):
        # the ranks of h1 wait in MPI_Init's barrier for rank 3 of h2, which never comes
        self.check(self.HOSTS22 + [tl.PROG, "exit_before_init", "3"],
                   r"^mpirun: rank 3 \(pid \d+\) on host %s exited without calling MPI_Init or "
                   r"MPI_Finalize while the other ranks wait for it$" % H2, 1)

    def test_unknown_pmi_command(self):
        # the helper asks mpirun about a command it does not know; the report keeps the line
        self.check(self.HOSTS22 + [sys.executable, PMI_CLIENT, "unknown", "3"],
                   r"^mpirun: rank 3 on host %s sent an invalid PMI command: cmd=frobnicate "
                   r"a=b$" % H2, 1)

    def test_program_not_found(self):
        # each helper finds it missing; the first report wins
        self.check(self.HOSTS22 + ["no-such-program-mh"],
                   r"^mpirun: host (%s|%s): cannot execute 'no-such-program-mh': No such file "
                   r"or directory$" % (H1, H2), 127, event=False)

    def test_shm_swept_on_every_host(self):
        job = self.check(["--host", "%s,%s" % (H1, H2), sys.executable, PMI_CLIENT, "shm", "1"],
                         r"rank 1 \(pid \d+\) on host %s was killed by signal 9" % H2, 137)
        kvs = re.search(r"^kvs 1 (\S+)$", job.stdout, re.M).group(1)
        self.assertFalse(os.path.exists("/dev/shm/metampi.%s.crashed" % kvs))

    def test_helper_killed(self):
        job = Job(AGENT + self.HOSTS22 + [tl.PROG, "block"])
        job.wait_lines(rb"^ready ", 4)
        helpers = [p for p in netns_pids(H2) if b"metampi-hostd" in cmdline(p)]
        self.assertEqual(len(helpers), 1, helpers)
        t_event = time.monotonic()
        os.kill(helpers[0], signal.SIGKILL)
        job.wait(30)
        self.assertEqual(job.p.returncode, 1, job.stderr)
        self.assert_one_report(job, r"^mpirun: host %s: helper lost \(killed by signal 9 "
                                    r"\(Killed\)\); ranks 2-3 lost$" % H2)
        self.assert_fast(job, t_event)
        self.assert_clean(job, settle=0.5)

    def test_unreachable_host(self):
        missing = PREFIX + "-nowhere"
        job = self.mh_job(["--host", "%s,%s" % (H1, missing), tl.PROG, "ok"])
        self.assertEqual(job.p.returncode, 1, job.stderr)
        self.assert_one_report(job, r"^mpirun: host %s: cannot start the helper with 'ip netns "
                                    r"exec %s' \(exit code \d+\): Cannot open network namespace"
                               % (missing, missing))
        self.assert_clean(job)

    def test_agent_fails_to_exec_helper(self):
        # the agent runs but the helper is not there: exit status of the agent, its message
        job = self.run_job(["--launch-agent", "sh -c false", "--host", "%s,%s" % (H1, H2),
                            "true"])
        self.assertEqual(job.p.returncode, 1, job.stderr)
        self.assert_one_report(job, r"^mpirun: host (%s|%s): cannot start the helper with 'sh "
                                    r"-c false (%s|%s)' \(exit code 1\)$" % (H1, H2, H1, H2))
        self.assert_clean(job)


class Metacomputer(MultiHostTest):
    """--metacomputer FILE: ranks placed site by site, the site layout published to every
    rank before it starts, and one clear line for every bad description or combination."""

    def write(self, text):
        f = tempfile.NamedTemporaryFile("w", prefix="mh-mc-", suffix=".ini", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def two_sites(self):
        return self.write("[site north]\nhosts = %s:2, %s:2\n[site south]\nhosts = %s\n"
                          % (H1, H2, H3))

    def sites(self, args, np):
        """pmi_client sites: returns ([host of rank r], (sites, names, rank_sites))."""
        job = self.mh_job(args + [sys.executable, PMI_CLIENT, "sites"])
        self.assertEqual(job.p.returncode, 0, job.stdout + job.stderr)
        lines = re.findall(r"^sites (\d+) (\S+) (\S+) (\S+) (\S+)$", job.stdout, re.M)
        self.assertEqual(sorted(int(r) for r, *_ in lines), list(range(np)), job.stdout)
        values = {tuple(v[2:]) for v in lines}
        self.assertEqual(len(values), 1, "ranks saw different layouts: %r" % values)
        self.assertEqual(job.mpirun_lines(), [])
        self.assert_clean(job)
        where = {int(r): h for r, h, *_ in lines}
        return [where[r] for r in range(np)], values.pop()

    def test_placement_and_layout(self):
        mc = ["--metacomputer", self.two_sites(), "--direct-wan"]
        self.assertEqual(self.sites(mc, 5),
                         ([H1, H1, H2, H2, H3], ("2,1,1", "north,south", "0*4,1")))
        # --map-by applies within each site
        self.assertEqual(self.sites(mc + ["--map-by", "node"], 5),
                         ([H1, H2, H1, H2, H3], ("2,1,1", "north,south", "0*4,1")))
        # fewer ranks fill the first site; the second keeps its number and name
        self.assertEqual(self.sites(mc + ["-n", "3"], 3),
                         ([H1, H1, H2], ("2,1,1", "north,south", "0*3")))
        # oversubscribed: each site's share repeats its layout, sites stay consecutive
        self.assertEqual(self.sites(mc + ["-n", "7", "--oversubscribe"], 7),
                         ([H1, H1, H2, H2, H1, H1, H3], ("2,1,1", "north,south", "0*6,1")))
        # a single site needs no gateway, so no --direct-wan
        one = self.write("[site only]\nhosts = %s:1, %s:1\n" % (H2, H1))
        self.assertEqual(self.sites(["--metacomputer", one], 2),
                         ([H2, H1], ("1,1,1", "only", "0*2")))
        # without a description, no layout: the job is one site
        self.assertEqual(self.sites(["--host", "%s,%s" % (H1, H2)], 2),
                         ([H1, H2], ("-", "-", "-")))

    def test_mpi_program_reads_the_layout(self):
        # the ranks of one host (shared memory only, no network between the namespaces):
        # MPI_Init reads the published layout; METAMPI_COMM_TYPE_SITE and METAMPI_SITE agree
        if not SITES_PROG:
            self.skipTest("--sites-prog not given")
        for text, np in (("[site a]\nhosts = %s:3\n" % H1, 3),
                         ("[site a]\nhosts = %s:3\n[site b]\nhosts = %s\n" % (H1, H2), 3)):
            job = self.mh_job(["--metacomputer", self.write(text), "--direct-wan", "-n", str(np),
                               "-x", "EXPECT_SITE_SIZES=%d" % np, "-x", "EXPECT_SIZE=%d" % np,
                               SITES_PROG])
            self.assertEqual(job.p.returncode, 0, job.stdout + job.stderr)
            self.assertIn("sites: 1 site(s) of %d ranks: ok" % np, job.stdout)
            self.assert_clean(job)

    def test_errors(self):
        path = self.two_sites()
        self.check_error(["--metacomputer", path, "true"],
                         r"^mpirun: metacomputer '%s', line 1: site 'north' needs 'wan = "
                         r"IPv4:PORT' or 'wan = \[IPv6\]:PORT', the address its gateway "
                         r"listens on \(or use --direct-wan: ranks at different sites connect "
                         r"directly\)$" % re.escape(path))
        self.check_error(["--metacomputer", path, "--direct-wan", "--host", H1, "true"],
                         r"^mpirun: --metacomputer cannot be combined with --host or --hostfile "
                         r"\(the description names the hosts of every site\)$")
        self.check_error(["--hostfile", path, "--metacomputer", path, "true"],
                         r"^mpirun: --metacomputer cannot be combined with --host or --hostfile")
        self.check_error(["--direct-wan", "--host", H1, "true"],
                         r"^mpirun: --direct-wan applies to jobs on several sites: give them "
                         r"with --metacomputer FILE$")
        self.check_error(["--metacomputer", path, "--metacomputer", path, "true"],
                         r"^mpirun: --metacomputer given twice")
        self.check_error(["--metacomputer"],
                         r"^mpirun: option --metacomputer requires a file name$")
        self.check_error(["--metacomputer", "/nonexistent/mc.ini", "true"],
                         r"^mpirun: cannot open metacomputer description '/nonexistent/mc.ini': "
                         r"No such file or directory$")
        self.check_error(["--metacomputer", path, "--direct-wan", "-n", "6", "true"],
                         r"^mpirun: 6 ranks but only 5 slots on 3 hosts of 2 sites in "
                         r"metacomputer '%s' \(use --oversubscribe" % re.escape(path))
        # the parser's errors (tests/unit/test_metacomputer.c has them all): file and line
        for text, line, msg in (
                ("[site a]\nhosts = %s\n[site b]\nhosts = %s\n" % (H1, H1), 4,
                 "host '%s' is in two sites, 'a' \\(line 2\\) and 'b'" % H1),
                ("[site a]\nhosts = %s\n[site a]\nhosts = %s\n" % (H1, H2), 3,
                 "site 'a' is described twice \\(first on line 1\\)"),
                ("[site a]\nhosts = %s\nslots = 2\n" % H1, 3,
                 "unknown key 'slots' in \\[site a\\] \\(expected hosts, gateway, wan, "
                 "exec_prefix, reachable, cert, key, ca or crl\\)"),
                ("[wan]\nstreams = 0\n[site a]\nhosts = %s\n" % H1, 2,
                 "invalid streams '0'")):
            bad = self.write(text)
            self.check_error(["--metacomputer", bad, "--direct-wan", "true"],
                             r"^mpirun: metacomputer '%s', line %d: %s" % (re.escape(bad), line,
                                                                           msg))


class Signals(MultiHostTest):
    def test_ctrl_c_forwarded(self):
        for sig, name in ((signal.SIGINT, "Interrupt"), (signal.SIGTERM, "Terminated"),
                          (signal.SIGHUP, "Hangup")):
            job = Job(AGENT + ["--host", "%s:2,%s:1" % (H1, H2), tl.PROG, "block"])
            job.wait_lines(rb"^ready ", 3)
            time.sleep(0.2)
            t_event = time.monotonic()
            job.p.send_signal(sig)
            job.wait(30)
            self.assertEqual(job.p.returncode, 128 + sig, job.stderr)
            self.assert_one_report(job, r"^mpirun: received signal %d \(%s\); terminating the "
                                        r"job$" % (sig, name))
            self.assert_fast(job, t_event)
            self.assert_clean(job)

    def test_ranks_ignoring_sigterm_are_killed(self):
        script = "trap '' TERM INT; echo ready; while :; do sleep 0.05; done"
        job = Job(AGENT + ["--host", "%s,%s" % (H1, H2), "sh", "-c", script])
        job.wait_lines(rb"^ready", 2)
        t_event = time.monotonic()
        job.p.send_signal(signal.SIGTERM)
        job.wait(30)
        self.assertEqual(job.p.returncode, 128 + signal.SIGTERM)
        took = job.t_exit - t_event
        self.assertGreater(took, 0.8, "SIGKILL came before the grace period")
        self.assertLess(took, TEARDOWN_LIMIT)
        self.assert_clean(job)

    def test_mpirun_sigkilled(self):
        # the helpers see EOF on their stdin: they kill their ranks and clean up
        job = Job(AGENT + ["--host", "%s:2,%s:2" % (H1, H2), tl.PROG, "block"])
        job.wait_lines(rb"^ready ", 4)
        t_event = time.monotonic()
        job.p.send_signal(signal.SIGKILL)
        job.wait(30)
        deadline = t_event + TEARDOWN_LIMIT
        while (procs_with_marker(job.marker) or any(netns_pids(h) for h in HOSTS)) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(procs_with_marker(job.marker), [], "the job survived mpirun's SIGKILL")
        time.sleep(0.1)
        while True:
            try:
                if os.waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        self.assert_clean(job)


def main():
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--sites-prog")
    args, rest = ap.parse_known_args()
    tl.MPIRUN = os.path.abspath(args.mpirun)
    tl.PROG = os.path.abspath(args.prog)
    global SITES_PROG
    SITES_PROG = os.path.abspath(args.sites_prog) if args.sites_prog else None
    tl.become_subreaper()
    why = make_hosts()
    if why:
        delete_hosts()
        print("SKIP: multi-host tests need network namespaces: %s" % why)
        sys.exit(SKIP)
    try:
        prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False)
        ok = prog.result.wasSuccessful()
    finally:
        delete_hosts()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
