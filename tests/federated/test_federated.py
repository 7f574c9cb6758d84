#!/usr/bin/env python3
"""Scenario tests of the federated start on one machine (standard library only): a real
metampi-rendezvous and one real `mpirun --rendezvous` per site, each started on its own (the
way each site's batch system would), with probe.py as the ranks (PMI only, no MPI: what each
rank gets from its part). The sites' "hosts" are names run on this machine by
same_machine_agent.sh, so no root is needed; each site's gateway listens on a free port of
127.0.0.1 (Start.test_mpi_program runs an MPI program through them). The end-to-end runs on
emulated sites are run_federated.sh and test_federated_sites.py.

Run: test_federated.py --bin BUILD/bin --tests-bin BUILD/tests/bin [unittest args, e.g. -v Start]

Every process of a scenario carries a marker in its environment; after each test no process
with it may be left (server, parts, helpers, ranks).
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
import uuid

BIN = None
TESTS_BIN = None
HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = os.path.join(HERE, "probe.py")
AGENT = os.path.join(HERE, "same_machine_agent.sh") + " {host}"

# Every site's gateway listens on a port of its own on 127.0.0.1 (free ports, per test).
DESCRIPTION = """\
[site alpha]
hosts = a1:2, a2:1
wan = 127.0.0.1:{0}
[site beta]
hosts = b1:2
wan = 127.0.0.1:{1}
[site gamma]
hosts = g1:1
wan = 127.0.0.1:{2}
"""


def free_ports(n):
    import socket
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def procs_with_marker(marker):
    needle = ("RDV_MARKER=" + marker).encode()
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


class Proc:
    """A process of the scenario, its output collected in a file."""

    def __init__(self, test, argv, env, name):
        self.name = name
        self.out = open(os.path.join(test.dir, name + ".out"), "w+")
        self.p = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT, env=env,
                                  cwd=test.dir)
        self.t0 = time.monotonic()

    def wait(self, timeout=40):
        rc = self.p.wait(timeout=timeout)
        self.took = time.monotonic() - self.t0
        self.out.seek(0)
        self.text = self.out.read()
        self.out.close()
        return rc


class FederatedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rdv")
        self.dir = self.tmp.name
        self.marker = uuid.uuid4().hex
        self.env = dict(os.environ, RDV_MARKER=self.marker)
        self.env.pop("METAMPI_JOB_KEY", None)
        self.procs = []
        self.ports = free_ports(4)
        self.description = DESCRIPTION.format(*self.ports)
        self.mc = self.write("sites.ini", self.description)
        self.key = os.path.join(self.dir, "job.key")
        r = subprocess.run([os.path.join(BIN, "metampi-rendezvous"), "--make-key", self.key],
                           capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.stat(self.key).st_mode & 0o777, 0o600)

    def tearDown(self):
        for p in self.procs:
            if p.p.poll() is None:
                p.p.kill()
                p.p.wait()
        deadline = time.monotonic() + 5
        while procs_with_marker(self.marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = procs_with_marker(self.marker)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.tmp.cleanup()
        self.assertEqual(left, [], "processes of the scenario left behind")

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def server(self, timeout=20, job="job1", mc=None, extra=()):
        argv = [os.path.join(BIN, "metampi-rendezvous"), "--listen", "127.0.0.1:0",
                "--metacomputer", mc or self.mc, "--job", job, "--key-file", self.key,
                "--timeout", str(timeout)] + list(extra)
        s = Proc(self, argv, self.env, "server")
        self.procs.append(s)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            s.out.flush()
            with open(s.out.name) as f:
                m = re.search(r"listening on (127\.0\.0\.1:\d+)", f.read())
            if m:
                self.addr = m.group(1)
                return s
            self.assertIsNone(s.p.poll(), "the server ended before listening")
            time.sleep(0.05)
        self.fail("the server did not say where it listens")

    def part(self, site, n=None, job="job1", key=None, mc=None, args=(), prog=(PROBE,),
             name=None, env=None):
        argv = [os.path.join(BIN, "mpirun"), "--metacomputer", mc or self.mc, "--site", site,
                "--rendezvous", self.addr, "--job", job, "--launch-agent", AGENT]
        if key is not False:
            argv += ["--key-file", key or self.key]
        if n:
            argv += ["-n", str(n)]
        p = Proc(self, argv + list(args) + list(prog), env or self.env, name or "part-" + site)
        self.procs.append(p)
        return p

    def probes(self, text):
        """rank -> the fields of its probe line."""
        out = {}
        for line in text.splitlines():
            if line.startswith("probe rank="):
                f = dict(tok.split("=", 1) for tok in line.split()[1:])
                out[int(f["rank"])] = f
        return out


class Start(FederatedTest):
    def test_sites_started_separately(self):
        """Every site joins, in another order than the description's and seconds apart: the
        parts run the world's ranks with the same layout, each part's key-value space its
        own, and the server exits 0."""
        s = self.server()
        beta = self.part("beta")
        time.sleep(1.5)
        gamma = self.part("gamma")
        time.sleep(1.5)
        alpha = self.part("alpha")
        for p in (alpha, beta, gamma):
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        self.assertIn("all 3 sites joined: job job1 starts with 6 ranks (alpha ranks 0-2, "
                      "beta ranks 3-4, gamma rank 5)", s.text)
        want = {"alpha": (range(0, 3), "0-2"), "beta": (range(3, 5), "3-4"),
                "gamma": (range(5, 6), "5")}
        common = None
        for p, site in ((alpha, "alpha"), (beta, "beta"), (gamma, "gamma")):
            probes = self.probes(p.text)
            self.assertEqual(sorted(probes), list(want[site][0]), p.text)
            for r, f in probes.items():
                self.assertEqual(f["size"], "6")
                self.assertEqual(f["pmi_size"], "6")
                self.assertEqual(f["seen"], want[site][1], "the PMI space is the part's own")
                self.assertEqual(f["names"], "alpha,beta,gamma")
                self.assertEqual(f["rank_sites"], "0*3,1*2,2")
                self.assertEqual(f["mapping"], "(vector,(0,1,2),(1,1,1),(2,1,2),(3,1,1))")
                shared = (f["key"], f["mapping"], f["sites"], f["names"], f["rank_sites"])
                common = common or shared
                self.assertEqual(shared, common, "every part has the same layout and key")
            hosts = sorted(f["host"] for f in probes.values())
            self.assertEqual(hosts, {"alpha": ["a1", "a1", "a2"], "beta": ["b1", "b1"],
                                     "gamma": ["g1"]}[site])

    def test_rank_counts_and_placement(self):
        """-n at each site sets its rank count; --map-by node deals them over its hosts."""
        s = self.server()
        alpha = self.part("alpha", n=2, args=("--map-by", "node"))
        beta = self.part("beta", n=1)
        gamma = self.part("gamma", n=3, args=("--oversubscribe",))
        for p in (alpha, beta, gamma):
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        a = self.probes(alpha.text)
        self.assertEqual((a[0]["host"], a[1]["host"]), ("a1", "a2"))
        self.assertEqual(sorted(self.probes(beta.text)), [2])
        self.assertEqual(sorted(self.probes(gamma.text)), [3, 4, 5])
        self.assertEqual(a[0]["rank_sites"], "0*2,1,2*3")
        self.assertEqual(a[0]["mapping"], "(vector,(0,3,1),(3,1,3))")

    def test_mpi_program(self):
        """An MPI program across the three sites (gateways on this machine's loopback): every
        rank sees its site, messages flow within and between sites, and it finalizes."""
        s = self.server()
        self.env.update(EXPECT_SIZE="6", EXPECT_SITE_SIZES="3,2,1")
        prog = (os.path.join(TESTS_BIN, "test_sites"),)
        parts = [self.part("gamma", prog=prog), self.part("alpha", prog=prog),
                 self.part("beta", prog=prog)]
        for p in parts:
            self.assertEqual(p.wait(timeout=90), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        self.assertIn("sites: 3 site(s) of 6 ranks: ok", parts[1].text)

    def test_key_from_environment(self):
        """METAMPI_JOB_KEY instead of --key-file, for the server and a part."""
        with open(self.key) as f:
            hexkey = f.read().strip()
        self.env["METAMPI_JOB_KEY"] = hexkey
        s = Proc(self, [os.path.join(BIN, "metampi-rendezvous"), "--listen", "127.0.0.1:0",
                        "--metacomputer", self.mc, "--job", "job1", "--timeout", "20"],
                 self.env, "server")
        self.procs.append(s)
        time.sleep(0.5)
        with open(s.out.name) as f:
            self.addr = re.search(r"listening on (127\.0\.0\.1:\d+)", f.read()).group(1)
        parts = [self.part("alpha", key=False), self.part("beta"), self.part("gamma", key=False)]
        for p in parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)


class Missing(FederatedTest):
    def test_site_never_arrives(self):
        """gamma never comes: every waiting part ends within the timeout with a message naming
        it, nothing of the job is left running, and the server exits 1."""
        s = self.server(timeout=3)
        alpha = self.part("alpha")
        time.sleep(1)
        beta = self.part("beta")
        for p in (alpha, beta):
            self.assertEqual(p.wait(), 1, p.text)
            self.assertIn("mpirun: site %s of job job1: the rendezvous server at %s called the "
                          "job off: site gamma did not join within 3 s; nothing was started"
                          % ("alpha" if p is alpha else "beta", self.addr), p.text)
            self.assertNotIn("probe", p.text)
        # launch progress: the first to join hears which sites it waits for
        self.assertIn("mpirun: site alpha of job job1: joined the rendezvous; waiting up to 3 s "
                      "for beta, gamma", alpha.text)
        self.assertIn("mpirun: site beta of job job1: joined the rendezvous; waiting up to ",
                      beta.text)
        self.assertIn(" for gamma\n", beta.text)
        self.assertLess(alpha.took, 3 + 5)
        self.assertEqual(s.wait(), 1, s.text)
        self.assertIn("site gamma did not join within 3 s; job job1 is called off", s.text)

    def test_server_stopped(self):
        """SIGTERM to the server calls the job off for the waiting parts."""
        s = self.server()
        alpha = self.part("alpha")
        time.sleep(1)
        s.p.send_signal(signal.SIGTERM)
        self.assertEqual(alpha.wait(), 1, alpha.text)
        self.assertIn("called the job off: the rendezvous server was stopped by signal 15",
                      alpha.text)
        self.assertEqual(s.wait(), 1)

    def test_part_interrupted(self):
        """A part stopped while it waits ends at once (nothing was started); its site may
        join again later."""
        s = self.server()
        beta = self.part("beta")
        time.sleep(1)
        beta.p.send_signal(signal.SIGTERM)
        self.assertEqual(beta.wait(), 128 + signal.SIGTERM, beta.text)
        self.assertIn("received signal 15 (Terminated) while site beta of job job1 waited at "
                      "the rendezvous; nothing was started", beta.text)
        parts = [self.part("alpha"), self.part("beta", name="part-beta2"), self.part("gamma")]
        for p in parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        self.assertIn("site beta (127.0.0.1:", s.text)
        self.assertIn("left before the job started", s.text)

    def test_no_server(self):
        """Nobody listens at the address: the part retries, then names the address (the wait
        is cut short here by SIGTERM after a few retries to keep the test fast)."""
        self.addr = "127.0.0.1:1"
        p = self.part("alpha")
        time.sleep(1.5)
        self.assertIsNone(p.p.poll(), "the part gave up at once instead of retrying")
        p.p.send_signal(signal.SIGTERM)
        self.assertEqual(p.wait(), 128 + signal.SIGTERM, p.text)


class Refused(FederatedTest):
    def check_refused(self, p, why, server_text=None):
        self.assertEqual(p.wait(), 1, p.text)
        self.assertIn(why, p.text)
        self.assertNotIn("probe", p.text)

    def run_rest(self, s, sites=("alpha", "beta", "gamma")):
        parts = [self.part(x, name="ok-" + x) for x in sites]
        for p in parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)

    def test_wrong_key(self):
        s = self.server()
        other = self.write("other.key", "ab" * 32 + "\n", 0o600)
        p = self.part("alpha", key=other)
        self.check_refused(p, "mpirun: site alpha of job job1: the rendezvous server at %s "
                              "refused this job key (the part's key differs from the server's); "
                              "nothing was started" % self.addr)
        self.run_rest(s)
        self.assertIn("wrong job key", s.text)

    def test_garbage_connection(self):
        """Bytes that are no part's: dropped; the job still starts."""
        import socket
        s = self.server()
        alpha = self.part("alpha")
        host, port = self.addr.split(":")
        c = socket.create_connection((host, int(port)), timeout=10)
        c.sendall(b"GET / HTTP/1.0\r\n\r\n" + b"x" * 100)
        data = b""
        while True:
            chunk = c.recv(4096)
            if not chunk:
                break
            data += chunk
        c.close()
        parts = [self.part("beta"), self.part("gamma")]
        for p in [alpha] + parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        self.assertIn("not a metampi part (bad hello)", s.text)

    def test_duplicate_site(self):
        s = self.server()
        first = self.part("beta")
        time.sleep(1)
        second = self.part("beta", name="part-beta2")
        self.check_refused(second, "refused this part: site 'beta' has already joined (from "
                                   "127.0.0.1:")
        parts = [self.part("alpha"), self.part("gamma")]
        for p in [first] + parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)

    def test_other_wan_settings(self):
        """The gateways of all sites must agree on the [wan] settings."""
        s = self.server()
        mc2 = self.write("streams.ini", "[wan]\nstreams = 2\n" + self.description)
        p = self.part("alpha", mc=mc2)
        self.check_refused(p, "refused this part: the part's description has the [wan] "
                              "settings 'streams=2 compression=auto congestion=auto encrypt=on "
                              "outage=60', the server's 'streams=default compression=auto "
                              "congestion=auto encrypt=on outage=60'")
        self.run_rest(s)

    def test_other_encrypt(self):
        """A gateway with TLS cannot talk to one without: [wan] encrypt must agree too."""
        s = self.server()
        mc2 = self.write("plain.ini", "[wan]\nencrypt = off\n" + self.description)
        p = self.part("alpha", mc=mc2)
        self.check_refused(p, "refused this part: the part's description has the [wan] "
                              "settings 'streams=default compression=auto congestion=auto "
                              "encrypt=off outage=60', the server's 'streams=default "
                              "compression=auto congestion=auto encrypt=on outage=60'")
        self.run_rest(s)

    def test_other_job(self):
        s = self.server()
        p = self.part("alpha", job="job2")
        self.check_refused(p, "refused this part: this rendezvous server is for job 'job1', "
                              "not 'job2'")
        self.run_rest(s)

    def test_other_description(self):
        """A part whose description lists other sites (here one more, delta) is refused,
        and so is a site the server does not know."""
        s = self.server()
        mc2 = self.write("four.ini", self.description + "[site delta]\nhosts = d1\n"
                         "wan = 127.0.0.1:%d\n" % self.ports[3])
        p = self.part("alpha", mc=mc2)
        self.check_refused(p, "refused this part: the part's description has the sites "
                              "alpha,beta,gamma,delta, the server's has alpha,beta,gamma")
        p = self.part("delta", mc=mc2, name="part-delta")
        self.check_refused(p, "refused this part: site 'delta' is not in the server's "
                              "description (sites alpha,beta,gamma)")
        self.run_rest(s)


