/*
 * Ranks started while the job runs (MPI_Comm_spawn, docs/dynproc.md), for a job on one host:
 * each request that a rank sends over PMI (pmi_spawn.h) becomes a *part* of the job, a node
 * of its own beside the first one (node.h) with
 *   - its own PMI space and barrier, named "<job's kvsname>.s<k>" (k = 1, 2, ...), so its
 *     ranks' MPI_COMM_WORLD is theirs alone and every name they make in a shared namespace
 *     still starts with "metampi.<job's kvsname>." (the teardown sweeps it);
 *   - job-wide numbers after every rank started before it: its rank r is rank base + r of
 *     the job in mpirun's reports and output tags; the space holds metampi.part.base = base
 *     and metampi.part.parent = "<spawner's kvsname> <spawner's rank>";
 *   - the pairs the request preput, then a get of another part's space by its kvsname
 *     (spawned_lookup), which is how the parts find each other's business cards.
 * Its ranks end with the job under the same policy as the first ones (job.h): a failure of
 * one condemns the job with the usual report, and mpirun waits for every part.
 *
 * Invariant: every part is a node whose ranks were all started (a request whose programs
 * cannot all be resolved starts nothing and is answered with the reason).
 */
#ifndef MPIRUN_SPAWNED_H
#define MPIRUN_SPAWNED_H

#include "evloop.h"
#include "job.h"
#include "jobenv.h"
#include "node.h"

typedef struct spawned_part spawned_part_t;

typedef struct spawned {
    ev_loop_t *loop;
    job_t *job;
    node_t *first;            /* the ranks mpirun started with */
    const jobenv_t *env;
    const char *kvsname;      /* the first node's */
    int next_id;              /* job-wide number of the next rank started */
    int universe;             /* slots mpirun knows of (MPI_UNIVERSE_SIZE) */
    int tag_output;
    spawned_part_t **part;
    int nparts;
    struct jobspace *shared;  /* names and ports (jobspace.h) */
} spawned_t;

void spawned_init(spawned_t *s, ev_loop_t *loop, job_t *job, node_t *first,
                  const jobenv_t *env, int tag_output, int universe);
/* The node events of spawn and lookup for a node of this job (the first one's included). */
void spawned_request(spawned_t *s, node_t *from, int rank, pmi_spawn_req_t *req);
const char *spawned_lookup(spawned_t *s, const char *kvsname, const char *key);
int spawned_shared(spawned_t *s, const pmi_msg_t *m, char *reply, size_t cap);
/* A reaped child: 1 when it was a rank of a part (reported to the job), else 0. */
int spawned_take_exit(spawned_t *s, pid_t pid, int status);
void spawned_signal(spawned_t *s, int sig);
int spawned_live(const spawned_t *s);
int spawned_io_open(const spawned_t *s);
/* Frees the parts; their ranks must be reaped. (Their traffic reports are not added to
 * mpirun's --report yet.) */
void spawned_free(spawned_t *s);

#endif
