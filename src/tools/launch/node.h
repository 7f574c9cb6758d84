/*
 * The ranks of this host: spawn them, serve their PMI connections and forward their I/O.
 *
 * This module holds no job policy: it reports what happens to the ranks (exit, abort,
 * protocol failure) through node_events_t and does what it is told (signal the ranks). It
 * runs in mpirun for a job on one host and in metampi-hostd for each host of a job on
 * several.
 *
 * The ranks of a node are numbered by their local index i = 0..nranks-1 (in the events, in
 * node_t.rank[], for binding); global[i] is the rank in the job (PMI_RANK, output tags, and
 * the one whose global rank is 0 gets the stdin).
 *
 * Invariants:
 *   - every rank is the leader of its own process group; signals go to the whole group;
 *   - a reaped rank's process group is SIGKILLed right away, so a rank's own children never
 *     outlive it;
 *   - before a rank's exit is reported, everything it wrote to its PMI socket and pipes has
 *     been processed, so a finalize or abort sent just before exiting is never missed and
 *     the rank's last output appears before any message about it.
 */
#ifndef MPIRUN_NODE_H
#define MPIRUN_NODE_H

#include "evloop.h"
#include "iofwd.h"
#include "jobenv.h"
#include "pmi_server.h"
#include "spawn.h"

#include <sched.h>
#include <sys/types.h>

typedef struct node_events {
    void *ctx;
    /* status as from waitpid; pmi_inited/pmi_finalized: what the rank did over PMI */
    void (*exited)(void *ctx, int rank, pid_t pid, int status, int pmi_inited,
                   int pmi_finalized);
    void (*aborted)(void *ctx, int rank, pid_t pid, int exitcode, const char *msg);
    void (*pmi_failed)(void *ctx, int rank, pid_t pid, enum pmi_fail_kind kind,
                       const char *detail);
    /* The system refused the CPU binding of a rank started anyway (binding not required);
     * err is the errno. May call node_drop_binding. */
    void (*bind_refused)(void *ctx, int rank, pid_t pid, int err);
    /* Optional: PMI barrier across hosts (pmi_server_ops_t.barrier; complete it with
     * node_barrier_release). NULL: the barrier is among this node's ranks. */
    void (*barrier)(void *ctx, const char *const *kv, size_t nkv);
    /* Optional, with pushed stdin (stdin_fd == NODE_STDIN_PUSHED): n bytes went to the
     * rank; the stdin pipe is closed (nothing more will be taken). */
    void (*stdin_consumed)(void *ctx, size_t n);
    void (*stdin_closed)(void *ctx);
    /* Optional: a child that is not a rank was reaped (the site gateway the helper runs, or
     * a rank of another node of this process: node_take_exit). */
    void (*other_exited)(void *ctx, pid_t pid, int status);
    /* Optional: pmi_server_ops_t's spawn and lookup (rank: local index). */
    void (*spawn)(void *ctx, int rank, pmi_spawn_req_t *req);
    const char *(*lookup)(void *ctx, const char *kvsname, const char *key);
    int (*shared)(void *ctx, const pmi_msg_t *m, char *reply, size_t cap);
    /* Optional: pmi_server_ops_t's ask and put (a helper forwards to mpirun; answer with
     * pmi_server_answer on node_t.pmi). */
    void (*ask)(void *ctx, int rank, const char *line);
    void (*put)(void *ctx, const char *key, const char *value);
} node_events_t;

/* Where each rank runs. Absent (NULL in node_spec_t): ranks keep mpirun's affinity. */
typedef struct node_binding {
    const char *policy;        /* METAMPI_BIND value of the bound ranks, e.g. "core" */
    cpu_set_t *const *mask;    /* per rank; NULL entry: that rank is not bound */
    size_t mask_size;          /* bytes of each mask (CPU_ALLOC_SIZE) */
    int required;              /* a refused binding fails the spawn (else: bind_refused) */
} node_binding_t;

