#!/usr/bin/env python3
"""X.509 on the rendezvous protocol ([rendezvous] cert, key, ca, crl and the sites' cert,
key, ca, crl; docs/wan-security.md, "X.509 per site"): the real metampi-rendezvous and one
real mpirun per site on this machine, as in test_federated.py, with certificates and CRLs
this test makes with the openssl command (tests/gateway/x509_files.py). The server's
certificate names 127.0.0.1 (subjectAltName IP), where the parts reach it.

  test_good        every certificate from the test CA, CRLs revoking nothing: the job starts,
                   the server says it authenticates the parts by X.509;
  test_other_ca    beta's part shows a certificate of another CA: the server drops it (its log
                   names the refused certificate), the part ends with one line, the others
                   wait; beta then joins with its own and the job starts. A server whose
                   certificate is of another CA: the part refuses it, naming why;
  test_wrong_site  beta's part shows a certificate of the right CA naming gamma: REFUSED,
                   naming the certificate's subject and the site; a server whose certificate
                   names another address: the part refuses it (IP address mismatch);
  test_revoked     the server's CRL revokes beta's certificate: dropped, the server's line
                   names the certificate, "certificate revoked" and the CRL's reason, the
                   part's the alert; the sites' CRL revokes the server's: the part refuses it;
  test_errors      the server's CRL expired (OpenSSL's "CRL has expired"); a CRL file that is
                   not there, at the server and at a part; [rendezvous] without the sites'
                   certificates, or without its key.

Run: test_rdv_x509.py --bin BUILD/bin --tests-bin BUILD/tests/bin [unittest args]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "gateway"))
import test_federated as fed  # noqa: E402
from x509_files import make_ca, make_cert, make_crl  # noqa: E402

SITES = ("alpha", "beta", "gamma")


class X509(fed.FederatedTest):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("openssl"):
            raise unittest.SkipTest("no openssl command")
        cls.d = tempfile.mkdtemp(prefix="rdvx509")
        make_ca(cls.d, "ca")
        make_ca(cls.d, "rogue")
        for site in SITES:
            make_cert(cls.d, site, site, "ca")
        make_cert(cls.d, "beta-rogue", "beta", "rogue")
        make_cert(cls.d, "beta-gamma", "gamma", "ca")
        make_cert(cls.d, "rdv", "rendezvous", "ca", ip="127.0.0.1")
        make_cert(cls.d, "rdv-rogue", "rendezvous", "rogue", ip="127.0.0.1")
        make_cert(cls.d, "rdv-elsewhere", "rendezvous", "ca", ip="127.0.0.2")
        make_crl(cls.d, "crl-none", "ca")
        make_crl(cls.d, "crl-beta", "ca", revoke=["beta"])
        make_crl(cls.d, "crl-rdv", "ca", revoke=["rdv"])
        make_crl(cls.d, "crl-expired", "ca", expired=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.d, ignore_errors=True)

    def desc(self, name, beta="beta", site_crl="crl-none", rdv="rdv", rdv_crl="crl-none",
             rdv_section=True, sites_x509=True):
        """A description of the three sites with certificates (absolute paths into the class's
        folder); beta's certificate, the sites' CRL, the server's certificate and CRL as
        given (None: no crl line)."""
        f = lambda base: os.path.join(self.d, base + ".pem")  # noqa: E731
        text = self.description
        if sites_x509:
            for site in SITES:
                cert = beta if site == "beta" else site
                lines = "cert = %s\nkey = %s\nca = %s\n" % (
                    f(cert), os.path.join(self.d, cert + ".key"), f("ca"))
                if site_crl:
                    lines += "crl = %s\n" % f(site_crl)
                text = re.sub(r"(\[site %s\]\n(?:[^\[].*\n)*)" % site,
                              lambda m: m.group(1) + lines, text)
        if rdv_section:
            text += "[rendezvous]\ncert = %s\nkey = %s\nca = %s\n" % (
                f(rdv), os.path.join(self.d, rdv + ".key"), f("ca"))
            if rdv_crl:
                text += "crl = %s\n" % f(rdv_crl)
        return self.write(name, text)

    def one_line(self, p, status=1):
        """p ended with status and one mpirun line: that line."""
        self.assertEqual(p.wait(), status, p.text)
        self.assertNotIn("probe", p.text)
        lines = [l for l in p.text.splitlines() if l.startswith("mpirun:")]
        self.assertEqual(len(lines), 1, p.text)
        return lines[0]

    def all_start(self, s, parts):
        for p in parts:
            self.assertEqual(p.wait(), 0, p.text)
        self.assertEqual(s.wait(), 0, s.text)
        self.assertIn("all 3 sites joined", s.text)

    def test_good(self):
        mc = self.desc("good.ini")
        s = self.server(mc=mc)
        parts = [self.part(site, mc=mc) for site in SITES]
        self.all_start(s, parts)
        self.assertIn("parts authenticated by X.509 ([rendezvous] ca)", s.text)

    def test_other_ca(self):
        mc = self.desc("good.ini")
        s = self.server(mc=mc)
        alpha, gamma = self.part("alpha", mc=mc), self.part("gamma", mc=mc)
        bad = self.part("beta", mc=self.desc("rogue.ini", beta="beta-rogue"), name="rogue")
        line = self.one_line(bad)
        self.assertRegex(line, r"^mpirun: site beta of job job1: lost the connection to the "
                         r"rendezvous server at 127\.0\.0\.1:\d+.*'127\.0\.0\.1' refused this "
                         r"end's certificate \(.*unknown ca: it does not chain to the CA there, "
                         r"or does not name this end\); nothing was started$")
        self.all_start(s, [alpha, gamma, self.part("beta", mc=mc)])
        self.assertRegex(s.text, r"dropped a connection from 127\.0\.0\.1:\d+: refused the "
                         r"peer's certificate: unable to get local issuer certificate "
                         r"\(expected one that chains to the CA '.*/ca\.pem'\)")
        # the server's certificate from another CA: the part refuses it
        s = self.server(mc=self.desc("rdv-rogue.ini", rdv="rdv-rogue"))
        line = self.one_line(self.part("alpha", mc=mc, name="alpha-rogue-server"))
        self.assertRegex(line, r"^mpirun: site alpha of job job1: no secure connection to the "
                         r"rendezvous server at 127\.0\.0\.1:\d+: refused the certificate of "
                         r"'127\.0\.0\.1': unable to get local issuer certificate \(expected "
                         r"one that chains to the CA '.*/ca\.pem' and names '127\.0\.0\.1'\); "
                         r"nothing was started$")
        s.p.terminate()
        s.wait()

    def test_wrong_site(self):
        mc = self.desc("good.ini")
        s = self.server(mc=mc)
        alpha, gamma = self.part("alpha", mc=mc), self.part("gamma", mc=mc)
        bad = self.part("beta", mc=self.desc("gamma-cert.ini", beta="beta-gamma"),
                        name="beta-as-gamma")
        line = self.one_line(bad)
        self.assertRegex(line, r"^mpirun: site beta of job job1: the rendezvous server at "
                         r"127\.0\.0\.1:\d+ refused this part: its certificate \(subject "
                         r"/CN=gamma\) does not name site 'beta' \(a subjectAltName DNS entry "
                         r"'beta', or without any the subject's CN\); nothing was started$")
        self.all_start(s, [alpha, gamma, self.part("beta", mc=mc)])
        # the server's certificate names 127.0.0.2 and "rendezvous", not 127.0.0.1
        s = self.server(mc=self.desc("elsewhere.ini", rdv="rdv-elsewhere"))
        line = self.one_line(self.part("alpha", mc=mc, name="alpha-elsewhere"))
        self.assertRegex(line, r"no secure connection to the rendezvous server at "
                         r"127\.0\.0\.1:\d+: refused the certificate of '127\.0\.0\.1': IP "
                         r"address mismatch \(expected one that chains to the CA '.*/ca\.pem' "
                         r"and names '127\.0\.0\.1'\)")
        s.p.terminate()
        s.wait()

    def test_revoked(self):
        mc = self.desc("good.ini")
        s = self.server(mc=self.desc("revokes-beta.ini", rdv_crl="crl-beta"))
        alpha, gamma = self.part("alpha", mc=mc), self.part("gamma", mc=mc)
        line = self.one_line(self.part("beta", mc=mc, name="beta-revoked"))
        self.assertRegex(line, r"^mpirun: site beta of job job1: lost the connection to the "
                         r"rendezvous server at 127\.0\.0\.1:\d+.*'127\.0\.0\.1' refused this "
                         r"end's certificate \(.*certificate revoked: a CRL there revokes "
                         r"it\); nothing was started$")
        s.p.terminate()
        for p in (alpha, gamma):
            self.assertEqual(p.wait(), 1, p.text)
        s.wait()
        self.assertRegex(s.text, r"dropped a connection from 127\.0\.0\.1:\d+: refused the "
                         r"peer's certificate: certificate revoked \(serial [0-9A-F]+, subject "
                         r"/CN=beta, reason keyCompromise, revoked at \d{4}-\d\d-\d\d [\d:]+ "
                         r"UTC; by the CRL '.*/crl-beta\.pem'\)")
        # the sites' CRL revokes the server's certificate
        s = self.server(mc=mc)
        line = self.one_line(self.part("alpha", mc=self.desc("revokes-rdv.ini",
                                                             site_crl="crl-rdv"),
                                       name="alpha-revokes-server"))
        self.assertRegex(line, r"no secure connection to the rendezvous server at "
                         r"127\.0\.0\.1:\d+: refused the certificate of '127\.0\.0\.1': "
                         r"certificate revoked \(serial [0-9A-F]+, subject /CN=rendezvous, "
                         r"reason keyCompromise, revoked at [^;]+; by the CRL "
                         r"'.*/crl-rdv\.pem'\); nothing was started$")
        s.p.terminate()
        s.wait()

    def run_server(self, mc):
        return subprocess.run([os.path.join(fed.BIN, "metampi-rendezvous"), "--listen",
                               "127.0.0.1:0", "--metacomputer", mc, "--job", "job1",
                               "--key-file", self.key], capture_output=True, text=True,
                              timeout=30, env=self.env)

    def test_errors(self):
        # an expired CRL at the server: the part's certificate is refused, as OpenSSL says
        s = self.server(mc=self.desc("expired.ini", rdv_crl="crl-expired"))
        self.one_line(self.part("alpha", mc=self.desc("good.ini")))
        s.p.terminate()
        s.wait()
        self.assertRegex(s.text, r"dropped a connection from 127\.0\.0\.1:\d+: refused the "
                         r"peer's certificate: CRL has expired \(checked against the CRL "
                         r"'.*/crl-expired\.pem', which must hold a current CRL of every CA of "
                         r"the chain\)")
        # CRL files that are not there
        r = self.run_server(self.desc("nocrl.ini", rdv_crl="nothing-here"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertRegex(r.stderr, r"^metampi-rendezvous: X\.509 \(\[rendezvous\] cert, key, "
                         r"ca, crl\): cannot read the CRL '.*/nothing-here\.pem': No such file "
                         r"or directory\n$")
        s = self.server(mc=self.desc("good.ini"))
        line = self.one_line(self.part("alpha", mc=self.desc("nocrl-site.ini",
                                                             site_crl="nothing-here")))
        self.assertRegex(line, r"^mpirun: site alpha of job job1: X\.509 for the rendezvous "
                         r"\(\[site alpha\] cert, key, ca, crl\): cannot read the CRL "
                         r"'.*/nothing-here\.pem': No such file or directory; nothing was "
                         r"started$")
        s.p.terminate()
        s.wait()
        # the description
        r = self.run_server(self.desc("nosites.ini", sites_x509=False))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("[rendezvous] has cert, key and ca but the sites have none: the parts "
                      "show their sites' certificates to the server", r.stderr)
        text = open(self.desc("nokey.ini")).read()
        r = self.run_server(self.write("nokey2.ini", re.sub(r"(\[rendezvous\]\n.*\n)key = .*\n",
                                                            r"\1", text)))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("[rendezvous]: cert, key and ca go together (key is missing)", r.stderr)


if __name__ == "__main__":
    fed.main()
