"""Certificates, keys and CRLs for the X.509 tests (gateway.X509.*, federated.X509.*), made
with the openssl command (`openssl req`, `openssl x509`, `openssl ca`): a CA, certificates
it signs for a site name (CN and subjectAltName DNS) or an IP address, and CRLs that revoke
some of them, current or already expired."""
import os
import subprocess

DAYS = "2"

CA_CONFIG = """\
[ca]
default_ca = CA_default
[CA_default]
database = {name}.index
crlnumber = {name}.crlnumber
default_md = sha256
default_crl_days = 2
"""


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True,
                   timeout=30)


def make_ca(d, name):
    """name.pem / name.key: a self-signed CA; name.cnf: its `openssl ca` configuration (an
    empty database, for CRLs)."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", name + ".key", "-out", name + ".pem", "-days", DAYS,
            "-subj", "/CN=metampi test " + name, cwd=d)
    with open(os.path.join(d, name + ".cnf"), "w") as f:
        f.write(CA_CONFIG.format(name=name))
    open(os.path.join(d, name + ".index"), "w").close()
    with open(os.path.join(d, name + ".crlnumber"), "w") as f:
        f.write("01\n")


def make_cert(d, out, site, ca, ip=None):
    """out.pem/out.key: a certificate for site, signed by ca, naming it in CN and SAN (and the
    IP address ip as a SAN, when given)."""
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", out + ".key", "-out", out + ".csr", "-subj", "/CN=" + site,
            cwd=d)
    with open(os.path.join(d, out + ".ext"), "w") as f:
        f.write("subjectAltName = DNS:%s%s\n" % (site, ",IP:" + ip if ip else ""))
    openssl("x509", "-req", "-in", out + ".csr", "-CA", ca + ".pem", "-CAkey", ca + ".key",
            "-CAcreateserial", "-days", DAYS, "-out", out + ".pem", "-extfile", out + ".ext",
            cwd=d)


def make_crl(d, out, ca, revoke=(), expired=False):
    """out.pem: a CRL of ca revoking the certificates revoke (names of .pem files it signed,
    reason keyCompromise); expired: its nextUpdate lies a day in the past."""
    for cert in revoke:
        openssl("ca", "-config", ca + ".cnf", "-keyfile", ca + ".key", "-cert", ca + ".pem",
                "-revoke", cert + ".pem", "-crl_reason", "keyCompromise", cwd=d)
    args = ["ca", "-config", ca + ".cnf", "-keyfile", ca + ".key", "-cert", ca + ".pem",
            "-gencrl", "-out", out + ".pem"]
    if expired:
        import datetime
        now = datetime.datetime.now(datetime.timezone.utc)
        fmt = "%Y%m%d%H%M%SZ"
        args += ["-crl_lastupdate", (now - datetime.timedelta(days=3)).strftime(fmt),
                 "-crl_nextupdate", (now - datetime.timedelta(days=1)).strftime(fmt)]
    openssl(*args, cwd=d)
    # later CRLs of this CA revoke nothing more unless asked: a fresh database
    open(os.path.join(d, ca + ".index"), "w").close()
