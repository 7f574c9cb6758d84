/*
 * Communicators: groups, context ids, inter-communicators, names, attributes, hints and the
 * topology a communicator may carry.
 *
 * Invariants:
 *  - A message carries the *receiver-side* context id of its communicator and the sender's
 *    rank in the sender's local group. For an intra-communicator send_ctx == recv_ctx; for an
 *    inter-communicator send_ctx is the remote group's recv_ctx (exchanged at creation).
 *  - comm_peer_world_rank() maps a destination/source rank (remote group for an
 *    inter-communicator) to the job (world) rank transports address.
 *  - Context ids come in pairs: recv_ctx is even, recv_ctx + 1 carries the library's internal
 *    collective traffic on the communicator, so user messages never match it. Two
 *    communicators that share a process never share a recv_ctx there (core/ctxid.h); the
 *    pair returns to the free pool when the object is destroyed, not when the user frees the
 *    handle, so a pending receive never matches a later communicator's messages.
 *  - refs counts the user handle, every request (nonblocking or persistent) and every
 *    running internal schedule that uses the communicator; the last release destroys it.
 *    It is atomic (docs/threads.md, "Splitting the lock", step (a)): a reference may be
 *    taken or dropped by any thread without a lock, as long as the taker already holds one
 *    (a handle it looked up, a request) — increments relaxed, decrements acq_rel, so the
 *    thread that drops the last one sees every other thread's writes to the communicator
 *    before it destroys it. The destruction itself changes object state (the handle table,
 *    groups, context ids) and runs under the lock that serialises creation and freeing (the
 *    core lock today, the object lock once split).
 *  - key is the same at every member (of both groups for an inter-communicator) and
 *    distinct among the communicators of one process; with coll_seq it names each
 *    collective operation consistently everywhere (tags, agreement priorities).
 */
#ifndef METAMPI_COMM_H
#define METAMPI_COMM_H

#include "core/attr.h"
#include "core/group.h"
#include "core/info.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

struct topo;

typedef struct comm {
    MPI_Comm handle;
    uint32_t recv_ctx, send_ctx;
    /* the matching entries of recv_ctx and recv_ctx + 1 (core/match_ctx.h), bound by
     * comm_set_context, unbound by comm_destroy; NULL before. They hold the entries alive;
     * matching finds entries by context id, so copies of a communicator on another context
     * (schedule views, MPI_Finalize's barrier) carry them harmlessly and never unbind. */
    struct match_ctx *mctx[2];
    int rank, size;              /* in the local group */
    group_t *group;              /* local group */
    group_t *remote_group;       /* inter-communicators; NULL otherwise */
    struct comm *local_comm;     /* inter-communicators: intra-communicator over the local group */
    atomic_int refs;             /* the user handle + pending operations (above) */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    attr_list_t attrs;
    info_t *info;                /* hints set by the user (NULL: none) */
    struct topo *topo;           /* Cartesian/graph/distributed-graph topology, or NULL */
    /* creation and internal collectives */
    int ready;                   /* 0 while MPI_Comm_idup is still agreeing on its context */
    int user_freed;              /* MPI_Comm_free was called (the handle is gone) */
    uint64_t key;                /* see above: recv_ctx, or both groups' contexts */
    uint32_t coll_seq[2];        /* collective operations started on it, per stream */
    /* state the collective algorithms cache on the communicator (hierarchy, shared-memory
     * areas); coll_cache_free(coll_cache) runs when the communicator is destroyed */
    void *coll_cache;
    void (*coll_cache_free)(void *cache);
} comm_t;

void comm_init_predefined(int world_rank, int world_size);
/* Destroys every remaining communicator and group (MPI_Finalize). */
void comm_finalize(void);
/* The communicator behind a handle, or NULL for MPI_COMM_NULL, invalid and freed handles
 * and communicators MPI_Comm_idup has not finished creating. */
