#!/usr/bin/env python3
"""Scenario tests of metampi's mpirun (standard library only).

Run: test_launcher.py --mpirun PATH --prog PATH/lt_prog --noaffinity PATH/liblt_noaffinity.so
                      [unittest args, e.g. -v Failures]

Every job runs with a unique marker variable in its environment. After mpirun exits, each
test checks that nothing of the job is left behind:
  - no process whose environment holds the marker (/proc/*/environ);
  - no process reparented to this test (it is a child subreaper, so orphans land here and
    would show up as children, running or zombie);
  - no /dev/shm entry and no unix socket (/proc/net/unix) naming the job's kvsname, which
    is kvs_<mpirun pid>_<hex>.
Failure scenarios also check the single report line of mpirun and how long the teardown
took after the failure event (the ranks print "EVENT <CLOCK_MONOTONIC seconds>").
"""
import argparse
import ctypes
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest
import uuid

MPIRUN = None
PROG = None
NOAFFINITY = None         # LD_PRELOAD shim that makes sched_setaffinity fail (EPERM)
HERE = os.path.dirname(os.path.abspath(__file__))
PMI_CLIENT = os.path.join(HERE, "pmi_client.py")
HOST = socket.gethostname()
TEARDOWN_LIMIT = 2.0      # seconds from the failure event to mpirun's exit
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER)")


def procs_with_marker(marker):
    needle = ("LT_MARKER=" + marker).encode()
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % d, "rb") as f:
                if needle in f.read().split(b"\0"):
                    found.append(int(d))
        except OSError:
            pass
    return found


def my_children():
    """Pids whose parent is this process (running or zombie)."""
    kids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == os.getpid():
            kids.append((int(d), fields[0]))
    return kids


class Job:
    """One mpirun run; output is collected by reader threads as it arrives."""

    def __init__(self, args, stdin=subprocess.DEVNULL, env=None, affinity=None):
        self.marker = uuid.uuid4().hex
        e = dict(os.environ)
        e["LT_MARKER"] = self.marker
        e.update(env or {})
        self.argv = [MPIRUN] + list(args)
        self.shm_before = set(os.listdir("/dev/shm"))
        self.t_start = time.monotonic()
        # affinity: the CPUs mpirun itself may run on
        pre = (lambda: os.sched_setaffinity(0, affinity)) if affinity else None
        self.p = subprocess.Popen(self.argv, stdin=stdin, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, env=e, preexec_fn=pre)
        self.out_lines = queue.Queue()
        self.out, self.err = [], []
        self.threads = [
            threading.Thread(target=self._reader, args=(self.p.stdout, self.out, self.out_lines)),
            threading.Thread(target=self._reader, args=(self.p.stderr, self.err, None)),
        ]
        for t in self.threads:
            t.daemon = True
            t.start()
        self.t_exit = None

    @staticmethod
    def _reader(f, store, q):
        for line in iter(f.readline, b""):
            store.append(line)
            if q is not None:
                q.put(line)
        f.close()

    def wait_lines(self, pattern, count, timeout=20):
        """Waits until `count` stdout lines matching pattern have arrived."""
        deadline = time.monotonic() + timeout
        seen = 0
        while seen < count:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("timeout waiting for %d lines %r; stdout so far: %r" %
                                     (count, pattern, b"".join(self.out)))
            try:
                line = self.out_lines.get(timeout=left)
            except queue.Empty:
                continue
            if re.search(pattern, line):
                seen += 1

    def wait(self, timeout=30):
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            # do not let this job's ranks pollute the next test
            for pid in procs_with_marker(self.marker):
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.2)
            while True:
                try:
                    if os.waitpid(-1, os.WNOHANG)[0] == 0:
                        break
                except ChildProcessError:
                    break
            raise AssertionError("mpirun did not exit within %ds" % timeout)
        self.t_exit = time.monotonic()
        for t in self.threads:
            t.join(10)
        self.stdout = b"".join(self.out).decode(errors="replace")
        self.stderr = b"".join(self.err).decode(errors="replace")
        return self.p.returncode

    def mpirun_lines(self):
        return [l for l in self.stderr.splitlines() if l.startswith("mpirun:")]

    def event_time(self):
        m = re.search(r"^EVENT ([0-9.]+)$", self.stdout, re.M)
        if not m:
            raise AssertionError("no EVENT line in stdout: %r" % self.stdout)
        return float(m.group(1))


