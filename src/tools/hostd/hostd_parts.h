/*
 * The spawned parts in a host's helper (docs/dynproc.md, "Several hosts"). The helper's PMI
 * servers cannot spawn, answer another part's keys or keep the job's names and ports: they
 * forward those to mpirun in PARTS frames (launch/parts_ctl.h) and answer the rank when
 * mpirun does. mpirun tells the helpers which ranks of a new part run here (PART); each
 * resolves the programs and says READY (or why not); mpirun then says GO to all of them or
 * to none. A part is a node of its own (node.h) with the part's PMI space; its barriers
 * run across its hosts through mpirun (BARRIER_IN, BARRIER_OUT), and every put of every node
 * goes to mpirun at once (PUT), so mpirun can answer any part's gets.
 *
 * Invariant: a part waiting for GO counts as live (the helper does not say DONE before it
 * knows whether ranks will start).
 */
#ifndef HOSTD_HOSTD_PARTS_H
#define HOSTD_HOSTD_PARTS_H

#include "channel.h"
#include "ctl.h"
#include "iofwd.h"
#include "jobenv.h"
#include "node.h"

#include <stddef.h>
#include <sys/types.h>

typedef struct hostd_part hostd_part_t;

typedef struct hostd_parts {
    ev_loop_t *loop;
    chan_t *ch;
    node_t *first;               /* node 0: the ranks the helper started with */
    const jobenv_t *env;
    const char *const *env_extra;
    int nenv_extra;
    const char *host;            /* this host's name, for messages */
    iofwd_emit_fn emit;          /* rank output to mpirun */
    void *emit_ctx;
    /* the ranks' exits, aborts and PMI failures, by job-wide number */
    void (*exited)(void *ctx, int rank, pid_t pid, int status, int inited, int finalized);
    void (*aborted)(void *ctx, int rank, pid_t pid, int exitcode, const char *msg);
    void (*pmi_failed)(void *ctx, int rank, pid_t pid, enum pmi_fail_kind kind,
                       const char *detail);
    void *ctx;
    hostd_part_t **part;
    int nparts;
    int condemned;               /* the job ends: a GO starts nothing */
} hostd_parts_t;

/* Node 0's forwarding (its node_events_t spawn, ask and put call these). */
void hostd_parts_spawn(hostd_parts_t *p, uint32_t node, int rank, pmi_spawn_req_t *req);
void hostd_parts_ask(hostd_parts_t *p, uint32_t node, int rank, const char *line);
void hostd_parts_put(hostd_parts_t *p, uint32_t node, const char *key, const char *value);
/* A PARTS frame from mpirun; 0, or -1 with why (a protocol error). */
int hostd_parts_frame(hostd_parts_t *p, const ctl_frame_t *f, char *why, size_t cap);
/* 1 when pid was a rank of a part (reported), else 0. */
int hostd_parts_take_exit(hostd_parts_t *p, pid_t pid, int status);
/* The teardown: sig to every part's ranks; parts waiting for GO will not start. */
void hostd_parts_signal(hostd_parts_t *p, int sig);
/* Ranks still running, plus parts waiting for GO (unless the job ends). */
int hostd_parts_live(const hostd_parts_t *p);
int hostd_parts_io_open(const hostd_parts_t *p);
void hostd_parts_free(hostd_parts_t *p);

#endif
