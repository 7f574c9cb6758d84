/*
 * PMI-1 server ("simple PMI" line protocol of MPICH) for the ranks of one host.
 *
 * Each rank of this host has one connection (indexed 0..nlocal-1, the node's local index):
 * the parent's end of the socketpair whose other end the rank sees as PMI_FD. Protocol: the
 * rank sends one command per line (pmi_wire.h); every command except barrier_in and abort
 * gets exactly one reply line, in order; barrier_in is answered with barrier_out once all
 * ranks of the job have entered; abort gets no reply. Anything the server does not
 * understand ends the job (ops.fail).
 *
 * Jobs on several hosts (ops.barrier set): the key-value space is global. Puts are stored
 * locally and also journalled; when all local ranks have entered a barrier, ops.barrier gets
 * the journal (the puts since the previous barrier) and the server waits. The owner gathers
 * every host's journal, stores the union here (pmi_server_put) and releases the barrier
 * (pmi_server_release). Gets are answered from the local, merged space.
 *
 * Invariants:
 *   - replies are queued per connection; while a connection has unsent replies the server
 *     stops reading from it, so a rank that does not read its replies cannot make mpirun
 *     buffer without bound (the queue is at most one read's worth of replies);
 *   - after a rank aborted or sent an invalid command, nothing more from it is processed;
 *   - inited/finalized survive the connection's close, so the job can judge the rank's exit.
 */
#ifndef MPIRUN_PMI_SERVER_H
#define MPIRUN_PMI_SERVER_H

#include "evloop.h"
#include "kvs.h"
#include "pmi_spawn.h"
#include "runtime/pmi_wire.h"

#include <stddef.h>

enum pmi_fail_kind {
    PMI_FAIL_INVALID,   /* malformed, unknown or oversize command; detail = the line */
    PMI_FAIL_VERSION,   /* cmd=init with pmi_version != 1; detail = the requested version */
    PMI_FAIL_ABSENT,    /* ranks wait in a barrier that rank, which exited without
                           finalize, can never enter; detail = "" */
};

typedef struct pmi_server_ops {
    void (*abort)(void *ctx, int rank, int exitcode, const char *msg /* NULL: none */);
    void (*fail)(void *ctx, int rank, enum pmi_fail_kind kind, const char *detail);
    /* Optional (NULL: the barrier is local). All local ranks are in the barrier; kv holds
     * the keys and values put since the last barrier, 2*nkv strings (key, value, ...),
     * valid during the call. The barrier completes at pmi_server_release. */
    void (*barrier)(void *ctx, const char *const *kv, size_t nkv);
    /* Optional (NULL: cmd=spawn is answered rc=-1). rank asks to start the ranks of req
     * (pmi_spawn.h), which the callee takes over (and frees with pmi_spawn_free); the rank
     * waits for the answer, pmi_server_spawn_reply, which may come from inside the call. */
    void (*spawn)(void *ctx, int rank, pmi_spawn_req_t *req);
    /* Optional (NULL: only this server's space exists). The value of key in another space of
     * the job (the part of spawned ranks named kvsname), or NULL when kvsname or key is not
     * there. */
    const char *(*lookup)(void *ctx, const char *kvsname, const char *key);
    /* Optional: the commands of the job's shared space (names, ports: mpirun/jobspace.h).
     * 1 and the reply line (no newline) in reply, 0 when cmd is not one of them, -1 when
     * malformed. */
    int (*shared)(void *ctx, const pmi_msg_t *m, char *reply, size_t cap);
    /* Optional, for a server whose owner is not the job's whole process manager (a host
     * helper of a job on several hosts): a get naming another space or a key this space
     * does not have (put on another host since the last barrier), and any command the
     * server does not know, go to ask (line: the command as the rank sent it); the rank gets
     * no further line processed until pmi_server_answer. put: every stored put, at once. */
    void (*ask)(void *ctx, int rank, const char *line);
    void (*put)(void *ctx, const char *key, const char *value);
} pmi_server_ops_t;