class LauncherTest(unittest.TestCase):
    maxDiff = None

    def run_job(self, args, stdin=subprocess.DEVNULL, env=None, timeout=30, input_data=None,
                affinity=None):
        job = Job(args, stdin=subprocess.PIPE if input_data is not None else stdin, env=env,
                  affinity=affinity)
        if input_data is not None:
            def feed():
                try:
                    job.p.stdin.write(input_data)
                    job.p.stdin.close()
                except BrokenPipeError:
                    try:
                        job.p.stdin.close()
                    except BrokenPipeError:
                        pass
            threading.Thread(target=feed, daemon=True).start()
        job.wait(timeout)
        return job

    def assert_clean(self, job, settle=0.0):
        """Nothing of the job is left behind (see the module docstring)."""
        deadline = time.monotonic() + settle
        while True:
            left = procs_with_marker(job.marker)
            kids = my_children()
            if (not left and not kids) or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        # orphans reparented to us: reap them so later tests start clean, then fail
        reaped = []
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            reaped.append(pid)
        self.assertEqual(left, [], "processes of the job still alive: %r" % left)
        self.assertEqual(kids, [], "orphaned or zombie processes of the job: %r" % kids)
        tag = "kvs_%d_" % job.p.pid
        shm = [n for n in set(os.listdir("/dev/shm")) - job.shm_before if tag in n]
        self.assertEqual(shm, [], "left in /dev/shm")
        with open("/proc/net/unix") as f:
            socks = [l for l in f if tag in l]
        self.assertEqual(socks, [], "unix sockets left")

    def assert_one_report(self, job, pattern):
        lines = job.mpirun_lines()
        self.assertEqual(len(lines), 1, "expected exactly one mpirun report, got %r\nstderr: %s"
                         % (lines, job.stderr))
        self.assertRegex(lines[0], pattern)

    def assert_fast(self, job, t_event):
        took = job.t_exit - t_event
        self.assertLess(took, TEARDOWN_LIMIT,
                        "mpirun exited %.2fs after the failure event" % took)


class Setup(LauncherTest):
    def test_not_hydra(self):
        """The tests drive metampi's mpirun, not Debian's mpiexec.hydra."""
        real = os.path.realpath(MPIRUN)
        self.assertNotIn("hydra", real)
        self.assertNotEqual(real, os.path.realpath("/usr/bin/mpiexec"))
        self.assertNotEqual(real, os.path.realpath("/usr/bin/mpirun"))
        v = subprocess.run([MPIRUN, "--version"], capture_output=True, timeout=10)
        self.assertEqual(v.returncode, 0)
        self.assertIn(b"metampi", v.stdout)
        self.assertNotIn(b"HYDRA", v.stdout)
        # only our launcher sets METAMPI_MPIRUN=1 and PMI_FD for its ranks
        job = self.run_job(["-n", "2", "sh", "-c", 'echo "mark $METAMPI_MPIRUN $PMI_FD"'])
        self.assertEqual(job.p.returncode, 0)
        self.assertEqual(job.stdout.count("mark 1 3"), 2, job.stdout)
        self.assert_clean(job)

    def test_mpiexec_symlink(self):
        mpiexec = os.path.join(os.path.dirname(MPIRUN), "mpiexec")
        self.assertEqual(os.path.realpath(mpiexec), os.path.realpath(MPIRUN))

    def test_help(self):
        for opt in ("-h", "--help"):
            r = subprocess.run([MPIRUN, opt], capture_output=True, timeout=10)
            self.assertEqual(r.returncode, 0)
            self.assertIn(b"Usage: mpirun", r.stdout)


class Arguments(LauncherTest):
    def check_error(self, args, pattern, code=1):
        job = self.run_job(args)
        self.assertEqual(job.p.returncode, code, job.stderr)
        self.assert_one_report(job, pattern)
        self.assertEqual(job.stdout, "")
        self.assert_clean(job)

    def test_unknown_option(self):
        self.check_error(["--frobnicate", "true"], r"unknown option '--frobnicate'")
        self.check_error(["-n", "2", "-bogus", "true"], r"unknown option '-bogus'")

    def test_missing_program(self):
        self.check_error([], r"no program given")
        self.check_error(["-n", "2"], r"no program given")
        self.check_error(["-n", "2", "--"], r"no program given")

    def test_bad_np(self):
        for bad in (["-n", "0"], ["-n", "-3"], ["-np", "x"], ["-n", "2x"], ["-n"],
                    ["-n", "99999999999"]):
            self.check_error(bad + ["true"] if len(bad) > 1 else bad,
                             r"(invalid number of ranks|requires a number)")

    def test_bad_x(self):
        self.check_error(["-x"], r"-x requires")
        self.check_error(["-x", "=v", "true"], r"invalid environment variable")

    def test_program_not_found(self):
        self.check_error(["-n", "3", "no-such-program-lt"],
                         r"^mpirun: cannot execute 'no-such-program-lt': No such file or directory$",
                         127)
        self.check_error(["-n", "2", "/nonexistent/prog"],
                         r"^mpirun: cannot execute '/nonexistent/prog': No such file or directory$",
                         127)

    def test_program_not_executable(self):
        path = "/tmp/lt-nonexec-%d" % os.getpid()
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho should not run\n")
        os.chmod(path, 0o644)
        try:
            self.check_error(["-n", "2", path],
                             r"^mpirun: cannot execute '%s': Permission denied$" % path, 127)
        finally:
            os.unlink(path)
        self.check_error(["-n", "2", "/tmp"], r"^mpirun: cannot execute '/tmp': ", 127)

    def test_np_forms(self):
        for args in (["-n", "3"], ["-np", "3"], ["--np", "3"], ["-c", "3"], ["-n3"],
                     ["-np3"], ["--np=3"]):
            job = self.run_job(args + ["sh", "-c", "echo rank $PMI_RANK"])
            self.assertEqual(job.p.returncode, 0, (args, job.stderr))
            self.assertEqual(sorted(job.stdout.split("\n")[:-1]),
                             ["rank 0", "rank 1", "rank 2"], args)
            self.assert_clean(job)

    def test_double_dash_and_program_options(self):
        # options after the program belong to the program; "--" ends mpirun's options
        job = self.run_job(["-n", "1", "--", "sh", "-c", 'printf "%s %s\\n" "$0" "$1"', "-n", "--tag-output"])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(job.stdout, "-n --tag-output\n")
        job = self.run_job(["--oversubscribe", "-oversubscribe", "-n", "5", "true"])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assert_clean(job)