/* stdin_fd values: the input of rank 0 is pushed with node_stdin_push; no rank gets input
 * (every stdin is /dev/null: spawned ranks). */
#define NODE_STDIN_PUSHED (-2)
#define NODE_STDIN_NONE (-3)

/* A rank's own program, for nodes whose ranks run different ones (spawned applications). */
typedef struct node_prog {
    const char *path;        /* resolved program */
    char *const *argv;
    const char *wdir;        /* NULL: mpirun's working directory */
    int appnum;              /* MPI_APPNUM */
} node_prog_t;

typedef struct node_spec {
    int nranks;              /* ranks of this host */
    int size;                /* ranks in the job (PMI_SIZE); 0: nranks */
    const int *global;       /* global rank of each local index; NULL: the identity */
    const char *path;        /* resolved program */
    char *const *argv;
    const jobenv_t *env;
    const char *const *env_extra;  /* "NAME=value" for every rank, after the -x settings */
    int nenv_extra;
    const char *kvsname;
    const char *mapping;     /* PMI_process_mapping; NULL: all ranks on one host, "": none */
    int tag_output;
    int stdin_fd;            /* forwarded to global rank 0 (or NODE_STDIN_PUSHED) */
    int stdout_fd, stderr_fd;
    iofwd_emit_fn emit;      /* non-NULL: output lines go there instead of stdout/stderr_fd */
    void *emit_ctx;
    const node_binding_t *binding;  /* NULL: no rank is bound */
    const node_prog_t *prog; /* per local index; NULL: path and argv for every rank */
    int tag_base;            /* added to the global rank in output tags (spawned parts) */
} node_spec_t;

typedef struct node_rank {
    pid_t pid;               /* 0: not started */
    int reaped;
    ostream_t out, err;
} node_rank_t;

typedef struct node {
    ev_loop_t *loop;
    node_spec_t spec;
    node_events_t ev;
    node_rank_t *rank;
    int nlive;               /* started and not yet reaped */
    pmi_server_t pmi;
    iofwd_sink_t out_sink, err_sink;
    istream_t in;
    int in_open;
    int in_local;            /* local index of global rank 0; -1: not on this node */
} node_t;

void node_init(node_t *n, ev_loop_t *loop, const node_spec_t *spec, const node_events_t *ev);
/* Starts all ranks. Returns 0, or -1 with *failed_rank and *why when a rank could not be
 * started; the ranks started before it keep running (the caller tears down). */
int node_spawn(node_t *n, int *failed_rank, spawn_err_t *why);
/* Ranks started from now on are not bound (METAMPI_BIND=none). */
void node_drop_binding(node_t *n);
/* Reaps every exited rank (call on SIGCHLD) and reports each through ev.exited. */
void node_reap(node_t *n);
/* The part of node_reap for one reaped child: 1 when pid was a rank of n (reported through
 * ev.exited), 0 when not. */
int node_take_exit(node_t *n, pid_t pid, int status);
/* Sends sig to the process group of every rank not yet reaped. */
void node_signal(node_t *n, int sig);
int node_live(const node_t *n);
/* Number of rank output pipes still open. */
int node_io_open(const node_t *n);
/* Stops stdin forwarding. */
void node_close_stdin(node_t *n);
/* Pushed stdin: data for global rank 0 (at most what the events acknowledged as consumed
 * plus IOFWD_STDIN_BUF in flight), and its end. Returns 0, or -1 if it does not fit or the
 * pipe is closed (then the data is dropped). */
int node_stdin_push(node_t *n, const void *data, size_t len);
void node_stdin_eof(node_t *n);
/* Global rank of local index i. */
int node_global(const node_t *n, int i);
/* Stores a key gathered from other hosts / completes the barrier (events.barrier). */
int node_kvs_put(node_t *n, const char *key, const char *value);
void node_barrier_release(node_t *n);
/* Flushes and closes all output, closes PMI connections. The ranks must be reaped. */
void node_free(node_t *n);

#endif
