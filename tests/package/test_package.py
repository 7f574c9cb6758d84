#!/usr/bin/env python3
"""make package: the Debian package (packaging/package.cmake, docs/packages.md).

Builds the package from the build tree with CPack, then, without touching the system:
  - its files clash with no file of this system (Open MPI and MPICH are installed here) and
    live in metampi's own places: /usr/lib/<triplet>/metampi, /usr/bin/*.metampi, the
    pkg-config and CMake directories; libmpi's soname is metampi's own versioned one;
  - extracted into a clean root (dpkg-deb -x), an MPI program builds with its mpicc.metampi
    and runs under its mpirun.metampi at 1 and 2 ranks, pkg-config finds metampi there, and a
    CMake project builds with find_package(metampi) and runs;
  - its postinst and prerm, run against that root (update-alternatives --root), add and
    remove the alternatives mpi and mpirun at the package's priority (below Open MPI and
    MPICH).
Exit 77 (skipped) with the reason when dpkg-deb, cpack or update-alternatives is missing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

A = None
PROG = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0, one = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("package ok: %d of %d\n", sum, size);
    MPI_Finalize();
    return sum == size ? 0 : 1;
}
"""
CMAKE_PROJECT = """cmake_minimum_required(VERSION 3.18)
project(pkgtest C)
find_package(metampi 0.1 REQUIRED)
add_executable(pkgtest prog.c)
target_link_libraries(pkgtest PRIVATE metampi::mpi)
file(WRITE ${CMAKE_BINARY_DIR}/mpirun.txt "${metampi_MPIRUN}")
"""