class Normal(LauncherTest):
    NPS = (1, 3, 4, 8)

    def test_mpi_hello(self):
        for np in self.NPS:
            job = self.run_job(["-n", str(np), PROG, "ok"])
            self.assertEqual(job.p.returncode, 0, job.stderr)
            self.assertEqual(sorted(job.stdout.splitlines()),
                             sorted("ready %d %d" % (r, np) for r in range(np)))
            self.assertEqual(sorted(job.stderr.splitlines()),
                             sorted("stderr of rank %d" % r for r in range(np)))
            self.assert_clean(job)

    def test_tag_output(self):
        for opt in ("--tag-output", "-tag-output"):
            for np in (1, 3):
                job = self.run_job([opt, "-n", str(np), PROG, "ok"])
                self.assertEqual(job.p.returncode, 0, job.stderr)
                self.assertEqual(sorted(job.stdout.splitlines()),
                                 sorted("[1,%d]<stdout>:ready %d %d" % (r, r, np)
                                        for r in range(np)))
                self.assertEqual(sorted(job.stderr.splitlines()),
                                 sorted("[1,%d]<stderr>:stderr of rank %d" % (r, r)
                                        for r in range(np)))
                self.assert_clean(job)

    def test_env(self):
        script = 'echo "$PMI_RANK/$PMI_SIZE A=$LT_A B=$LT_B C=${LT_C-unset} F=$LT_FWD"'
        job = self.run_job(["-n", "3", "-x", "LT_A=1", "-x", "LT_B=x y=z", "-x", "LT_FWD",
                            "-x", "LT_C", "sh", "-c", script],
                           env={"LT_FWD": "forwarded", "LT_B": "overridden"})
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(sorted(job.stdout.splitlines()),
                         ["%d/3 A=1 B=x y=z C=unset F=forwarded" % r for r in range(3)])
        self.assert_clean(job)

    def test_env_inherited_and_launcher_vars_replaced(self):
        # the whole environment is forwarded; stale PMI variables are not inherited
        job = self.run_job(["-n", "2", "sh", "-c", 'echo "$LT_INH $PMI_SIZE $PMI_FD"'],
                           env={"LT_INH": "inherited", "PMI_SIZE": "77", "PMI_FD": "9"})
        self.assertEqual(job.stdout.splitlines(), ["inherited 2 3"] * 2)
        self.assert_clean(job)

    def test_non_mpi_programs(self):
        for np in (1, 3):
            job = self.run_job(["-n", str(np), "hostname"])
            self.assertEqual(job.p.returncode, 0, job.stderr)
            self.assertEqual(job.stdout.splitlines(), [HOST] * np)
            self.assertEqual(job.mpirun_lines(), [])
            self.assert_clean(job)

    def test_only_fds_0_to_3(self):
        script = 'for f in $(seq 0 64); do [ -e /proc/$$/fd/$f ] && printf "%s " $f; done; echo'
        job = self.run_job(["-n", "2", "sh", "-c", script])
        self.assertEqual(job.stdout.splitlines(), ["0 1 2 3 "] * 2)

    def test_exit_status_first_nonzero(self):
        # rank 2 fails first with 5; the others would exit 7 later but are torn down
        script = 'if [ $PMI_RANK = 2 ]; then exit 5; fi; sleep 0.5; exit 7'
        for np in (3, 4):
            job = self.run_job(["-n", str(np), "sh", "-c", script])
            self.assertEqual(job.p.returncode, 5, job.stderr)
            self.assert_one_report(job, r"^mpirun: rank 2 \(pid \d+\) on host %s exited with "
                                        r"code 5$" % re.escape(HOST))
            self.assert_clean(job)
        # the only failure comes last, after the others finished normally
        job = self.run_job(["-n", "3", "sh", "-c",
                            'if [ $PMI_RANK = 0 ]; then sleep 0.3; exit 3; fi; exit 0'])
        self.assertEqual(job.p.returncode, 3)
        self.assert_one_report(job, r"rank 0 \(pid \d+\) on host .* exited with code 3$")
        self.assert_clean(job)

    def test_escaped_descendants_are_killed(self):
        # a descendant that left the rank's process group (setsid) does not outlive mpirun
        job = self.run_job(["-n", "2", "sh", "-c", "setsid sleep 300 & echo started"])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assert_clean(job)

    def test_rank_children_die_with_it(self):
        # a rank's background child lives in its process group and is killed at its exit
        job = self.run_job(["-n", "2", "sh", "-c", "sleep 300 & echo started"])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(job.stdout.splitlines(), ["started"] * 2)
        self.assert_clean(job)


