#!/usr/bin/env python3
"""X.509 per site on the gateways' WAN links ([site] cert, key, ca; docs/wan-security.md),
with certificates this test makes with `openssl req` / `openssl x509` (standard library and
the openssl command only).

Two sites on this machine as in test_wan_security.py's Mitm, alpha's link to beta through its
relay (capture mode):
  test_good         every site's certificate from the test CA, naming its site: the job runs,
                    its known plaintext is not on the wire;
  test_other_ca     beta's certificate from another CA: the job ends with one line naming both
                    sites and the refused certificate, nothing of the program's output;
  test_wrong_site   beta's certificate from the right CA but naming gamma, then alpha's: the
                    same;
  test_direct_wan   the same files secure --direct-wan (the ranks' connections between sites):
                    good certificates run; another CA's, or one naming another site, end the
                    job naming the rank and the refused certificate;
  test_description  mpirun's one-line errors: a site with cert but no key, certificates at one
                    site only, encrypt = off with certificates, an unreadable file.

Run: test_x509.py --mpirun PATH --prog PATH/gw_secret [unittest args]
"""
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_wan_security as ws  # noqa: E402

DAYS = "2"


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True,
                   timeout=30)


def make_ca(d, name):
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", name + ".key", "-out", name + ".pem", "-days", DAYS,
            "-subj", "/CN=metampi test " + name, cwd=d)


def make_cert(d, out, site, ca):
    """out.pem/out.key: a certificate for site, signed by ca, naming it in CN and SAN."""
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", out + ".key", "-out", out + ".csr", "-subj", "/CN=" + site,
            cwd=d)
    with open(os.path.join(d, out + ".ext"), "w") as f:
        f.write("subjectAltName = DNS:%s\n" % site)
    openssl("x509", "-req", "-in", out + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
            "-CAcreateserial", "-days", DAYS, "-out", out + ".pem", "-extfile", out + ".ext",
            cwd=d)