class Options(FederatedTest):
    """Errors found before anything connects: one line, status 1 (mpirun) or 2 (server)."""

    def mpirun(self, *args):
        r = subprocess.run([os.path.join(BIN, "mpirun")] + list(args) + [PROBE],
                           capture_output=True, text=True, timeout=20, env=self.env)
        return r.returncode, r.stderr.strip()

    def server_run(self, *args):
        r = subprocess.run([os.path.join(BIN, "metampi-rendezvous")] + list(args),
                           capture_output=True, text=True, timeout=20, env=self.env)
        return r.returncode, r.stderr.strip()

    def test_mpirun_errors(self):
        base = ["--metacomputer", self.mc, "--key-file", self.key]
        cases = [
            (base + ["--site", "alpha", "--rendezvous", "127.0.0.1:9", "--job", "j",
                     "--direct-wan"],
             "mpirun: --direct-wan cannot be used with --rendezvous: each site's part has its "
             "own key-value space"),
            (base + ["--site", "alpha", "--rendezvous", "127.0.0.1:9"],
             "mpirun: --rendezvous needs --job ID (the server's --job)"),
            (base + ["--rendezvous", "127.0.0.1:9", "--job", "j"],
             "mpirun: --rendezvous needs --site NAME (the site this mpirun starts)"),
            (["--site", "alpha", "--rendezvous", "127.0.0.1:9", "--job", "j"],
             "mpirun: --rendezvous needs --metacomputer FILE"),
            (base + ["--site", "alpha", "--job", "j"],
             "mpirun: --site applies to one site of a federated job: give --rendezvous "
             "HOST:PORT"),
            (base + ["--site", "delta", "--rendezvous", "127.0.0.1:9", "--job", "j"],
             "mpirun: --site 'delta' is not a site of metacomputer '%s' (its sites: alpha, "
             "beta, gamma)" % self.mc),
            (base + ["--site", "alpha", "--rendezvous", "nohost", "--job", "j"],
             "mpirun: invalid --rendezvous 'nohost' (expected HOST:PORT, port 1-65535)"),
            (base + ["--site", "alpha", "--rendezvous", "h:0", "--job", "j"],
             "mpirun: invalid --rendezvous 'h:0'"),
            (base + ["--site", "alpha", "--rendezvous", "127.0.0.1:9", "--job", "a/b"],
             "mpirun: invalid --job 'a/b'"),
            (base + ["--site", "beta", "--rendezvous", "127.0.0.1:9", "--job", "j", "-n", "3"],
             "mpirun: 3 ranks but only 2 slots on 1 host of site 'beta' in metacomputer"),
            (base + ["--site", "alpha", "--site", "beta", "--rendezvous", "127.0.0.1:9"],
             "mpirun: --site given twice ('alpha' and 'beta')"),
        ]
        for args, want in cases:
            rc, err = self.mpirun(*args)
            self.assertEqual(rc, 1, (args, err))
            self.assertIn(want, err)
            self.assertEqual(len(err.splitlines()), 1, err)
        # the relayed requests' deadline (docs/dynproc.md, "A stuck mpirun"), checked before
        # the part joins
        self.env["METAMPI_FED_TIMEOUT"] = "soon"
        try:
            rc, err = self.mpirun(*(base + ["--site", "alpha", "--rendezvous", "127.0.0.1:9",
                                            "--job", "j"]))
        finally:
            del self.env["METAMPI_FED_TIMEOUT"]
        self.assertEqual(rc, 1, err)
        self.assertEqual(err, "mpirun: METAMPI_FED_TIMEOUT=soon is not a number of seconds "
                         "from 0 (wait for ever) to 86400", err)

    def test_key_errors(self):
        loose = self.write("loose.key", "ab" * 32 + "\n", 0o644)
        bad = self.write("bad.key", "xyz\n", 0o600)
        args = ["--metacomputer", self.mc, "--site", "alpha", "--rendezvous", "127.0.0.1:9",
                "--job", "j"]
        rc, err = self.mpirun(*args, "--key-file", loose)
        self.assertEqual(rc, 1)
        self.assertIn("the key file '%s' may be read or written by others (mode 0644); make it "
                      "private with chmod 600" % loose, err)
        rc, err = self.mpirun(*args, "--key-file", bad)
        self.assertIn("does not hold a job key (expected 64 hex digits", err)
        rc, err = self.mpirun(*args, "--key-file", os.path.join(self.dir, "none"))
        self.assertIn("cannot open the key file", err)
        rc, err = self.mpirun(*args)
        self.assertIn("no job key: give --key-file FILE or set METAMPI_JOB_KEY", err)
        self.env["METAMPI_JOB_KEY"] = "12"
        rc, err = self.mpirun(*args)
        self.assertIn("METAMPI_JOB_KEY is not a job key (expected 64 hex digits)", err)
        del self.env["METAMPI_JOB_KEY"]
        # issue 15, item 10: a FIFO is refused at once (before, open() waited for a writer),
        # as is a file of another user (who could have put any key in it) and a link
        fifo = os.path.join(self.dir, "fifo.key")
        os.mkfifo(fifo, 0o600)
        t0 = time.monotonic()
        rc, err = self.mpirun(*args, "--key-file", fifo)
        self.assertEqual((rc, err), (1, "mpirun: the key file '%s' is not a regular file "
                                        "(a FIFO)" % fifo))
        rc, err = self.server_run("--listen", "127.0.0.1:0", "--job", "j", "--metacomputer",
                                  self.mc, "--key-file", fifo)
        self.assertEqual((rc, err), (2, "metampi-rendezvous: the key file '%s' is not a "
                                        "regular file (a FIFO)" % fifo))
        self.assertLess(time.monotonic() - t0, 10)
        link = os.path.join(self.dir, "link.key")
        os.symlink(self.key, link)
        rc, err = self.mpirun(*args, "--key-file", link)
        self.assertEqual((rc, err), (1, "mpirun: the key file '%s' is a symbolic link; give "
                                        "the file itself" % link))
        if os.geteuid() == 0:
            theirs = self.write("theirs.key", "ab" * 32 + "\n", 0o600)
            os.chown(theirs, 65534, 65534)
            rc, err = self.mpirun(*args, "--key-file", theirs)
            self.assertEqual((rc, err), (1, "mpirun: the key file '%s' belongs to uid 65534, "
                                            "not to this user (uid 0) or root: its owner could "
                                            "have put any key in it" % theirs))

    def test_server_errors(self):
        base = ["--metacomputer", self.mc, "--key-file", self.key]
        cases = [
            (["--listen", "127.0.0.1:0", "--job", "j"] + base[2:],
             "missing --metacomputer FILE"),
            (["--listen", "127.0.0.1", "--job", "j"] + base, "invalid --listen '127.0.0.1'"),
            (["--listen", "127.0.0.1:0", "--job", "j j"] + base, "invalid --job 'j j'"),
            (["--listen", "127.0.0.1:0", "--job", "j", "--timeout", "0"] + base,
             "invalid --timeout '0'"),
            (["--listen", "127.0.0.1:0", "--job", "j", "--bogus"] + base,
             "unknown argument '--bogus'"),
            (["--make-key", self.key], None),
        ]
        for args, want in cases:
            rc, err = self.server_run(*args)
            if want is None:  # the key file exists already
                self.assertEqual(rc, 1)
                self.assertIn("cannot create the key file", err)
                continue
            self.assertEqual(rc, 2, (args, err))
            self.assertIn("metampi-rendezvous: " + want, err)
        # a port in use
        import socket
        busy = socket.socket()
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        rc, err = self.server_run("--listen", "127.0.0.1:%d" % port, "--job", "j", *base)
        busy.close()
        self.assertEqual(rc, 1)
        self.assertIn("cannot listen on 127.0.0.1:%d: Address already in use" % port, err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tests-bin", required=True)
    args, rest = ap.parse_known_args()
    global BIN, TESTS_BIN
    BIN = os.path.abspath(args.bin)
    TESTS_BIN = os.path.abspath(args.tests_bin)
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