class Stdin(LauncherTest):
    def test_stdin_to_rank0_only(self):
        for np in (1, 3, 4):
            data = b"line one\nline two\n"
            job = self.run_job(["-n", str(np), PROG, "stdin"], input_data=data)
            self.assertEqual(job.p.returncode, 0, job.stderr)
            got = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
                   for m in re.finditer(r"^stdin (\d+) (\d+) (\d+)$", job.stdout, re.M)}
            self.assertEqual(sorted(got), list(range(np)))
            self.assertEqual(got[0][0], len(data))
            for r in range(1, np):
                self.assertEqual(got[r][0], 0, "rank %d read stdin" % r)
            self.assert_clean(job)

    def test_large_stdin(self):
        data = os.urandom(1 << 20) + b"tail-without-newline"
        job = self.run_job(["-n", "3", "sh", "-c",
                            'if [ $PMI_RANK = 0 ]; then md5sum; else wc -c; fi'],
                           input_data=data)
        self.assertEqual(job.p.returncode, 0, job.stderr)
        import hashlib
        lines = sorted(job.stdout.splitlines())
        self.assertEqual(lines, sorted(["0", "0", hashlib.md5(data).hexdigest() + "  -"]))
        self.assert_clean(job)

    def test_rank0_ignores_stdin(self):
        # rank 0 never reads: mpirun must not block on a full pipe nor lose the job
        data = b"x" * (1 << 20)
        job = self.run_job(["-n", "2", "sh", "-c", "sleep 0.3; echo done"], input_data=data)
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(job.stdout.splitlines(), ["done", "done"])
        self.assert_clean(job)

    def test_stdin_from_devnull(self):
        job = self.run_job(["-n", "2", "sh", "-c", "cat; echo eof $PMI_RANK"])
        self.assertEqual(sorted(job.stdout.splitlines()), ["eof 0", "eof 1"])
        self.assert_clean(job)


class Output(LauncherTest):
    def test_lines_never_interleave(self):
        # 4 ranks write many long lines, each in several small pieces
        script = ("import os,sys\nr=os.environ['PMI_RANK']\n"
                  "for i in range(300):\n"
                  "    line=('%s:%d:'%(r,i))+r*3000+'\\n'\n"
                  "    for j in range(0,len(line),1000):\n"
                  "        os.write(1,line[j:j+1000].encode())\n")
        job = self.run_job(["-n", "4", sys.executable, "-c", script])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        lines = job.stdout.splitlines()
        self.assertEqual(len(lines), 1200)
        for l in lines:
            r, i, body = l.split(":")
            self.assertEqual(body, r * 3000, "interleaved line")
        self.assert_clean(job)

    def test_partial_and_long_lines(self):
        # a last line without newline is delivered; a >64 KiB line arrives intact
        job = self.run_job(["-n", "1", "sh", "-c", "printf 'no newline'"])
        self.assertEqual(job.stdout, "no newline")
        big = 200000
        job = self.run_job(["-n", "2", sys.executable, "-c",
                            "import sys; sys.stdout.write('y'*%d + '\\n')" % big])
        self.assertEqual(job.p.returncode, 0, job.stderr)
        self.assertEqual(job.stdout.count("y"), 2 * big)
        job = self.run_job(["--tag-output", "-n", "1", "sh", "-c", "printf 'part'"])
        self.assertEqual(job.stdout, "[1,0]<stdout>:part\n")
        self.assert_clean(job)

    def test_output_drained_after_failure(self):
        # the failing rank's last words and the other ranks' output are not lost
        script = ('echo "before $PMI_RANK"; echo "err $PMI_RANK" >&2; '
                  'if [ $PMI_RANK = 1 ]; then kill -SEGV $$; fi; sleep 30')
        job = self.run_job(["-n", "3", "sh", "-c", script])
        self.assertEqual(job.p.returncode, 128 + 11)
        self.assertIn("before 1", job.stdout)
        self.assertIn("err 1", job.stderr)
        errlines = job.stderr.splitlines()
        self.assertLess(errlines.index("err 1"),
                        [i for i, l in enumerate(errlines) if l.startswith("mpirun:")][0])
        self.assert_clean(job)