def run(args, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(args, capture_output=True, text=True, **kw)


class Package(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for tool in ("dpkg-deb", "update-alternatives", A.cpack):
            if not shutil.which(tool):
                raise unittest.SkipTest("%s is not installed (Debian: dpkg, cmake)" % tool)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.work = cls.tmp.name
        r = run([A.cpack, "-G", "DEB", "--config", os.path.join(A.build, "CPackConfig.cmake"),
                 "-B", cls.work])
        if r.returncode != 0:
            raise AssertionError("cpack failed:\n" + r.stdout + r.stderr)
        debs = [f for f in os.listdir(cls.work) if f.endswith(".deb")]
        assert len(debs) == 1, debs
        cls.deb = os.path.join(cls.work, debs[0])
        cls.triplet = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip() or \
            "x86_64-linux-gnu"
        cls.prefix = "/usr/lib/%s/metampi" % cls.triplet
        cls.root = os.path.join(cls.work, "root")
        r = run(["dpkg-deb", "-x", cls.deb, cls.root])
        assert r.returncode == 0, r.stderr
        listing = run(["dpkg-deb", "-c", cls.deb]).stdout.splitlines()
        cls.files = [l.split()[5][1:] for l in listing if not l.startswith("d")]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_control(self):
        info = run(["dpkg-deb", "-f", self.deb, "Package", "Version", "Depends"]).stdout
        self.assertIn("Package: metampi", info)
        self.assertRegex(info, r"Depends: .*libssl")
        r = run(["dpkg-deb", "--ctrl-tarfile", self.deb])
        self.assertEqual(r.returncode, 0)

    def test_no_clash(self):
        """No file of the package is a file of this system (Open MPI, MPICH, anything)."""
        allowed = re.compile(r"^(%s/|/usr/bin/[^/]+\.metampi$|/usr/bin/metampi-rendezvous$|"
                             r"/usr/lib/%s/(pkgconfig/metampi\.pc|cmake/metampi/.*)$)"
                             % (re.escape(self.prefix), re.escape(self.triplet)))
        for f in self.files:
            self.assertRegex(f, allowed)
            owner = run(["dpkg", "-S", f])
            self.assertNotEqual(owner.returncode, 0, "%s belongs to %s" % (f, owner.stdout))
        for name in ("mpicc", "mpicxx", "mpirun", "mpiexec"):
            self.assertIn("/usr/bin/%s.metampi" % name, self.files)
        # metampi's own versioned soname, in its private directory
        lib = os.path.join(self.root, self.prefix[1:], "lib")
        so = [f for f in os.listdir(lib) if re.match(r"libmpi\.so\.\d+$", f)]
        self.assertEqual(len(so), 1, os.listdir(lib))
        soname = run(["objdump", "-p", os.path.join(lib, so[0])]).stdout
        self.assertRegex(soname, r"SONAME\s+%s\n" % re.escape(so[0]))

    def test_program(self):
        bindir = os.path.join(self.root, "usr", "bin")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "prog.c")
            with open(src, "w") as f:
                f.write(PROG)
            exe = os.path.join(d, "prog")
            r = run([os.path.join(bindir, "mpicc.metampi"), src, "-o", exe])
            self.assertEqual(r.returncode, 0, r.stderr)
            for n in (1, 2):
                r = run([os.path.join(bindir, "mpirun.metampi"), "--bind-to", "none", "-n",
                         str(n), exe], timeout=60)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("package ok: %d of %d" % (n, n), r.stdout)
            # it runs with the package's library, not Open MPI's or MPICH's
            ldd = run(["ldd", exe]).stdout
            self.assertIn(os.path.join(self.root, self.prefix[1:], "lib", "libmpi.so"), ldd)

    def test_pkg_config(self):
        if not shutil.which("pkg-config"):
            self.skipTest("no pkg-config")
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(self.root, "usr", "lib",
                                                            self.triplet, "pkgconfig"))
        r = run(["pkg-config", "--cflags", "--libs", "metampi"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        inc = os.path.realpath(os.path.join(self.root, self.prefix[1:], "include"))
        flags = r.stdout.split()
        self.assertTrue(any(os.path.realpath(f[2:]) == inc for f in flags if f.startswith("-I")),
                        r.stdout)

    def test_cmake_project(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
                f.write(CMAKE_PROJECT)
            with open(os.path.join(d, "prog.c"), "w") as f:
                f.write(PROG)
            b = os.path.join(d, "b")
            r = run([A.cmake, "-S", d, "-B", b, "-DCMAKE_PREFIX_PATH=" +
                     os.path.join(self.root, "usr")])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            r = run([A.cmake, "--build", b])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            with open(os.path.join(b, "mpirun.txt")) as f:
                mpirun = f.read()
            self.assertTrue(mpirun.startswith(self.root), mpirun)
            r = run([mpirun, "--bind-to", "none", "-n", "2", os.path.join(b, "pkgtest")],
                    timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("package ok: 2 of 2", r.stdout)
            # a version it does not provide is refused
            with open(os.path.join(d, "CMakeLists.txt"), "w") as f:
                f.write(CMAKE_PROJECT.replace("metampi 0.1", "metampi 7.0"))
            r = run([A.cmake, "-S", d, "-B", os.path.join(d, "b2"), "-DCMAKE_PREFIX_PATH=" +
                     os.path.join(self.root, "usr")])
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("metampi", r.stderr)

    def test_alternatives(self):
        """postinst configure adds mpi and mpirun at priority 20; prerm remove drops them."""
        ctl = os.path.join(self.work, "control")
        r = run(["dpkg-deb", "-e", self.deb, ctl])
        self.assertEqual(r.returncode, 0, r.stderr)
        root = os.path.join(self.work, "altroot")
        shutil.copytree(self.root, root, symlinks=True)
        for d in ("etc/alternatives", "var/lib/dpkg/alternatives"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        # update-alternatives on the root: a wrapper first in PATH, as dpkg --root would do
        wrap = os.path.join(self.work, "wrapbin")
        os.makedirs(wrap, exist_ok=True)
        with open(os.path.join(wrap, "update-alternatives"), "w") as f:
            f.write('#!/bin/sh\nexec "%s" --root "%s" "$@"\n'
                    % (shutil.which("update-alternatives"), root))
        os.chmod(os.path.join(wrap, "update-alternatives"), 0o755)
        env = dict(os.environ, PATH=wrap + ":" + os.environ["PATH"])
        r = run([os.path.join(ctl, "postinst"), "configure", ""], env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        ua = os.path.join(wrap, "update-alternatives")
        q = run([ua, "--query", "mpi"]).stdout
        self.assertIn("Value: /usr/bin/mpicc.metampi", q)
        self.assertRegex(q, r"Alternative: /usr/bin/mpicc.metampi\nPriority: 20\n")
        self.assertIn("Slaves:\n mpiCC /usr/bin/mpicxx.metampi", q)
        self.assertIn("Value: /usr/bin/mpirun.metampi", run([ua, "--query", "mpirun"]).stdout)
        self.assertEqual(os.readlink(os.path.join(root, "usr/bin/mpicc")),
                         "/etc/alternatives/mpi")
        self.assertEqual(os.readlink(os.path.join(root, "etc/alternatives/mpiexec")),
                         "/usr/bin/mpiexec.metampi")
        # on the system, Open MPI's and MPICH's priorities are above ours
        for name in ("mpi", "mpirun"):
            sysq = run(["update-alternatives", "--query", name]).stdout
            for prio in re.findall(r"Priority: (\d+)", sysq):
                self.assertGreater(int(prio), 20)
        r = run([os.path.join(ctl, "prerm"), "upgrade", "0.1.0"], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Value: /usr/bin/mpicc.metampi", run([ua, "--query", "mpi"]).stdout)
        r = run([os.path.join(ctl, "prerm"), "remove"], env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotEqual(run([ua, "--query", "mpi"]).returncode, 0)
        self.assertFalse(os.path.lexists(os.path.join(root, "usr/bin/mpicc")))
        self.assertFalse(os.path.lexists(os.path.join(root, "usr/bin/mpirun")))


def main():
    global A
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--cpack", required=True)
    p.add_argument("--cmake", required=True)
    A, rest = p.parse_known_args()
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False)
    res = prog.result
    if res.wasSuccessful() and res.skipped and res.testsRun <= len(res.skipped):
        for _, why in res.skipped:
            print("package.deb skipped:", why)
        sys.exit(77)
    sys.exit(0 if res.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
