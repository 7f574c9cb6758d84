#!/usr/bin/env python3
"""X.509 per site on the gateways' WAN links ([site] cert, key, ca, crl;
docs/wan-security.md), with certificates and CRLs this test makes with `openssl req` /
`openssl x509` / `openssl ca` (x509_files.py; standard library and the openssl command only).

Two sites on this machine as in test_wan_security.py's Mitm, alpha's link to beta through its
relay (capture mode):
  test_good         every site's certificate from the test CA, naming its site: the job runs,
                    its known plaintext is not on the wire;
  test_other_ca     beta's certificate from another CA: the job ends with one line naming both
                    sites and the refused certificate, nothing of the program's output;
  test_wrong_site   beta's certificate from the right CA but naming gamma, then alpha's: the
                    same;
  test_revoked      a CRL (crl = at both sites) revokes beta's certificate, then alpha's: the
                    job ends with one line naming both sites, "certificate revoked", the
                    certificate's serial, subject and the CRL's reason; a CRL that revokes
                    nothing: the job runs;
  test_crl_errors   a CRL file that is not there, one that holds no CRL (the gateway ends the
                    job naming the file), an expired one (alpha refuses beta's certificate with
                    OpenSSL's "CRL has expired");
  test_direct_wan   the same files secure --direct-wan (the ranks' connections between sites):
                    good certificates run; another CA's, one naming another site, or a revoked
                    one end the job naming the rank and the refused certificate;
  test_description  mpirun's one-line errors: a site with cert but no key, certificates at one
                    site only, encrypt = off with certificates, crl without them, an
                    unreadable file.

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
from x509_files import make_ca, make_cert, make_crl  # noqa: E402


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
        make_crl(cls.d, "crl-none", "ca")
        make_crl(cls.d, "crl-beta", "ca", revoke=["beta"])
        make_crl(cls.d, "crl-alpha", "ca", revoke=["alpha"])
        make_crl(cls.d, "crl-expired", "ca", expired=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d, ignore_errors=True)

    def description(self, alpha="alpha", beta="beta", extra_alpha="", wan="", crl=None,
                    crl_beta=None):
        """Both sites with certificates (relative paths: beside the description); crl: the
        CRL file of alpha (and of beta unless crl_beta is given)."""
        port_a, port_b = ws.free_port(), ws.free_port()
        self.relay = ws.Relay(("127.0.0.1", port_b), "capture")
        self.addCleanup(self.relay.close)
        crl_beta = crl if crl_beta is None else crl_beta
        site = "cert = %s.pem\nkey = %s.key\nca = ca.pem\n"
        text = ("%s[site alpha]\nhosts = localhost:2\nwan = 127.0.0.1:%d\n%s%s%s\n"
                "[site beta]\nhosts = %s:2\nwan = 127.0.0.1:%d\n%s%s"
                % (wan, port_a, site % (alpha, alpha) if alpha else "", extra_alpha,
                   "crl = %s.pem\n" % crl if crl else "",
                   socket.gethostname(), port_b, site % (beta, beta) if beta else "",
                   "crl = %s.pem\n" % crl_beta if crl_beta else ""))
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

    def one_line(self, r):
        """The job failed with one mpirun line (progress notes aside): that line."""
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("secret ok", r.stdout)
        lines = [l for l in r.stderr.splitlines()
                 if l.startswith("mpirun:") and not l.startswith("mpirun: still waiting for ")]
        self.assertEqual(len(lines), 1, r.stderr)
        return lines[0]

    def assert_revoked(self, line, bad, judge):
        """judge's gateway refused bad's certificate as revoked by the CRL; or (under load)
        bad's, told so by judge's alert."""
        self.assertRegex(line, r"gateway of site %s: the WAN link to site %s "
                         r"\(127\.0\.0\.1:\d+\) failed: stream 0: refused the certificate of "
                         r"'%s': certificate revoked \(serial [0-9A-F]+, subject /CN=%s, reason "
                         r"keyCompromise, revoked at \d{4}-\d\d-\d\d [\d:]+ UTC; by the CRL "
                         r"'.*crl-%s.pem'\)$|gateway of site %s: the WAN link to site %s "
                         r"\(127\.0\.0\.1:\d+\) failed: stream 0: '%s' refused this end's "
                         r"certificate \(.*certificate revoked: a CRL there revokes it\)$"
                         % (judge, bad, bad, bad, bad, bad, judge, judge))

    def test_revoked(self):
        """Both sites check the CRL: beta's certificate revoked (alpha, the TLS client, refuses
        it), then alpha's (beta refuses it); a CRL revoking neither: the job runs."""
        r = self.run_job(self.description(crl="crl-none"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        self.assert_revoked(self.one_line(self.run_job(self.description(crl="crl-beta"))),
                            bad="beta", judge="alpha")
        self.assert_revoked(self.one_line(self.run_job(self.description(crl="crl-alpha"))),
                            bad="alpha", judge="beta")

    def test_crl_errors(self):
        """A CRL file that is not there or holds no CRL ends the job at its gateway's start;
        an expired CRL (at alpha only) makes alpha refuse beta's certificate, saying what
        OpenSSL says."""
        r = self.run_job(self.description(crl="nothing-here", crl_beta=""))
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr, r"gateway of site alpha: X.509 \(\[site alpha\] cert, key, "
                         r"ca, crl\): cannot read the CRL '.*nothing-here.pem': No such file or "
                         r"directory")
        r = self.run_job(self.description(crl="ca", crl_beta=""))
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr, r"gateway of site alpha: X.509 \(\[site alpha\] cert, key, "
                         r"ca, crl\): the CRL '.*/ca.pem' holds no PEM CRL")
        line = self.one_line(self.run_job(self.description(crl="crl-expired", crl_beta="")))
        self.assertRegex(line, r"gateway of site alpha: the WAN link to site beta "
                         r"\(127\.0\.0\.1:\d+\) failed: stream 0: refused the certificate of "
                         r"'beta': CRL has expired \(checked against the CRL "
                         r"'.*crl-expired.pem', which must hold a current CRL of every CA of the "
                         r"chain\)$")

    def run_direct(self, desc):
        return subprocess.run([ws.MPIRUN, "--bind-to", "none", "--metacomputer", desc,
                               "--direct-wan", "-n", "4", ws.PROG, "1"], capture_output=True,
                              text=True, timeout=60)

    def test_direct_wan(self):
        """--direct-wan: the ranks' connections between the sites take the same certificates
        (METAMPI_WAN_X509 from mpirun, with the CRLs): good ones run; beta's from another CA,
        naming gamma, or revoked, end the job with a line naming the rank, its host and the
        refused certificate."""
        r = self.run_direct(self.description(crl="crl-none"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("secret ok", r.stdout)
        for beta, why, crl in (
                ("beta-rogue", "unable to get local issuer certificate|unknown ca", None),
                ("beta-gamma", "hostname mismatch|bad certificate", None),
                ("beta", "refused the certificate of 'beta': certificate revoked \\(serial "
                 "[0-9A-F]+, subject /CN=beta, reason keyCompromise|certificate revoked: a CRL "
                 "there revokes it", "crl-beta")):
            r = self.run_direct(self.description(beta=beta, crl=crl))
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
        self.assertIn("site 'alpha': crl needs cert, key and ca",
                      err(self.description(alpha=None, beta=None, crl="crl-none")))
        missing = self.description(alpha="nothing-here")
        r = self.run_job(missing)
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr, r"gateway of site alpha: X.509 \(\[site alpha\] cert, key, "
                         r"ca\): cannot read the certificate '.*nothing-here.pem': No such "
                         r"file or directory")


if __name__ == "__main__":
    ws.main()