class PmiProtocol(LauncherTest):
    """The PMI server against a pure-Python client (pmi_client.py)."""

    def test_full_protocol(self):
        for np in (1, 3, 4, 8):
            job = self.run_job(["-n", str(np), sys.executable, PMI_CLIENT, "full"])
            self.assertEqual(job.p.returncode, 0, job.stdout + job.stderr)
            oks = re.findall(r"^ok (\d+) kvs=(\S+)$", job.stdout, re.M)
            self.assertEqual(sorted(int(r) for r, _ in oks), list(range(np)), job.stdout)
            kvs = {k for _, k in oks}
            self.assertEqual(len(kvs), 1)
            self.assertRegex(kvs.pop(), r"^kvs_%d_[0-9a-f]{8}$" % job.p.pid)
            self.assertEqual(job.mpirun_lines(), [])
            self.assert_clean(job)

    def test_finalize_then_exit_is_normal(self):
        # exiting right after sending finalize (not waiting for the ack) is a clean exit
        for scenario in ("finalize_exit", "finalize_noread"):
            job = self.run_job(["-n", "8", sys.executable, PMI_CLIENT, scenario])
            self.assertEqual(job.p.returncode, 0, job.stderr)
            self.assertEqual(job.mpirun_lines(), [])
            self.assert_clean(job)

    def test_kvsname_unique(self):
        names = set()
        for _ in range(3):
            job = self.run_job(["-n", "1", sys.executable, PMI_CLIENT, "full"])
            names.add(re.search(r"kvs=(\S+)", job.stdout).group(1))
        self.assertEqual(len(names), 3)


class PmiErrors(LauncherTest):
    """Protocol violations end the job with one report naming rank and host."""

    def check(self, scenario, np, pattern, code, target=1):
        job = self.run_job(["-n", str(np), sys.executable, PMI_CLIENT, scenario, str(target)])
        self.assertEqual(job.p.returncode, code, job.stdout + job.stderr)
        self.assert_one_report(job, pattern)
        self.assert_fast(job, job.event_time())
        self.assert_clean(job)
        return job

    def invalid(self, scenario, text, np=3):
        self.check(scenario, np, r"^mpirun: rank 1 on host %s sent an invalid PMI command: %s"
                   % (re.escape(HOST), text), 1)

    def test_malformed(self):
        self.invalid("malformed", "this is not pmi$")

    def test_unknown_command(self):
        self.invalid("unknown", r"cmd=frobnicate a=b$", np=4)

    def test_oversize_line(self):
        self.invalid("oversize", r"cmd=put key=x+\.\.\. \(line longer than 4096 bytes\)$")
        self.invalid("oversize_nl", r"cmd=put key=x+\.\.\. \(line longer than 4096 bytes\)$")

    def test_double_barrier_in(self):
        self.invalid("double_barrier", r"cmd=barrier_in$")

    def test_bad_version(self):
        self.check("badversion", 3, r"^mpirun: rank 1 \(pid \d+\) on host %s requested "
                   r"unsupported PMI version 2" % re.escape(HOST), 1)

    def test_abort(self):
        self.check("abort", 3, r"^mpirun: rank 1 \(pid \d+\) on host %s aborted the job with "
                   r"exit code 7: python rank says goodbye$" % re.escape(HOST), 7)
        self.check("abort_nomsg", 4, r"^mpirun: rank 0 \(pid \d+\) on host %s aborted the job "
                   r"with exit code 300$" % re.escape(HOST), 300 & 0xff, target=0)

    def test_init_then_exit0(self):
        self.check("noinit_exit0", 3, r"^mpirun: rank 1 \(pid \d+\) on host %s exited with code 0 "
                   r"without calling MPI_Finalize$" % re.escape(HOST), 1)

    def test_shm_safety_net(self):
        # a crashed rank's /dev/shm/metampi.<kvsname>.* file is removed by mpirun
        job = self.check("shm", 3, r"rank 1 \(pid \d+\) on host .* was killed by signal 9", 137)
        kvs = re.search(r"^kvs 1 (\S+)$", job.stdout, re.M).group(1)
        self.assertFalse(os.path.exists("/dev/shm/metampi.%s.crashed" % kvs))


