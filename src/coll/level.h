/*
 * The levels of the collectives behind one interface (docs/collectives.md, "Levels").
 *
 * A level is a way of running a whole collective: inter (inter-communicators), direct (two
 * members, blocking, no schedule), none (nothing to move), sites (several sites), hier
 * (several hosts), shm (one host's shared area), p2p (a point-to-point algorithm of algo/
 * over the whole communicator). Each collective that goes through the dispatcher has one
 * coll_level_t per level it knows (coll_family_t); the dispatcher (coll_start, dispatch.c; the entry point names the family)
 * asks them in the order of the collective's level rows in the selection table (table.c):
 * the first whose row applies and that takes the call builds it. The p2p level comes last
 * and never declines.
 *
 * can_take looks only at what is the same at every member (arguments MPI requires to be
 * consistent, the environment, the communicator's layout), so every member runs the same
 * level; it appends, sends and allocates nothing and may leave what it found in call->found
 * for build. build either serves the call (MPI_SUCCESS or an error class) or answers
 * COLL_DECLINED: then it has appended and sent nothing and the dispatcher asks the next level
 * (the shared area declines when no area serves the call). A level calls only the levels
 * after it (through the dispatcher, or a phase's team algorithm) and the algorithms, never an
 * entry point; an algorithm calls neither (src/layers.txt checks the circles).
 *
 * The schedule: the dispatcher begins it (icoll_sched_new_op, which takes the collective's
 * sequence number) just before the first level that needs one builds. Only the direct level
 * runs without one, and only for a blocking call whose schedule is not begun yet (a phase of
 * another level, e.g. an inter-communicator's local broadcast, always has one).
 */
#ifndef METAMPI_COLL_LEVEL_H
#define METAMPI_COLL_LEVEL_H

#include "coll/select.h"
#include "core/schedule.h"

#include <stddef.h>

/* Not served, nothing done: ask the next level. Distinct from MPI_SUCCESS and every error
 * class. */
#define COLL_DECLINED (-2)

struct dtype;
struct op;

/* One collective call as the levels see it. The entry fills kind, stream, comm and the
 * arguments its collective has; s is the schedule when the caller already has one (a phase of
 * another collective), else NULL and begun by the dispatcher. */
typedef struct coll_call {
    comm_op_kind_t kind;
    comm_stream_t stream;       /* COMM_BLOCKING or COMM_NONBLOCKING */
    comm_t *comm;
    icoll_sched_t *s;           /* NULL until a level needs it (and after the direct level) */
    int direct;                 /* set when the direct level served (no schedule) */
    void *buf;                  /* bcast: the buffer */
    const void *sbuf;           /* reductions: the send buffer (COLL_IN_PLACE) ... */
    void *rbuf;                 /* ... and the receive buffer */
    size_t count;
    struct dtype *dt;
    struct op *op;
    int root;
    size_t scount, rcount;      /* data movement: the send and receive sides */
    struct dtype *stype, *rtype;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    struct dtype *const *stypes, *const *rtypes; /* alltoallw, neighbor_alltoallw */
    size_t size;                /* what the table's size measures (coll_table_t.size) */
    const void *found;          /* what the last can_take that said yes found, for its build */
    void *prepared;             /* what the entry prepared for every level (neighbourhood
                                 * collectives: the blocks, coll/neighbor.c) */
} coll_call_t;

/* Level flags. */
enum {
    COLL_LEVEL_NO_SCHEDULE = 1  /* runs without a schedule (the direct level) */
};

typedef struct coll_level {
    coll_level_id_t id;
    unsigned flags;             /* COLL_LEVEL_* */
    /* MPI_SUCCESS: takes the call; COLL_DECLINED: does not; else an error class (no memory
     * while looking at the layout). NULL: takes every call it is asked. */
    int (*can_take)(coll_call_t *call);
    /* MPI_SUCCESS, an error class, or COLL_DECLINED (nothing appended or sent). */
    int (*build)(coll_call_t *call);
} coll_level_t;

/* The levels of one collective, by level id (NULL: the collective has no such level). */
typedef struct coll_family {
    comm_op_kind_t kind;
    const coll_level_t *levels[COLL_LEVELS];
} coll_family_t;

/* can_take of every family's inter level: the call is on an inter-communicator. */
int coll_takes_inter(coll_call_t *call);

/* The dispatcher: asks the levels of f (call->kind's) in table order and returns what the first
 * that takes it returns (MPI_SUCCESS or an error class). After it, call->direct says whether
 * the call ran without a schedule; else call->s is its schedule (NULL when beginning it
 * failed: MPI_ERR_NO_MEM). */
int coll_start(const coll_family_t *f, coll_call_t *call);

/* The collectives that go through the dispatcher: the entry points. */
extern const coll_family_t coll_barrier_family;   /* barrier.c */
extern const coll_family_t coll_bcast_family;     /* bcast.c */
extern const coll_family_t coll_reduce_family;    /* reduce.c */
extern const coll_family_t coll_allreduce_family; /* allreduce.c */
extern const coll_family_t coll_gather_family;    /* gather.c */
extern const coll_family_t coll_gatherv_family;   /* gather.c */
extern const coll_family_t coll_scatter_family;   /* scatter.c */
extern const coll_family_t coll_scatterv_family;  /* scatter.c */
extern const coll_family_t coll_allgather_family;  /* allgather.c */
extern const coll_family_t coll_allgatherv_family; /* allgather.c */
extern const coll_family_t coll_alltoall_family;   /* alltoall.c */
extern const coll_family_t coll_alltoallv_family;  /* alltoall.c */
extern const coll_family_t coll_alltoallw_family;  /* alltoall.c */
extern const coll_family_t coll_scan_family;       /* scan.c (scan and exscan) */
extern const coll_family_t coll_reduce_scatter_family; /* reduce_scatter.c (and _block) */
extern const coll_family_t coll_neighbor_family;  /* neighbor.c (all five) */

#endif
