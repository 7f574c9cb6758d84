/*
 * Where the ranks of this host run: the CPU topology (hwloc) and one CPU set per rank.
 * Mechanism only: whether to bind, and what to do when the ranks do not fit or the system
 * refuses a binding, is decided in job.c.
 *
 * Invariants:
 *   - the topology is restricted to the CPUs mpirun may run on (its own affinity, within its
 *     cgroup's cpuset), so every rank's set is a subset of mpirun's affinity;
 *   - slots are the cores (hardware threads for MPIRUN_BIND_HWTHREAD) in hwloc's logical
 *     order; rank r is placed on slot r mod nslots and bound to that slot's CPUs, or for
 *     MPIRUN_BIND_PACKAGE to the CPUs of the package holding it;
 *   - the rank sets are computed before any rank starts; the child only hands its set to
 *     sched_setaffinity (spawn.c), which is a plain system call after fork.
 */
#ifndef MPIRUN_BINDING_H
#define MPIRUN_BINDING_H

#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

/* --bind-to: what each rank is bound to. */
typedef enum mpirun_bind {
    MPIRUN_BIND_DEFAULT,   /* not given: core if the ranks fit on the cores, else none */
    MPIRUN_BIND_NONE,
    MPIRUN_BIND_HWTHREAD,
    MPIRUN_BIND_CORE,
    MPIRUN_BIND_PACKAGE,   /* also spelled "socket" */
} mpirun_bind_t;


typedef struct binding binding_t;

/* The METAMPI_BIND / --bind-to name of a policy: "none", "core", "hwthread", "package". */
const char *binding_policy_name(mpirun_bind_t policy);

/* Discovers the topology. Returns NULL with *err (errno) when hwloc cannot. */
binding_t *binding_open(int *err);
void binding_close(binding_t *b);

/* Ranks that fit without sharing under policy (HWTHREAD, CORE or PACKAGE): the number of
 * hardware threads for HWTHREAD, of cores otherwise. At least 1. */
int binding_slots(const binding_t *b, mpirun_bind_t policy);

/* Computes the sets of ranks 0..nranks-1 under policy (HWTHREAD, CORE or PACKAGE), wrapping
 * around when nranks > binding_slots(). */
void binding_place(binding_t *b, mpirun_bind_t policy, int nranks);

/* After binding_place: one set per rank, each mask_size bytes (CPU_ALLOC_SIZE). */
cpu_set_t *const *binding_masks(const binding_t *b);
size_t binding_mask_size(const binding_t *b);

/* After binding_place: "core 1 (cpus 1,3)" for rank r, followed with_map by
 * ": [../B./..]" (malloc'ed). The map has one [...] per package, its cores separated by
 * '/', one character per hardware thread: 'B' if the rank may run on it, '.' if not. */
char *binding_describe(const binding_t *b, int rank, int with_map);

/* Lets every thread of a running process use all of mpirun's CPUs again. 0 or -1 (errno). */
int binding_release(const binding_t *b, pid_t pid);

#endif