comm_t *comm_lookup(MPI_Comm handle);
/* comm_lookup that also returns a communicator MPI_Comm_idup is still creating (its groups,
 * name, hints, handler, attributes and topology exist; its context does not yet). */
comm_t *comm_lookup_pending(MPI_Comm handle);
static inline int comm_peer_world_rank(const comm_t *c, int rank)
{
    return group_world_rank(c->remote_group ? c->remote_group : c->group, rank);
}
/* Number of ranks a destination or source may name: the remote group's size for an
 * inter-communicator. */
static inline int comm_peer_size(const comm_t *c)
{
    return c->remote_group ? c->remote_group->size : c->size;
}
static inline int comm_is_inter(const comm_t *c)
{
    return c->remote_group != 0;
}
/* The communicator's name for messages ("MPI_COMM_WORLD", a user-set name, ...). */
const char *comm_name(MPI_Comm handle);

/* The collective operations of a communicator form two ordered streams: the blocking ones
 * (MPI_Barrier, MPI_Comm_dup, the library's internal collectives, ...) and the nonblocking
 * ones (MPI_Ibarrier, MPI_Comm_idup, ...). Each member starts the operations of one stream in
 * the same order (MPI-3.1 §5.12 orders both kinds together; Open MPI and MPICH keep them
 * apart, and programs rely on it, e.g. mpi4py's MPI_Comm_iagree fallback, an MPI_Iallreduce
 * that members start before or after a blocking collective). The streams never share a tag
 * or a shared-memory area (coll/shm/), so an operation of one never matches the other's
 * messages, however far apart the members are in either.
 *
 * Tags of internal messages (on the internal context recv_ctx + 1):
 *   bits 0..23  the operation's number in its stream (wraps: 2^24 operations are never
 *               pending at once)
 *   bits 24..28 what the operation is (comm_op_kind_t): a receive of operation n that meets a
 *               message of operation n of another kind from any member — members that called
 *               collectives in different orders — completes with MPI_ERR_NOT_SAME
 *               (core/match.c) instead of matching another collective's data
 *   bit 29      the stream (1: nonblocking)
 *   bit 30      an inter-communicator's operation (those also run over its local_comm, whose
 *               own operations have bit 30 clear)
 *   negative    fixed purposes outside every stream: COLL_SHM_SETUP_TAG (coll/shm/area.h),
 *               MPI_Comm_create_group and the leaders of MPI_Intercomm_create (comm_create.c)
 * The key (agreement priorities, core/ctxid.h) is c->key << 30 | stream << 28 | number;
 * MPI_Comm_create_group's is c->key << 30 | 2 << 28 | its tag. */
typedef enum { COMM_BLOCKING = 0, COMM_NONBLOCKING = 1 } comm_stream_t;
typedef enum {
    COMM_OP_INTERNAL, /* the library's own: communicator and topology constructors */
    COMM_OP_BARRIER, COMM_OP_BCAST, COMM_OP_GATHER, COMM_OP_GATHERV, COMM_OP_SCATTER,
    COMM_OP_SCATTERV, COMM_OP_ALLGATHER, COMM_OP_ALLGATHERV, COMM_OP_ALLTOALL, COMM_OP_ALLTOALLV,
    COMM_OP_ALLTOALLW, COMM_OP_REDUCE, COMM_OP_ALLREDUCE, COMM_OP_REDUCE_SCATTER,
    COMM_OP_REDUCE_SCATTER_BLOCK, COMM_OP_SCAN, COMM_OP_EXSCAN, COMM_OP_NEIGHBOR_ALLGATHER,
    COMM_OP_NEIGHBOR_ALLGATHERV, COMM_OP_NEIGHBOR_ALLTOALL, COMM_OP_NEIGHBOR_ALLTOALLV,
    COMM_OP_NEIGHBOR_ALLTOALLW, COMM_OP_KINDS
} comm_op_kind_t;
#define COMM_TAG_KIND_SHIFT 24
#define COMM_TAG_KIND_MASK (0x1f << COMM_TAG_KIND_SHIFT)
_Static_assert(COMM_OP_KINDS <= 32, "operation kinds fit in 5 bits of the tag");
typedef struct comm_op {
    int tag;
    uint64_t key;
} comm_op_t;
/* The tag and key of the next operation of stream on c, of kind (every member calls it in
 * the same order per stream). */
