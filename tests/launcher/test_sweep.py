#!/usr/bin/env python3
"""mpirun removes what killed jobs left in /dev/shm, and nothing else (standard library only).

A job killed with SIGKILL (a ctest or batch-system timeout) cannot remove the shared-memory
names it was setting up. The next mpirun removes metampi.kvs_<pid>_<id>.* names whose
launcher pid is no live process here and that no process maps; it keeps a name whose pid
lives, and one that a process maps (a job launched from another host, whose pid means
nothing here, maps every name it holds).

Run: test_sweep.py --mpirun PATH --prog PATH [unittest args]
"""
import argparse
import mmap
import os
import subprocess
import sys
import unittest

MPIRUN = PROG = None


def dead_pid():
    """A pid no process has: a child that has exited and been reaped."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


class Sweep(unittest.TestCase):
    def test_stale_names_only(self):
        dead = dead_pid()
        names = {
            "stale": "metampi.kvs_%d_0badf00d.coll.0.0.0" % dead,
            "live": "metampi.kvs_%d_0badf00d.coll.0.0.0" % os.getpid(),
            "mapped": "metampi.kvs_%d_0badf00d.shm.1" % dead,
            "other": "metampi.singleton_%d.x" % dead,
        }
        paths = {k: "/dev/shm/" + v for k, v in names.items()}
        for p in paths.values():
            with open(p, "wb") as f:
                f.write(b"\0" * 4096)
        f = open(paths["mapped"], "r+b")
        m = mmap.mmap(f.fileno(), 4096)
        try:
            r = subprocess.run([MPIRUN, "-n", "2", PROG, "ok"], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertFalse(os.path.exists(paths["stale"]), "the stale name is still there")
            for k in ("live", "mapped", "other"):
                self.assertTrue(os.path.exists(paths[k]), "the %s name was removed" % k)
        finally:
            m.close()
            f.close()
            for p in paths.values():
                if os.path.exists(p):
                    os.unlink(p)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--prog", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN, PROG = args.mpirun, args.prog
    unittest.main(argv=[sys.argv[0]] + rest)
