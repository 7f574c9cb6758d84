/*
 * mpirun inside a Slurm allocation (salloc, sbatch; docs/slurm.md). When no --host,
 * --hostfile or --metacomputer is given and SLURM_JOB_NODELIST is set, the job's hosts are the
 * allocation's: the names from `scontrol show hostnames $SLURM_JOB_NODELIST`, in that order,
 * each with the slots SLURM_TASKS_PER_NODE gives it ("2(x3),1": 2, 2, 2, 1; without it
 * SLURM_JOB_CPUS_PER_NODE, in the same form). Inside an allocation the helpers start through
 * srun as the launch agent (SLURM_LAUNCH_AGENT, one step of one task per host, sharing the
 * job's CPUs) unless --launch-agent names another, whatever gave the hosts (--host, a
 * metacomputer part's site): hosts outside the allocation then fail to start, with srun's
 * message. The host mpirun runs on is forked as always.
 */
#ifndef MPIRUN_SLURM_ALLOC_H
#define MPIRUN_SLURM_ALLOC_H

#include "hostlist.h"

#include <stddef.h>

/* {host} is replaced by the host's name (agent.h: a token of its own); --overlap: the helper's
 * step shares the CPUs with the job's other steps; --cpu-bind=none: mpirun binds the ranks
 * itself; --mpi=none: no PMI of Slurm's in the helper's environment; --unbuffered: srun
 * forwards the helper's binary control frames at once, not line by line. */
#define SLURM_LAUNCH_AGENT                                                                     \
    "srun --nodes=1 --ntasks=1 --overlap --cpu-bind=none --mpi=none --kill-on-bad-exit=1 "     \
    "--unbuffered --quiet --nodelist {host}"

/* 1 when mpirun runs inside an allocation (SLURM_JOB_NODELIST is set). */
int slurm_alloc_present(void);

/* Parses a count list of Slurm's ("2(x3),1") into per-host counts. Returns the number of
 * hosts it describes, or -1 when malformed or beyond max entries. */
int slurm_parse_counts(const char *s, int *counts, int max);

/* Adds the allocation's hosts to l. 0, or -1 with a message naming the variable or the
 * scontrol failure in err. */
int slurm_alloc_hosts(hostlist_t *l, char *err, size_t errlen);

#endif