comm_op_t comm_next_op(comm_t *c, comm_stream_t stream, comm_op_kind_t kind);
/* "MPI_Bcast", "MPI_Ibcast", ... for reports. */
const char *comm_op_name(comm_stream_t stream, comm_op_kind_t kind);

/* Collective creation (internal: no attributes copied, no handle checks). Each returns
 * MPI_SUCCESS or an error class; *out is NULL for processes outside the new communicator
 * (color MPI_UNDEFINED). New communicators get a handle and inherit the parent's error
 * handler. */
int comm_split(comm_t *parent, int color, int key, comm_t **out);
/* Same group(s), topology and hints, new context (intra- or inter-communicator). */
int comm_dup(comm_t *parent, comm_t **out);
/* Nonblocking comm_dup: *out exists (with a handle) at once and becomes usable when done(err,
 * arg) has run (from the progress engine, or before this returns). */
int comm_idup(comm_t *parent, comm_t **out, void (*done)(int err, void *arg), void *arg);
/* The members of group (a subgroup of parent's local group; for an inter-communicator the
 * remote side's choice forms the remote group). Collective over parent. */
int comm_create(comm_t *parent, group_t *group, comm_t **out);
/* Collective over group only (a subgroup of intra-communicator parent containing the
 * caller); tag separates concurrent calls. */
int comm_create_group(comm_t *parent, group_t *group, int tag, comm_t **out);
/* Splits by host: ranks on one host get one communicator (MPI_COMM_TYPE_SHARED). */
int comm_split_shared(comm_t *parent, int key, comm_t **out);
/* Splits by site: ranks at one site get one communicator (METAMPI_COMM_TYPE_SITE). */
int comm_split_site(comm_t *parent, int key, comm_t **out);
/* MPI_Intercomm_create: collective over local (intra); leaders talk over peer with tag. */
int comm_intercomm_create(comm_t *local, int local_leader, comm_t *peer, int remote_leader,
                          int tag, comm_t **out);
/* MPI_Intercomm_merge. */
int comm_intercomm_merge(comm_t *inter, int high, comm_t **out);
/* Not collective: the inter-communicator of local's group and remote (whose reference it
 * takes) on contexts the caller has agreed with every member of both sides (ids[0] this
 * side's recv_ctx, ids[1] its local_comm's, remote_ctx the other side's recv_ctx; the ids
 * are released on failure). Spawning and connecting (core/dynproc.c). */
int comm_intercomm_join(comm_t *local, group_t *remote, const uint32_t ids[2],
                        uint32_t remote_ctx, comm_t **out);

/* Building blocks of the constructors. comm_new_object: a communicator (not ready, no
 * context, no handle, one reference) over group (and remote group) that inherits parent's
 * error handler. comm_set_context: sets the contexts and the key and binds the matching
 * entries of its two receive contexts (MPI_SUCCESS, or MPI_ERR_NO_MEM with nothing set).
 * comm_publish: gives it a handle (MPI_SUCCESS or MPI_ERR_NO_MEM). */
comm_t *comm_new_object(comm_t *parent, group_t *group, group_t *remote);
int comm_set_context(comm_t *c, uint32_t recv_ctx, uint32_t send_ctx);
int comm_publish(comm_t *c);

/* Reference counting: see the invariants above. */
static inline void comm_retain(comm_t *c)
{
    atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed);
}
void comm_destroy(comm_t *c);
static inline void comm_release(comm_t *c)
{
    if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
        comm_destroy(c);
}
/* MPI_Comm_free after the attributes are deleted: the handle goes, the object stays while
 * operations use it. */
void comm_free_handle(comm_t *c);

#endif