class Failures(LauncherTest):
    """MPI programs (lt_prog) that fail in every way; the others block in MPI_Recv."""

    def check(self, np, mode, target, code, pattern, exit_status):
        job = self.run_job(["-n", str(np), PROG, mode, str(target), str(code)])
        self.assertEqual(job.p.returncode, exit_status, job.stdout + job.stderr)
        self.assert_one_report(job, pattern % {"rank": target, "host": re.escape(HOST)})
        self.assert_fast(job, job.event_time())
        self.assert_clean(job)

    def test_segv(self):
        for np, target in ((1, 0), (3, 1), (4, 3), (8, 5)):
            self.check(np, "segv", target, 0, r"^mpirun: rank %(rank)d \(pid \d+\) on host "
                       r"%(host)s was killed by signal 11 \(Segmentation fault\)", 139)

    def test_sigkill(self):
        for np, target in ((1, 0), (3, 2), (8, 0)):
            self.check(np, "kill", target, 0, r"^mpirun: rank %(rank)d \(pid \d+\) on host "
                       r"%(host)s was killed by signal 9 \(Killed\)", 137)

    def test_exit_without_finalize_code0(self):
        for np, target in ((1, 0), (3, 1), (4, 2)):
            self.check(np, "exit", target, 0, r"^mpirun: rank %(rank)d \(pid \d+\) on host "
                       r"%(host)s exited with code 0 without calling MPI_Finalize$", 1)

    def test_exit_without_finalize_nonzero(self):
        for np, target in ((3, 0), (8, 7)):
            self.check(np, "exit", target, 3, r"^mpirun: rank %(rank)d \(pid \d+\) on host "
                       r"%(host)s exited with code 3 without calling MPI_Finalize$", 3)

    def test_exit_nonzero_after_finalize(self):
        for np, target in ((1, 0), (3, 1), (4, 0)):
            self.check(np, "exit_after_finalize", target, 4, r"^mpirun: rank %(rank)d \(pid \d+\) "
                       r"on host %(host)s exited with code 4$", 4)

    def test_exit_before_init(self):
        # the others wait in MPI_Init's barrier for a rank that will never come
        for np, target in ((2, 1), (3, 0), (8, 6)):
            self.check(np, "exit_before_init", target, 0, r"^mpirun: rank %(rank)d \(pid \d+\) "
                       r"on host %(host)s exited without calling MPI_Init or MPI_Finalize while "
                       r"the other ranks wait for it$", 1)

    def test_mpi_abort(self):
        for np, target in ((1, 0), (3, 2), (4, 1), (8, 3)):
            self.check(np, "abort", target, 5, r"^mpirun: rank %(rank)d \(pid \d+\) on host "
                       r"%(host)s aborted the job with exit code 5", 5)


class Signals(LauncherTest):
    def signal_job(self, np, sig):
        job = Job(["-n", str(np), PROG, "block"])
        job.wait_lines(rb"^ready ", np)
        time.sleep(0.2)  # let the ranks enter MPI_Recv
        t_event = time.monotonic()
        job.p.send_signal(sig)
        job.wait(30)
        return job, t_event

    def check_forwarded(self, sig, name):
        for np in (1, 3, 4):
            job, t_event = self.signal_job(np, sig)
            self.assertEqual(job.p.returncode, 128 + sig, job.stderr)
            self.assert_one_report(job, r"^mpirun: received signal %d \(%s\); terminating the job$"
                                   % (sig, name))
            self.assert_fast(job, t_event)
            self.assert_clean(job)

    def test_sigint(self):
        self.check_forwarded(signal.SIGINT, "Interrupt")

    def test_sigterm(self):
        self.check_forwarded(signal.SIGTERM, "Terminated")

    def test_sighup(self):
        self.check_forwarded(signal.SIGHUP, "Hangup")

    def test_ranks_ignoring_sigterm_are_killed(self):
        script = "trap '' TERM INT; echo ready; while :; do sleep 0.05; done"
        job = Job(["-n", "3", "sh", "-c", script])
        job.wait_lines(rb"^ready", 3)
        t_event = time.monotonic()
        job.p.send_signal(signal.SIGTERM)
        job.wait(30)
        self.assertEqual(job.p.returncode, 128 + signal.SIGTERM)
        took = job.t_exit - t_event
        self.assertGreater(took, 0.8, "SIGKILL came before the grace period")
        self.assertLess(took, TEARDOWN_LIMIT)
        self.assert_clean(job)

    def test_mpirun_sigkilled(self):
        # nobody can clean up after SIGKILL: the ranks must die by PR_SET_PDEATHSIG
        for np in (1, 3, 8):
            job, t_event = self.signal_job(np, signal.SIGKILL)
            self.assertEqual(job.p.returncode, -signal.SIGKILL)
            deadline = t_event + TEARDOWN_LIMIT
            while procs_with_marker(job.marker) and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertEqual(procs_with_marker(job.marker), [],
                             "ranks survived mpirun's SIGKILL")
            # the dead ranks were reparented to us (subreaper): reap, then check the rest
            time.sleep(0.1)
            while True:
                try:
                    if os.waitpid(-1, os.WNOHANG)[0] == 0:
                        break
                except ChildProcessError:
                    break
            self.assert_clean(job)


def parse_cpu_list(text):
    """"0-2,5" -> {0, 1, 2, 5}"""
    cpus = set()
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def format_cpu_list(cpus):
    """{0, 1, 2, 5} -> "0-2,5" (the kernel's and hwloc's list format)"""
    out, run = [], []
    for c in sorted(cpus):
        if run and c != run[-1] + 1:
            out.append(run)
            run = []
        run.append(c)
    if run:
        out.append(run)
    return ",".join(str(r[0]) if len(r) == 1 else "%d-%d" % (r[0], r[-1]) for r in out)


