"""Error reports of misused MPI: under our mpirun, under MPICH's mpiexec.hydra, and as a
singleton. Each case must end quickly, with a non-zero status that is not a crash, and one
message naming the function, the problem, the rank and the host."""
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

MPIRUN = os.environ["METAMPI_MPIRUN"]
MISUSE = os.environ["MISUSE_PROG"]
HOST = socket.gethostname()
HYDRA = shutil.which("mpiexec.hydra")


def run(cmd, timeout=30, env=None):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       stdin=subprocess.DEVNULL, env=env)
    return p, time.monotonic() - t0


class Fatal(unittest.TestCase):
    def check_failed(self, p, *needles):
        out = p.stdout + p.stderr
        self.assertNotEqual(p.returncode, 0, out)
        self.assertGreater(p.returncode, 0, "killed by a signal: " + out)
        self.assertLess(p.returncode, 128, "crashed: " + out)
        for n in needles:
            self.assertIn(n, out)
        self.assertNotIn("was not caught", out)

    def test_bad_rank_under_mpirun(self):
        for n in (1, 3, 4):
            p, dt = run([MPIRUN, "-n", str(n), MISUSE, "bad-send"])
            self.check_failed(p, f"MPI_Send: invalid destination rank {n + 3} in a communicator of size {n}",
                              "MPI_ERR_RANK", f"rank {n - 1}", HOST)
            self.assertLess(dt, 10)
            # one report, not one per rank
            self.assertEqual((p.stdout + p.stderr).count("invalid destination rank"), 1, p.stderr)

    def test_truncate_is_fatal_by_default(self):
        p, _ = run([MPIRUN, "-n", "2", MISUSE, "truncate"])
        self.check_failed(p, "MPI_Recv: message of 8 bytes from rank 0 (tag 3) truncated to "
                          "the 4 bytes of the receive buffer", "MPI_ERR_TRUNCATE")

    def test_collectives_in_different_orders(self):
        # on two ranks the blocking forms take the direct paths, on three the shared-memory
        # area (its own order check), on four messages (without the area)
        for n, env in ((2, {}), (3, {}), (4, {"METAMPI_COLL_SHM": "0"})):
            for mode in ("swapped", "swapped-nb"):
                i = "I" if mode == "swapped-nb" else ""
                p, dt = run([MPIRUN, "-n", str(n), MISUSE, mode], env={**os.environ, **env})
                self.check_failed(p, "MPI_ERR_NOT_SAME",
                                  "the members called collective operations in different orders")
                names = (f"MPI_{i}bcast", f"MPI_{i}allreduce") if i else ("MPI_Bcast",
                                                                           "MPI_Allreduce")
                out = p.stdout + p.stderr
                self.assertTrue(f"called {names[0]} where this process called {names[1]}" in out
                                or f"called {names[1]} where this process called {names[0]}"
                                in out, out)
                self.assertLess(dt, 20)
        # a constructor runs as messages: against a barrier that runs as messages (two ranks:
        # the direct path; three without the area). Against a barrier in the shared-memory
        # area nothing is found (the constructor's first receive may wait for a member that
        # waits in the area): an erroneous program may hang there.
        for n, env in ((2, {}), (3, {"METAMPI_COLL_SHM": "0"})):
            p, _ = run([MPIRUN, "-n", str(n), MISUSE, "dup-vs-barrier"],
                       env={**os.environ, **env})
            self.check_failed(p, "MPI_ERR_NOT_SAME", "MPI_Barrier where this process called a "
                              "communicator or topology constructor")

    def test_before_init(self):
        p, _ = run([MPIRUN, "-n", "2", MISUSE, "before-init"])
        self.check_failed(p, "MPI_Comm_rank: called before MPI_Init")
        p, _ = run([MISUSE, "before-init"])
        self.check_failed(p, "MPI_Comm_rank: called before MPI_Init")

    def test_grequest_and_isendrecv(self):
        cases = (("grequest-twice", "MPI_Grequest_complete: the generalized request",
                  "is already complete", "MPI_ERR_REQUEST"),
                 ("grequest-query-fails", "MPI_Wait: a callback of the generalized request "
                  "(query_fn or free_fn) returned error 1", "MPI_ERR_BUFFER"),
                 ("isendrecv-bad-rank", "MPI_Isendrecv: invalid source rank 5 in a "
                  "communicator of size 2", "MPI_ERR_RANK"))
        for mode, *needles in cases:
            p, dt = run([MPIRUN, "-n", "2", MISUSE, mode])
            self.check_failed(p, *needles)
            self.assertLess(dt, 10)

    def test_after_finalize(self):
        p, _ = run([MPIRUN, "-n", "2", MISUSE, "after-finalize"])
        self.check_failed(p, "MPI_Send: called after MPI_Finalize")

    def test_init_twice(self):
        p, _ = run([MPIRUN, "-n", "3", MISUSE, "init-twice"])
        self.check_failed(p, "MPI_Init: MPI is already initialized")

    def test_singleton_bad_rank(self):
        p, _ = run([MISUSE, "bad-send"])
        self.check_failed(p, "MPI_Send: invalid destination rank 4 in a communicator of size 1",
                          f"rank 0 on host {HOST}")

    def test_bad_variable(self):
        # every METAMPI_* variable is parsed by one registry (docs/tunables.md): a bad value
        # ends the job in MPI_Init with one line, whether or not the program would use it
        # (these used to be ignored, read as 0 or 8, clamped, or taken for "on")
        size = "a size in bytes (a whole number, with an optional k, m or g suffix)"
        cases = (("METAMPI_EAGER_LIMIT", "12x", size),
                 ("METAMPI_COLL_BCAST", "fast",
                  "one of auto, binomial, scatter_allgather, chain"),
                 ("METAMPI_TCP_SNDBUF", "8MB", "a size in bytes from 0 (kernel autotuning) to "
                  "2147483647 (with an optional k, m or g suffix)"),
                 ("METAMPI_SHM_CELLS", "5", "a power of two from 4 to 65536 (with an optional "
                  "k, m or g suffix)"),
                 ("METAMPI_CONTEXT_IDS", "1", "a whole number from 3 to 16384"),
                 ("METAMPI_COLL_HIER", "maybe", "one of 0, 1, no, yes, off, on, false, true"),
                 ("METAMPI_SPIN_US", "1.5ms", "a number of microseconds from 0 (sleep at "
                  "once) to 60000000"))
        for name, value, accepted in cases:
            line = f"MPI_Init: {name}={value} is not {accepted}"
            env = {**os.environ, name: value}
            for cmd in ([MPIRUN, "-n", "3", MISUSE], [MISUSE]):
                p, dt = run(cmd, env=env)
                self.check_failed(p, line)
                self.assertEqual((p.stdout + p.stderr).count(line), 1, p.stderr)
                self.assertLess(dt, 10)

    @unittest.skipUnless(HYDRA, "mpiexec.hydra (Debian package mpich) is not installed")
    def test_bad_rank_under_hydra(self):
        p, dt = run([HYDRA, "-n", "4", MISUSE, "bad-send"])
        self.check_failed(p, "MPI_Send: invalid destination rank 7 in a communicator of size 4",
                          f"rank 3 on host {HOST}")
        self.assertLess(dt, 10)


if __name__ == "__main__":
    unittest.main(verbosity=2)
