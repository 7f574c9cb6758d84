/*
 * One shared-memory collective operation in a schedule (internal to coll/shm/): its
 * arguments, its place in the area's sequence, and how far it has got. shm.c builds it and
 * runs it from a schedule callback; each algorithm is a resumable state machine that returns
 * ICOLL_AGAIN while it waits for another member (area.h: the flag protocol).
 */
#ifndef METAMPI_COLL_SHM_OPS_H
#define METAMPI_COLL_SHM_OPS_H

#include "coll/shm/area.h"

enum { SHM_BARRIER, SHM_BCAST, SHM_REDUCE, SHM_ALLREDUCE, SHM_ALLGATHER, SHM_ALLTOALL };

typedef struct shm_op {
    coll_area_t *a;
    comm_t *c;
    int kind;
    int call;                 /* the collective it belongs to (comm_op_kind_t; order check) */
    uint64_t seq;             /* this operation's sequence number */
    uint64_t g0;              /* global round of its round 0 */
    uint64_t nrounds;
    int started;
    /* arguments (bcast: buf is in and out; allgather, alltoall: bytes is a slot's contents,
     * per the block size) */
    const unsigned char *in;
    unsigned char *out;
    size_t bytes;             /* all data: bcast bytes; reductions count * esize */
    size_t count, esize;      /* reductions: elements and their size */
    size_t per;               /* per round: bytes (bcast) or elements (reductions) */
    ptrdiff_t lb;             /* reductions: the type's true_lb (buffer base = data - lb) */
    dtype_t *dt;
    op_t *op;
    int root;                 /* member index; allreduce: -1 */
    int split;                /* reductions: each member combines one segment of each round */
    int root_direct;          /* whole reduce at the root: own data from `in` (reduce.c) */
    unsigned char *tmp;       /* split reduce at a non-root: its segment's result */
    int cma;                  /* by remote reads (cma.c; chosen when the operation starts) */
    /* progress */
    uint64_t r;               /* current round */
    int step;                 /* position within the round */
    int k;                    /* next member to check while waiting for many */
    int err;                  /* first error of an op_apply (reported at the end) */
    unsigned polls;           /* passes spent waiting (the order check runs now and then) */
    uint64_t checked_ms;      /* when it last ran (CLOCK_MONOTONIC, ms) */
    struct shm_op *next;      /* among the area's spare records */
} shm_op_t;

/* Frees the spare records of an area (area.c, when the area goes). */
void shm_free_spare_ops(coll_area_t *a);

/* Each returns MPI_SUCCESS when the operation is complete here, or ICOLL_AGAIN. */
int shm_run_barrier(shm_op_t *o);
int shm_run_bcast(shm_op_t *o);
int shm_run_reduce(shm_op_t *o); /* reduce and allreduce */
int shm_run_exchange(shm_op_t *o); /* allgather and alltoall (exchange.c) */
int shm_run_bcast_cma(shm_op_t *o);
int shm_run_reduce_cma(shm_op_t *o);
/* Member m's segment [*lo, *hi) of ne elements split among the members (whole cache lines
 * where the element size allows). */
void shm_segment(const shm_op_t *o, size_t ne, int m, size_t *lo, size_t *hi);

/* The point-to-point replacement when the area could not be set up (fallback.c): appends
 * (from inside o's schedule callback) the operation as messages on the node team. */
void shm_fallback(icoll_sched_t *s, shm_op_t *o);

/* Tunables read by the algorithms (shm.c). */
int coll_shm_barrier_flat(void);

#endif
