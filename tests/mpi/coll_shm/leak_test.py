"""A rank killed while a communicator's shared-memory area is being set up (member 0 has
created the segment, member 1 dies before attaching): the job fails, and nothing of it is
left in /dev/shm (the launcher sweeps /dev/shm/metampi.<job>.*, which the area's name uses)."""
import os
import subprocess
import sys

mpirun = os.environ["METAMPI_MPIRUN"]
prog = os.environ["COLL_SHM_PROG"]
p = subprocess.run([mpirun, "-n", "3", prog, "kill"], stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, timeout=50, text=True)
if p.returncode == 0:
    sys.exit("the job should have failed (rank 1 was killed)\n" + p.stdout + p.stderr)
job = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("job ")]
if len(job) != 1:
    sys.exit("no job id printed\n" + p.stdout + p.stderr)
left = [n for n in os.listdir("/dev/shm") if n.startswith("metampi.%s." % job[0])]
if left:
    sys.exit("left in /dev/shm: %s" % left)
print("coll_shm killed: ok (job %s failed, nothing left)" % job[0])