def topology(allowed):
    """The packages and cores usable inside the CPU set `allowed`, from sysfs, in hwloc's
    logical order (by first CPU, packages first): a list of packages, each a list of cores,
    each a sorted list of CPUs."""
    def read(cpu, name):
        with open("/sys/devices/system/cpu/cpu%d/topology/%s" % (cpu, name)) as f:
            return f.read().strip()
    pkgs = {}
    for cpu in allowed:
        pkg = read(cpu, "physical_package_id")
        core = frozenset(parse_cpu_list(read(cpu, "thread_siblings_list")) & allowed)
        pkgs.setdefault(pkg, set()).add(core)
    ordered = sorted((sorted(sorted(c) for c in cores) for cores in pkgs.values()),
                     key=lambda cores: min(cores[0]))
    return ordered


class Binding(LauncherTest):
    """--bind-to, the default binding policy, --report-bindings and METAMPI_BIND."""

    def setUp(self):
        self.allowed = os.sched_getaffinity(0)
        self.pkgs = topology(self.allowed)
        self.cores = [set(c) for cores in self.pkgs for c in cores]
        self.hwthreads = [{c} for cores in self.pkgs for core in cores for c in core]
        self.ncores = len(self.cores)

    def cpus_job(self, args, np, env=None, affinity=None):
        """Runs lt_prog cpus; returns the job and {rank: (set of CPUs, METAMPI_BIND)}."""
        job = self.run_job(args + ["-n", str(np), PROG, "cpus"], env=env, affinity=affinity)
        self.assertEqual(job.p.returncode, 0, job.stderr)
        got = {int(m.group(1)): (parse_cpu_list(m.group(2)), m.group(3))
               for m in re.finditer(r"^cpus (\d+) (\S+) (\S+)$", job.stdout, re.M)}
        self.assertEqual(sorted(got), list(range(np)), job.stdout)
        self.assert_clean(job)
        return job, got

    def assert_bound(self, got, units, policy):
        for r, (cpus, bind) in got.items():
            self.assertEqual(cpus, units[r % len(units)], "rank %d" % r)
            self.assertEqual(bind, policy, "rank %d" % r)

    def assert_unbound(self, got, allowed=None):
        for r, (cpus, bind) in got.items():
            self.assertEqual(cpus, allowed or self.allowed, "rank %d" % r)
            self.assertEqual(bind, "none", "rank %d" % r)

    def check_error(self, args, pattern, affinity=None):
        job = self.run_job(args + [PROG, "cpus"], affinity=affinity)
        self.assertEqual(job.p.returncode, 1, job.stderr)
        self.assert_one_report(job, pattern)
        self.assertEqual(job.stdout, "")
        self.assert_clean(job)

    def test_default_binds_to_cores_when_ranks_fit(self):
        for np in (1, 2):
            if np > self.ncores:
                self.skipTest("needs %d cores, have %d" % (np, self.ncores))
            job, got = self.cpus_job([], np)
            self.assert_bound(got, self.cores, "core")
            self.assertEqual(len({frozenset(c) for c, _ in got.values()}), np, "cores shared")
            self.assertEqual(job.mpirun_lines(), [])

    def test_default_unbound_when_oversubscribed(self):
        for np in sorted({3, 4, 8, self.ncores + 1}):
            if np <= self.ncores:
                continue
            job, got = self.cpus_job([], np)
            self.assert_unbound(got)
            self.assertEqual(job.mpirun_lines(), [])

    def test_bind_to_none(self):
        # a stale METAMPI_BIND in mpirun's environment is not inherited
        for np in (1, 2):
            _, got = self.cpus_job(["--bind-to", "none"], np, env={"METAMPI_BIND": "core"})
            self.assert_unbound(got)

    def test_bind_to_core_forms(self):
        for args in (["--bind-to", "core"], ["-bind-to", "core"], ["--bind-to=core"],
                     ["-bind-to=core"], ["--bind-to", "none", "--bind-to", "core"]):
            _, got = self.cpus_job(args, 1)
            self.assert_bound(got, self.cores, "core")

    def test_bind_to_core_too_many_ranks(self):
        np = self.ncores + 1
        msg = (r"^mpirun: --bind-to core: %d ranks but only %d cores? available \(use "
               r"--bind-to none, or --oversubscribe to bind the ranks round-robin\)$"
               % (np, self.ncores))
        self.check_error(["--bind-to", "core", "-n", str(np)], msg)
        self.check_error(["-n", str(np), "--bind-to=core"], msg)

    def test_bind_to_core_oversubscribe_round_robin(self):
        np = max(4, 2 * self.ncores)
        _, got = self.cpus_job(["--bind-to", "core", "--oversubscribe"], np)
        self.assert_bound(got, self.cores, "core")

    def test_bind_to_hwthread(self):
        np = len(self.hwthreads)
        _, got = self.cpus_job(["--bind-to", "hwthread"], np)
        self.assert_bound(got, self.hwthreads, "hwthread")
        self.check_error(["--bind-to", "hwthread", "-n", str(np + 1)],
                         r"^mpirun: --bind-to hwthread: %d ranks but only %d hardware threads? "
                         r"available" % (np + 1, np))

    def test_bind_to_package(self):
        # each rank gets the package of the core it is placed on; the capacity is the cores
        pkg_of_core = [set(sum(cores, [])) for cores in self.pkgs for _ in cores]
        for opt in ("package", "socket"):
            _, got = self.cpus_job(["--bind-to", opt], self.ncores)
            self.assert_bound(got, pkg_of_core, "package")
        self.check_error(["--bind-to", "socket", "-n", str(self.ncores + 1)],
                         r"^mpirun: --bind-to package: %d ranks but only %d cores? available"
                         % (self.ncores + 1, self.ncores))

    def test_invalid_bind_to(self):
        valid = r" \(valid values: none, core, hwthread, package, socket\)$"
        self.check_error(["--bind-to", "foo"], r"^mpirun: invalid --bind-to value 'foo'" + valid)
        self.check_error(["--bind-to=l3cache"], r"^mpirun: invalid --bind-to value 'l3cache'" + valid)
        self.check_error(["--bind-to="], r"^mpirun: invalid --bind-to value ''" + valid)
        job = self.run_job(["--bind-to"])
        self.assertEqual(job.p.returncode, 1)
        self.assert_one_report(job, r"^mpirun: option --bind-to requires a value")

    def test_restricted_cpuset(self):
        # mpirun started on one CPU: that CPU is the only core it may bind to
        cpu = max(self.allowed)
        _, got = self.cpus_job([], 1, affinity={cpu})
        self.assert_bound(got, [{cpu}], "core")
        _, got = self.cpus_job([], 2, affinity={cpu})
        self.assert_unbound(got, {cpu})
        self.check_error(["--bind-to", "core", "-n", "2"],
                         r"^mpirun: --bind-to core: 2 ranks but only 1 core available",
                         affinity={cpu})
        job = self.run_job(["--report-bindings", "-n", "1", "true"], affinity={cpu})
        self.assertEqual(job.stderr, "[%s:%d] rank 0 bound to core 0 (cpus %d): [B]\n"
                         % (HOST, job.p.pid, cpu))

    def expected_report(self, job, np, units, what):
        lines = []
        for r in range(np):
            if units is None:
                lines.append("[%s:%d] rank %d not bound" % (HOST, job.p.pid, r))
                continue
            i = r % len(units)
            cpus = units[i]
            cmap = "".join("[" + "/".join("".join("B" if c in cpus else "." for c in core)
                                          for core in cores) + "]" for cores in self.pkgs)
            lines.append("[%s:%d] rank %d bound to %s %d (cpus %s): %s"
                         % (HOST, job.p.pid, r, what, i, format_cpu_list(cpus), cmap))
        return lines

    def test_report_bindings(self):
        cases = [([], min(2, self.ncores), self.cores, "core"),
                 ([], self.ncores + 1, None, None),
                 (["--bind-to", "none"], 2, None, None),
                 (["--bind-to", "core", "--oversubscribe"], self.ncores + 2, self.cores, "core"),
                 (["--bind-to", "hwthread"], len(self.hwthreads), self.hwthreads, "hwthread")]
        for args, np, units, what in cases:
            job = self.run_job(["--report-bindings"] + args + ["-n", str(np), PROG, "ok"])
            self.assertEqual(job.p.returncode, 0, job.stderr)
            lines = job.stderr.splitlines()
            # all of the report comes before any output of a rank
            self.assertEqual(lines[:np], self.expected_report(job, np, units, what), args)
            self.assertEqual(sorted(lines[np:]), sorted("stderr of rank %d" % r
                                                        for r in range(np)))
            self.assert_clean(job)
        # without the option nothing is reported
        job = self.run_job(["-n", "1", PROG, "ok"])
        self.assertEqual(job.stderr, "stderr of rank 0\n")

    def refusing_env(self):
        asan = os.environ.get("ASAN_OPTIONS", "")
        return {"LD_PRELOAD": NOAFFINITY,
                "ASAN_OPTIONS": (asan + ":" if asan else "") + "verify_asan_link_order=0"}

    def test_refused_default_binding_runs_unbound(self):
        np = min(2, self.ncores)
        job, got = self.cpus_job([], np, env=self.refusing_env())
        self.assert_unbound(got)
        self.assertEqual(job.mpirun_lines(),
                         ["mpirun: warning: cannot bind rank 0 to core 0 (cpus %s): Operation not "
                          "permitted; the job runs unbound" % format_cpu_list(self.cores[0])])

    def test_refused_explicit_binding_is_an_error(self):
        job = self.run_job(["--bind-to", "core", "-n", "1", PROG, "cpus"],
                           env=self.refusing_env())
        self.assertEqual(job.p.returncode, 1, job.stderr)
        self.assert_one_report(job, r"^mpirun: cannot bind rank 0 to core 0 \(cpus %s\): "
                               r"Operation not permitted$" % format_cpu_list(self.cores[0]))
        self.assertEqual(job.stdout, "")
        self.assert_clean(job)


def main():
    global MPIRUN, PROG, NOAFFINITY
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--noaffinity", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN = os.path.abspath(args.mpirun)
    PROG = os.path.abspath(args.prog)
    NOAFFINITY = os.path.abspath(args.noaffinity)
    become_subreaper()
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