class X509(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("openssl"):
            raise unittest.SkipTest("no openssl command")
        cls.d = tempfile.mkdtemp(prefix="x509")
        make_ca(cls.d, "ca")
        make_ca(cls.d, "rogue")
        make_cert(cls.d, "alpha", "alpha", "ca")
        make_cert(cls.d, "beta", "beta", "ca")
        make_cert(cls.d, "beta-rogue", "beta", "rogue")
        make_cert(cls.d, "beta-gamma", "gamma", "ca")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d, ignore_errors=True)

    def description(self, alpha="alpha", beta="beta", extra_alpha="", wan=""):
        """Both sites with certificates (relative paths: beside the description)."""
        port_a, port_b = ws.free_port(), ws.free_port()
        self.relay = ws.Relay(("127.0.0.1", port_b), "capture")
        self.addCleanup(self.relay.close)
        site = "cert = %s.pem\nkey = %s.key\nca = ca.pem\n"
        text = ("%s[site alpha]\nhosts = localhost:2\nwan = 127.0.0.1:%d\n%s%s\n"
                "[site beta]\nhosts = %s:2\nwan = 127.0.0.1:%d\n%s"
                % (wan, port_a, site % (alpha, alpha) if alpha else "", extra_alpha,
                   socket.gethostname(), port_b, site % (beta, beta) if beta else ""))
        fd, path = tempfile.mkstemp(suffix=".ini", dir=self.d)
        self.addCleanup(os.unlink, path)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        return path

    def run_job(self, desc, seconds=1):
        env = dict(os.environ, METAMPI_GW_LINK_VIA="127.0.0.1:%d" % self.relay.port)
        return subprocess.run([ws.MPIRUN, "--bind-to", "none", "--metacomputer", desc, "-n",
                               "4", ws.PROG, str(seconds)], capture_output=True, text=True,
                              timeout=60, env=env)

    def test_good(self):
        r = self.run_job(self.description())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        cap = bytes(self.relay.captured)
        self.assertGreater(len(cap), 10000)
        self.assertFalse(ws.MARKER in cap, "known plaintext on the WAN link")
        # the TLS handshake is the certificates' (TLS 1.3 encrypts them): no PSK identity,
        # which the job key's ClientHello carries in clear
        self.assertFalse(b"metampi-job" in cap, "a PSK handshake, not X.509")

    def assert_refused(self, r, why, alert, bad="beta", judge="alpha"):
        """One line: judge's gateway refused bad's certificate, saying why; or (under load)
        bad's, told by judge's alert, naming the alert."""
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("secret ok", r.stdout)
        lines = [l for l in r.stderr.splitlines()
                 if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertEqual(len(lines), 1, r.stderr)
        # the refusing gateway reports first (the other, told by its alert, waits)
        self.assertRegex(lines[0], r"gateway of site %s: the WAN link to site %s "
                         r"\(127\.0\.0\.1:\d+\) failed: stream 0: refused the certificate of "
                         r"'%s': %s \(expected one that chains to the CA '.*ca.pem' and names "
                         r"'%s'\)$|gateway of site %s: the WAN link to site %s "
                         r"\(127\.0\.0\.1:\d+\) failed: stream 0: '%s' refused this end's "
                         r"certificate \(.*%s" % (judge, bad, bad, why, bad, bad, judge, judge,
                                                 alert), r.stderr)

    def test_other_ca(self):
        r = self.run_job(self.description(beta="beta-rogue"))
        self.assert_refused(r, "unable to get local issuer certificate", "unknown ca")

    def test_wrong_site(self):
        """beta's certificate names gamma (alpha, the TLS client, refuses it); alpha's names
        gamma (beta refuses it, alpha learns it from beta's alert after its handshake)."""
        r = self.run_job(self.description(beta="beta-gamma"))
        self.assert_refused(r, "hostname mismatch", "bad certificate")
        r = self.run_job(self.description(alpha="beta-gamma"))
        self.assert_refused(r, "hostname mismatch", "bad certificate", bad="alpha",
                            judge="beta")

    def run_direct(self, desc):
        return subprocess.run([ws.MPIRUN, "--bind-to", "none", "--metacomputer", desc,
                               "--direct-wan", "-n", "4", ws.PROG, "1"], capture_output=True,
                              text=True, timeout=60)

    def test_direct_wan(self):
        """--direct-wan: the ranks' connections between the sites take the same certificates
        (METAMPI_WAN_X509 from mpirun): good ones run; beta's from another CA, or naming
        gamma, end the job with a line naming the rank, its host and the refused
        certificate."""
        r = self.run_direct(self.description())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        for beta, why in (("beta-rogue", "unable to get local issuer certificate|unknown ca"),
                          ("beta-gamma", "hostname mismatch|bad certificate")):
            r = self.run_direct(self.description(beta=beta))
            self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertNotIn("secret ok", r.stdout)
            self.assertRegex(r.stderr, r"cannot secure the connection to rank \d \(host "
                             r"[^,]+, another site\): .*(%s)" % why)

    def test_description(self):
        def err(desc):
            r = subprocess.run([ws.MPIRUN, "--metacomputer", desc, "-n", "2", ws.PROG],
                               capture_output=True, text=True, timeout=30)
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            return r.stderr
        self.assertIn("site 'alpha': cert, key and ca go together (key is missing)",
                      err(self.description(alpha=None, extra_alpha="cert = a.pem\nca = c\n")))
        self.assertIn("site 'alpha' has cert, key and ca but site 'beta' has none: X.509 is "
                      "used at every site or at none", err(self.description(beta=None)))
        self.assertIn("encrypt = off with cert, key and ca at the sites",
                      err(self.description(wan="[wan]\nencrypt = off\n")))
        missing = self.description(alpha="nothing-here")
        r = self.run_job(missing)
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr, r"gateway of site alpha: X.509 \(\[site alpha\] cert, key, "
                         r"ca\): cannot read the certificate '.*nothing-here.pem': No such "
                         r"file or directory")


if __name__ == "__main__":
    ws.main()
