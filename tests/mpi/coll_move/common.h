/* Helpers of the data-movement collective tests: int data in three layouts (so that members
 * of one collective use different datatypes with the same signature), reference values, and
 * a blocking/nonblocking switch. */
#ifndef COLL_MOVE_COMMON_H
#define COLL_MOVE_COMMON_H

#include "../check.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#define HOLE (-7777777)

/* Logical int i of a buffer lives at physical int stride*i + offset. */
typedef struct layout {
    MPI_Datatype type;
    int stride, offset;
    const char *name;
} layout_t;

enum { NLAYOUTS = 3 };
static layout_t L[NLAYOUTS];

static inline void layouts_init(void)
{
    L[0] = (layout_t){ MPI_INT, 1, 0, "contiguous" };
    MPI_Datatype t;
    /* every other int */
    MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &t);
    MPI_Type_commit(&t);
    L[1] = (layout_t){ t, 2, 0, "strided" };
    /* the middle int of each 3 (true_lb 4) */
    int blen = 1;
    MPI_Aint disp = sizeof(int);
    MPI_Datatype h, r;
    MPI_Type_create_hindexed(1, &blen, &disp, MPI_INT, &h);
    MPI_Type_create_resized(h, 0, 3 * (MPI_Aint)sizeof(int), &r);
    MPI_Type_free(&h);
    MPI_Type_commit(&r);
    L[2] = (layout_t){ r, 3, 1, "offset" };
}

static inline void layouts_free(void)
{
    MPI_Type_free(&L[1].type);
    MPI_Type_free(&L[2].type);
}

static inline size_t lspan(const layout_t *l, long n)
{
    return (size_t)(n > 0 ? l->stride * n + l->offset : 1) + 1;
}

/* a buffer of n logical ints, all holes */
static inline int *lalloc(const layout_t *l, long n)
{
    size_t m = lspan(l, n);
    int *b = malloc(m * sizeof(int));
    CHECK(b);
    for (size_t i = 0; i < m; i++)
        b[i] = HOLE;
    return b;
}

#define LAT(l, b, i) ((b)[(long)(l)->stride * (i) + (l)->offset])

/* holes are untouched */
static inline int lholes_ok(const layout_t *l, const int *b, long n)
{
    size_t m = lspan(l, n);
    for (size_t i = 0; i < m; i++) {
        if (n > 0 && (long)i >= l->offset && ((long)i - l->offset) % l->stride == 0 &&
            ((long)i - l->offset) / l->stride < n)
            continue;
        if (b[i] != HOLE)
            return 0;
    }
    return 1;
}

/* the value logical int i of the data of rank `from` (to `to`) has in test `iter` */
static inline int val(int from, int to, long i, int iter)
{
    return (int)(from * 1000003L + to * 7919L + i * 7L + iter * 131L) & 0x3fffffff;
}

/* Runs the blocking form or, with req, the nonblocking one and waits. */
static inline int wait_or(int rc, MPI_Request *req)
{
    if (rc == MPI_SUCCESS && req)
        rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    return rc;
}

static inline int rank_of(MPI_Comm c)
{
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}
static inline int size_of(MPI_Comm c)
{
    int n;
    MPI_Comm_size(c, &n);
    return n;
}

/* The communicators every test runs on: MPI_COMM_WORLD; the even and the odd ranks, each in
 * reverse order; all ranks interleaved (0, n/2, 1, n/2+1, ...), so that over virtual hosts
 * the members of one host are not consecutive ranks. */
enum { NCOMMS = 3 };
static inline void comms_create(MPI_Comm *c)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD), h = (n + 1) / 2;
    c[0] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &c[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, me < h ? 2 * me : 2 * (me - h) + 1, &c[2]);
}
static inline void comms_free(MPI_Comm *c)
{
    MPI_Comm_free(&c[1]);
    MPI_Comm_free(&c[2]);
}

#endif
