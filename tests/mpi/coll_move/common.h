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

static void layouts_init(void)
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

static void layouts_free(void)
{
    MPI_Type_free(&L[1].type);
    MPI_Type_free(&L[2].type);
}

static size_t lsize(const layout_t *l, long n)
{
    return (size_t)(n > 0 ? l->stride * n + l->offset : 1) + 1;
}

/* a buffer of n logical ints, all holes */
static int *lalloc(const layout_t *l, long n)
{
    size_t m = lsize(l, n);
    int *b = malloc(m * sizeof(int));
    CHECK(b);
    for (size_t i = 0; i < m; i++)
        b[i] = HOLE;
    return b;
}

#define LAT(l, b, i) ((b)[(long)(l)->stride * (i) + (l)->offset])

/* holes are untouched */
static int lholes_ok(const layout_t *l, const int *b, long n)
{
    size_t m = lsize(l, n);
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
static int val(int from, int to, long i, int iter)
{
    return (int)(from * 1000003L + to * 7919L + i * 7L + iter * 131L) & 0x3fffffff;
}

/* Runs the blocking form or, with req, the nonblocking one and waits. */
static int wait_or(int rc, MPI_Request *req)
{
    if (rc == MPI_SUCCESS && req)
        rc = MPI_Wait(req, MPI_STATUS_IGNORE);
    return rc;
}

static int rank_of(MPI_Comm c)
{
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}
static int size_of(MPI_Comm c)
{
    int n;
    MPI_Comm_size(c, &n);
    return n;
}

#endif