typedef struct pmi_conn {
    struct pmi_server *srv;
    int rank;
    int fd;             /* -1 once closed */
    int watched;        /* registered in the event loop */
    int inited, finalized, in_barrier, stopped;
    int departed;       /* the rank's process has exited */
    int asking;         /* ops.ask was called: no line is processed until the answer */
    char *asked;        /* that line (for the report when the answer says invalid) */
    int appnum;         /* the answer to get_appnum (MPI_APPNUM) */
    pmi_spawn_req_t spawn;  /* the spawn request being received */
    int out_broken;     /* a reply could not be sent (peer closed): replies are dropped */
    char in[PMI_WIRE_MAXLINE];
    size_t inlen;
    char *out;
    size_t outlen, outcap;
} pmi_conn_t;

typedef struct pmi_server {
    ev_loop_t *loop;
    char kvsname[PMI_WIRE_KVSNAME_MAX + 1];
    int nlocal;         /* connections = local ranks that must enter a barrier */
    int size;           /* ranks of this server's space (PMI_SIZE) */
    int universe;       /* the answer to get_universe_size: slots mpirun knows of */
    pmi_conn_t *conn;   /* indexed by local index */
    int nbarrier;       /* local ranks currently in the barrier */
    int waiting;        /* ops.barrier was called; waiting for pmi_server_release */
    char **journal;     /* puts since the last barrier: key, value, ... (with ops.barrier) */
    size_t njournal, capjournal;   /* in strings */
    kvs_t kvs;
    pmi_server_ops_t ops;
    void *ctx;
} pmi_server_t;

/* mapping: the PMI_process_mapping value; NULL: all `size` ranks on one host; "": none. */
void pmi_server_init(pmi_server_t *s, ev_loop_t *loop, const char *kvsname, int nlocal,
                     int size, const char *mapping, const pmi_server_ops_t *ops, void *ctx);
/* Stores a key of another host (the union gathered for a barrier). 0, or -1: space full. */
int pmi_server_put(pmi_server_t *s, const char *key, const char *value);
/* Completes the barrier all local ranks wait in after ops.barrier. */
void pmi_server_release(pmi_server_t *s);
/* The answer to get_universe_size (default: size) and a rank's get_appnum (default 0). */
void pmi_server_set_universe(pmi_server_t *s, int universe);
void pmi_server_set_appnum(pmi_server_t *s, int rank, int appnum);
/* Answers rank's cmd=spawn: "cmd=spawn_result rc=0 kvsname=K size=N" when err is NULL,
 * else "cmd=spawn_result rc=-1 msg=HEX(err)". */
void pmi_server_spawn_reply(pmi_server_t *s, int rank, const char *kvsname, int size,
                            const char *err);
/* The answer to rank's ops.ask: the reply line (no newline), or NULL when the command is
 * invalid (the job ends as for any invalid command). Then the rank's next lines are read. */
void pmi_server_answer(pmi_server_t *s, int rank, const char *line);
/* Serves rank's connection on fd (the server owns fd from now on). */
void pmi_server_attach(pmi_server_t *s, int rank, int fd);
/* Reads and processes everything the rank has already sent (used when the rank exited, so
 * that a finalize or abort sent just before exiting is seen before judging the exit). */
void pmi_server_drain(pmi_server_t *s, int rank);
/* Records that rank's process exited. A barrier needs every rank: if the rank had not
 * finalized, any barrier that others wait in (or enter later) can never complete, and the
 * server reports PMI_FAIL_ABSENT instead of letting them wait for ever. */
void pmi_server_departed(pmi_server_t *s, int rank);
int pmi_server_inited(const pmi_server_t *s, int rank);
int pmi_server_finalized(const pmi_server_t *s, int rank);
void pmi_server_free(pmi_server_t *s);

#endif
