#!/usr/bin/env python3
"""Checks of metampi-demo for ctest (examples/CMakeLists.txt).

  check_demo.py checksum --mpirun M --demo D --np N [--hosts LAYOUT] [--expect-sites S
                [--expect-wan-faces F]] -- DEMO-ARGS...
      runs the demo with 1 rank (the serial reference) and then with N ranks (on emulated
      hosts with --hosts: tests/cluster/run_on_hosts.sh), both with DEMO-ARGS; passes when
      both print the same checksum, the N-rank run reports N ranks (and S sites, F faces
      across the WAN when asked), and its --times file has one well-formed row per step.
  check_demo.py fortran --mpirun M --demo D --fortran F --np N [--hosts LAYOUT] -- ARGS...
      runs the C demo D and its Fortran twin F (fortran/stencil.f90) with N ranks and ARGS
      (F on emulated hosts with --hosts, D on this host: the result does not depend on the
      placement); passes when both print the same result line (checksum, residual, max and
      steps; not the time).
  check_demo.py error --mpirun M --demo D --np N --status X --message REGEX -- DEMO-ARGS...
      passes when the run ends with exit status X and REGEX in its stderr.
  check_demo.py runner --runner R --build B -- RUNNER-ARGS...
      runs run_demo.sh small into a fresh directory; passes when it says the checksums of
      one and two sites are identical, the table has both rows and the PNG was written;
      skipped when the runner could only run the one-site part (it says why).
Exit status 0 pass, 1 fail, 77 skipped (no emulated hosts here).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_ON_HOSTS = os.path.join(HERE, "..", "..", "tests", "cluster", "run_on_hosts.sh")
CHECKSUM = re.compile(r"^result: checksum (0x[0-9a-f]{16}) ", re.M)
RESULT = re.compile(r"^(result: checksum 0x[0-9a-f]{16}  residual \S+  max \S+  after \d+ steps) ",
                    re.M)
PLACEMENT = re.compile(r"^(\d+) ranks? on (\d+) sites?", re.M)
WAN_FACES = re.compile(r"^faces sent per step: (\d+), of which (\d+) cross the WAN$", re.M)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, timeout=50):
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    return p


def steps_of(args):
    for i, a in enumerate(args):
        if a == "--steps" and i + 1 < len(args):
            return int(args[i + 1])
        if a.startswith("--steps="):
            return int(a.split("=", 1)[1])
    return 100


def check_times(path, steps, ranks):
    with open(path) as f:
        lines = f.read().splitlines()
    header = [l for l in lines if l.startswith("#")]
    rows = [l.split() for l in lines if not l.startswith("#")]
    if not any(re.search(r"\branks %d\b" % ranks, l) for l in header):
        fail("%s: no header line naming %d ranks" % (path, ranks))
    if len(rows) != steps:
        fail("%s: %d rows, expected one per step (%d)" % (path, len(rows), steps))
    for i, r in enumerate(rows):
        if len(r) != 6 or int(r[0]) != i + 1:
            fail("%s: row %d malformed: %s" % (path, i + 1, " ".join(r)))
        parts = [float(x) for x in r[1:4]]
        reduce = float(r[5])
        if min(parts) < 0 or float(r[4]) < max(parts) or not 0 <= reduce <= sum(parts[1:]):
            fail("%s: row %d: negative part, the slowest step shorter than a mean part, or "
                 "the reduction outside the communication" % (path, i + 1))


def checksum(o):
    ref = run([o.mpirun, "-n", "1", o.demo, "--progress", "none"] + o.args)
    if ref.returncode != 0:
        fail("the 1-rank reference run exited with status %d" % ref.returncode)
    m = CHECKSUM.search(ref.stdout)
    if not m:
        fail("the 1-rank reference run printed no checksum")
    want = m.group(1)
    with tempfile.TemporaryDirectory() as tmp:
        times = os.path.join(tmp, "times.txt")
        demo = [o.demo, "--progress", "lines", "--times", times] + o.args
        if o.hosts:
            p = run([RUN_ON_HOSTS, o.hosts, o.mpirun] + demo)
            if p.returncode == 77:
                print("SKIP: no emulated hosts here")
                sys.exit(77)
        else:
            p = run([o.mpirun, "-n", str(o.np)] + demo)
        if p.returncode != 0:
            fail("the %d-rank run exited with status %d" % (o.np, p.returncode))
        pl = PLACEMENT.search(p.stdout)
        if not pl or int(pl.group(1)) != o.np:
            fail("the run does not report %d ranks" % o.np)
        if o.expect_sites is not None and int(pl.group(2)) != o.expect_sites:
            fail("the run reports %s sites, expected %d" % (pl.group(2), o.expect_sites))
        wf = WAN_FACES.search(p.stdout)
        if not wf:
            fail("the run does not report the faces crossing the WAN")
        if o.expect_wan_faces is not None and int(wf.group(2)) != o.expect_wan_faces:
            fail("%s faces cross the WAN, expected %d" % (wf.group(2), o.expect_wan_faces))
        steps = steps_of(o.args)
        progress = re.findall(r"^step (\d+)/(\d+) ", p.stdout, re.M)
        if not progress or progress[-1] != (str(steps), str(steps)):
            fail("no progress line for the last step")
        if "time per step, ms" not in p.stdout:
            fail("no summary of the time per step")
        m = CHECKSUM.search(p.stdout)
        if not m:
            fail("the %d-rank run printed no checksum" % o.np)
        if m.group(1) != want:
            fail("checksum %s with %d ranks, %s with 1 rank" % (m.group(1), o.np, want))
        check_times(times, steps, o.np)
    print("PASS: checksum %s with 1 and with %d ranks" % (want, o.np))


def fortran(o):
    c = run([o.mpirun, "-n", str(o.np), o.demo, "--progress", "none"] + o.args)
    if c.returncode != 0:
        fail("the C demo exited with status %d" % c.returncode)
    if o.hosts:
        f = run([RUN_ON_HOSTS, o.hosts, o.mpirun, o.fortran] + o.args)
        if f.returncode == 77:
            print("SKIP: no emulated hosts here")
            sys.exit(77)
    else:
        f = run([o.mpirun, "-n", str(o.np), o.fortran] + o.args)
    if f.returncode != 0:
        fail("the Fortran demo exited with status %d" % f.returncode)
    want, got = RESULT.search(c.stdout), RESULT.search(f.stdout)
    if not want or not got:
        fail("no result line from the %s demo" % ("C" if not want else "Fortran"))
    if got.group(1) != want.group(1):
        fail("the Fortran demo printed\n  %s\nthe C demo\n  %s" % (got.group(1), want.group(1)))
    print("PASS: C and Fortran print '%s' with %d ranks" % (want.group(1), o.np))


def error(o):
    p = run([o.mpirun, "-n", str(o.np), o.demo] + o.args)
    if p.returncode != o.status:
        fail("exit status %d, expected %d" % (p.returncode, o.status))
    if not re.search(o.message, p.stderr):
        fail("stderr does not match %r" % o.message)
    print("PASS: status %d and the message" % o.status)


def runner(o):
    with tempfile.TemporaryDirectory() as tmp:
        p = run([o.runner, "--build", o.build, "--out", tmp] + o.args, timeout=110)
        if p.returncode != 0:
            fail("run_demo.sh exited with status %d" % p.returncode)
        if "(one site only: " in p.stdout:
            print("SKIP: only the one-site part could run here")
            sys.exit(77)
        if not re.search(r"^== checksums identical: 0x[0-9a-f]{16} on one site and on two sites$",
                         p.stdout, re.M):
            fail("no line saying the checksums are identical")
        for row in ("one site", "two sites"):
            numbers = r" +[0-9.]+" * 4 + r" +\([0-9.]+\)$"
            if not re.search("^" + row + numbers, p.stdout, re.M):
                fail("the table has no row '%s'" % row)
        two = open(os.path.join(tmp, "two-sites.log")).read()
        if not re.search(r"^faces sent per step: \d+, of which [1-9]\d* cross the WAN$", two,
                         re.M):
            fail("no face crosses the WAN in the two-site run")
        png = os.path.join(tmp, "demo.png")
        with open(png, "rb") as f:
            if f.read(8) != b"\x89PNG\r\n\x1a\n":
                fail("%s is not a PNG file" % png)
    print("PASS: one site and two sites agree, table and plot written")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["checksum", "fortran", "error", "runner"])
    ap.add_argument("--mpirun")
    ap.add_argument("--demo")
    ap.add_argument("--fortran")
    ap.add_argument("--np", type=int)
    ap.add_argument("--runner")
    ap.add_argument("--build")
    ap.add_argument("--hosts")
    ap.add_argument("--expect-sites", type=int)
    ap.add_argument("--expect-wan-faces", type=int)
    ap.add_argument("--status", type=int, default=2)
    ap.add_argument("--message", default="")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    o = ap.parse_args(argv[:cut])
    o.args = argv[cut + 1:]
    {"checksum": checksum, "fortran": fortran, "error": error, "runner": runner}[o.mode](o)


if __name__ == "__main__":
    main()
