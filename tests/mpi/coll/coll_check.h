/* Shared helpers of the collective tests (coll_*.c): error classes, a seeded generator that
 * gives every rank the same sequence (so each rank can compute what every other rank sent),
 * per-(case, rank, index) values, integer buffer layouts of several datatypes with expected
 * images to compare whole buffers (gaps and guard zones included), the communicators every
 * test runs on, and wrappers that run each collective as its blocking form or, in "nb" mode
 * (argument "nb"), as its I-form completed by MPI_Wait, a MPI_Test loop or MPI_Waitany in
 * turn. Plain MPI: validated against MPICH with run_with_mpich.sh. */
#ifndef METAMPI_TEST_COLL_CHECK_H
#define METAMPI_TEST_COLL_CHECK_H

#include "../check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- error classes -------------------------------------------------------------------- */

/* The error class of a return code (MPICH returns codes, not classes). */
static inline int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}
#define CHECK_ERR(expr, klass) CHECK_RC(cls(expr), klass)

/* ---- deterministic data ----------------------------------------------------------------- */

typedef struct {
    uint64_t s;
} rng_t;

static inline uint64_t rng_next(rng_t *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull); /* splitmix64 */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0). */
static inline int rng_int(rng_t *g, int n) { return (int)(rng_next(g) % (uint64_t)n); }

/* A small count: 0 one time in four, otherwise 1..max. */
static inline int rng_count(rng_t *g, int max)
{
    return rng_int(g, 4) == 0 ? 0 : 1 + rng_int(g, max);
}

static inline uint32_t mix3(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t z = ((uint64_t)a << 32 | b) ^ ((uint64_t)c * 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 33)) * 0xff51afd7ed558ccdull;
    z = (z ^ (z >> 33)) * 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(z ^ (z >> 33));
}

/* The k-th int of the data that process `who` contributes in case `key`: never negative, so
 * never equal to SENT. */
static inline int val(int key, int who, int k)
{
    return (int)(mix3((uint32_t)key, (uint32_t)who, (uint32_t)k) & 0x3fffffffu);
}

/* What buffers hold where no data may be written (gaps, guards, untouched blocks). */
#define SENT (-0x21524111) /* 0xdeadbeef */
#define GUARD 8            /* ints of guard after every buffer */

/* What is being tested (named in failure reports). */
static const char *coll_ctx = "";

/* ---- integer layouts: a datatype and where its ints lie ---------------------------------- */

/* Element e of `count` elements holds ints k = e * nint + j (j < nint) of the signature at
 * int offset e * extent + off[j]. Every layout is a sequence of MPI_INTs, so any two match
 * when they carry the same number of ints. */
typedef struct {
    MPI_Datatype type;
    int nint, extent, off[2];
    const char *name;
} lay_t;

enum { LAY_INT, LAY_PAIR, LAY_VEC, LAY_REV, NLAY };
static lay_t lays[NLAY];

static inline void lay_init(void)
{
    MPI_Datatype v;
    lays[LAY_INT] = (lay_t){MPI_INT, 1, 1, {0, 0}, "int"};
    /* two contiguous ints */
    lays[LAY_PAIR] = (lay_t){MPI_DATATYPE_NULL, 2, 2, {0, 1}, "contig2"};
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &lays[LAY_PAIR].type), MPI_SUCCESS);
    /* ints 0 and 2 of 4: a vector resized to leave a trailing gap */
    lays[LAY_VEC] = (lay_t){MPI_DATATYPE_NULL, 2, 4, {0, 2}, "vector"};
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_resized(v, 0, 4 * (MPI_Aint)sizeof(int), &lays[LAY_VEC].type),
             MPI_SUCCESS);
    MPI_Type_free(&v);
    /* ints 1 then 0 of 3: an indexed type whose order is not the memory order */
    lays[LAY_REV] = (lay_t){MPI_DATATYPE_NULL, 2, 3, {1, 0}, "reversed"};
    int bl[2] = {1, 1}, disp[2] = {1, 0};
    CHECK_RC(MPI_Type_indexed(2, bl, disp, MPI_INT, &v), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_resized(v, 0, 3 * (MPI_Aint)sizeof(int), &lays[LAY_REV].type),
             MPI_SUCCESS);
    MPI_Type_free(&v);
    for (int i = LAY_PAIR; i < NLAY; i++)
        CHECK_RC(MPI_Type_commit(&lays[i].type), MPI_SUCCESS);
}

static inline void lay_free(void)
{
    for (int i = LAY_PAIR; i < NLAY; i++)
        MPI_Type_free(&lays[i].type);
}

/* Ints spanned by `count` elements. */
static inline size_t lay_span(const lay_t *l, int count) { return (size_t)count * (size_t)l->extent; }

/* Count of elements of l carrying nints ints (nints is a multiple of l->nint). */
static inline int lay_count(const lay_t *l, int nints) { return nints / l->nint; }

/* Writes ints k0 .. k0 + count * nint - 1 of (key, who) into the elements at buf. */
static inline void lay_put(const lay_t *l, int *buf, int count, int key, int who, int k0)
{
    for (int e = 0; e < count; e++)
        for (int j = 0; j < l->nint; j++)
            buf[(size_t)e * (size_t)l->extent + (size_t)l->off[j]] =
                val(key, who, k0 + e * l->nint + j);
}

/* A buffer of n ints plus GUARD, all SENT. */
static inline int *ibuf(size_t n)
{
    int *b = malloc((n + GUARD) * sizeof *b);
    CHECK(b != NULL);
    for (size_t i = 0; i < n + GUARD; i++)
        b[i] = SENT;
    return b;
}

/* Compares n ints (plus the guard) with the expected image; on a difference names it. */
static inline void check_ints_(const int *got, const int *exp, size_t n, const char *what,
                               const char *file, int line)
{
    for (size_t i = 0; i < n + GUARD; i++)
        if (got[i] != exp[i]) {
            fprintf(stderr, "FAIL rank %d %s:%d: %s (%s): int %zu of %zu is %d, expected %d\n",
                    check_rank_(), file, line, what, coll_ctx, i, n, got[i], exp[i]);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}
#define check_ints(got, exp, n, what) check_ints_(got, exp, n, what, __FILE__, __LINE__)

/* The layout a rank uses for nints ints in case key: ints when nints is odd, otherwise one
 * of the layouts, different on neighbouring ranks. */
static inline const lay_t *pick(int key, int who, int nints)
{
    if (nints % 2)
        return &lays[LAY_INT];
    return &lays[(unsigned)(key * 7 + who) % NLAY];
}

/* Sizes (ints per block) a test walks through: fixed[i], or for -1 a random small one, for
 * -2 a random medium one. */
static inline int size_at(rng_t *g, const int *fixed, int i)
{
    if (fixed[i] == -1)
        return rng_int(g, 64) + 1;
    if (fixed[i] == -2)
        return 64 + rng_int(g, 2000);
    return fixed[i];
}

/* n random counts of ints (even if `even`), the same on every rank drawing them from g. */
static inline void v_counts(rng_t *g, int n, int maxc, int even, int *cnt_ints)
{
    for (int j = 0; j < n; j++)
        cnt_ints[j] = rng_count(g, maxc) * (even ? 2 : 1);
}

/* Displacements (in elements of nint ints) of n blocks of cnt_ints[j] ints: in a random
 * order with random gaps, a local choice of process `who` (drawn from its own generator).
 * Returns the span of the area in elements. */
static inline int v_displs(int key, int who, int n, const int *cnt_ints, int nint, int *displs)
{
    rng_t g = {(uint64_t)key * 1000003u + (uint64_t)who};
    int *order = malloc((size_t)n * sizeof *order);
    for (int j = 0; j < n; j++)
        order[j] = j;
    for (int j = n - 1; j > 0; j--) {
        int k = rng_int(&g, j + 1), t = order[j];
        order[j] = order[k];
        order[k] = t;
    }
    int pos = 0;
    for (int j = 0; j < n; j++) {
        int b = order[j];
        pos += rng_int(&g, 3);
        displs[b] = pos;
        pos += cnt_ints[b] / nint;
    }
    free(order);
    return pos;
}

/* ---- communicators every test runs on ------------------------------------------------- */

/* MPI_COMM_WORLD, a duplicate, an odd/even split, a split with the ranks reversed, and
 * MPI_COMM_SELF. */
#define NCOMMS 5
static MPI_Comm comms[NCOMMS];
static const char *const comm_names[NCOMMS] = {"world", "dup", "oddeven", "reversed", "self"};

static inline void comms_init(void)
{
    int r, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    comms[0] = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &comms[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, n - r, &comms[3]), MPI_SUCCESS);
    comms[4] = MPI_COMM_SELF;
    int cr;
    MPI_Comm_rank(comms[3], &cr);
    CHECK(cr == n - 1 - r);
}

static inline void comms_free(void)
{
    for (int i = 1; i < 4; i++)
        MPI_Comm_free(&comms[i]);
}

/* ---- blocking or nonblocking --------------------------------------------------------------- */

/* 1: every c_* wrapper runs the I-form and completes it. */
static int coll_nb;
static int coll_nb_turn;

static inline void coll_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "nb") == 0)
            coll_nb = 1;
}

/* Completes a collective request: MPI_Wait, MPI_Test until done, or MPI_Waitany, in turn. */
static inline int coll_complete(MPI_Request *rq)
{
    int rc, flag = 0, idx = -1;
    MPI_Status st;
    switch (coll_nb_turn++ % 3) {
    case 0:
        rc = MPI_Wait(rq, &st);
        break;
    case 1:
        do
            rc = MPI_Test(rq, &flag, &st);
        while (rc == MPI_SUCCESS && !flag);
        break;
    default:
        rc = MPI_Waitany(1, rq, &idx, &st);
        CHECK(rc != MPI_SUCCESS || idx == 0);
        break;
    }
    CHECK(rc != MPI_SUCCESS || *rq == MPI_REQUEST_NULL);
    return rc;
}

#define NB_RUN(icall)                                                                          \
    do {                                                                                       \
        MPI_Request rq_ = MPI_REQUEST_NULL;                                                    \
        int rc_ = (icall);                                                                     \
        if (rc_ != MPI_SUCCESS)                                                                \
            return rc_;                                                                        \
        return coll_complete(&rq_);                                                            \
    } while (0)

static inline int c_barrier(MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Barrier(c);
    NB_RUN(MPI_Ibarrier(c, &rq_));
}

static inline int c_bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Bcast(b, n, t, root, c);
    NB_RUN(MPI_Ibcast(b, n, t, root, c, &rq_));
}

static inline int c_gather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                           MPI_Datatype rt, int root, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Gather(sb, sn, st, rb, rn, rt, root, c);
    NB_RUN(MPI_Igather(sb, sn, st, rb, rn, rt, root, c, &rq_));
}

static inline int c_gatherv(const void *sb, int sn, MPI_Datatype st, void *rb, const int *rn,
                            const int *rd, MPI_Datatype rt, int root, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Gatherv(sb, sn, st, rb, rn, rd, rt, root, c);
    NB_RUN(MPI_Igatherv(sb, sn, st, rb, rn, rd, rt, root, c, &rq_));
}

static inline int c_scatter(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                            MPI_Datatype rt, int root, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Scatter(sb, sn, st, rb, rn, rt, root, c);
    NB_RUN(MPI_Iscatter(sb, sn, st, rb, rn, rt, root, c, &rq_));
}

static inline int c_scatterv(const void *sb, const int *sn, const int *sd, MPI_Datatype st,
                             void *rb, int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Scatterv(sb, sn, sd, st, rb, rn, rt, root, c);
    NB_RUN(MPI_Iscatterv(sb, sn, sd, st, rb, rn, rt, root, c, &rq_));
}

static inline int c_allgather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                              MPI_Datatype rt, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Allgather(sb, sn, st, rb, rn, rt, c);
    NB_RUN(MPI_Iallgather(sb, sn, st, rb, rn, rt, c, &rq_));
}

static inline int c_allgatherv(const void *sb, int sn, MPI_Datatype st, void *rb,
                               const int *rn, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Allgatherv(sb, sn, st, rb, rn, rd, rt, c);
    NB_RUN(MPI_Iallgatherv(sb, sn, st, rb, rn, rd, rt, c, &rq_));
}

static inline int c_alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                             MPI_Datatype rt, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Alltoall(sb, sn, st, rb, rn, rt, c);
    NB_RUN(MPI_Ialltoall(sb, sn, st, rb, rn, rt, c, &rq_));
}

static inline int c_alltoallv(const void *sb, const int *sn, const int *sd, MPI_Datatype st,
                              void *rb, const int *rn, const int *rd, MPI_Datatype rt,
                              MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Alltoallv(sb, sn, sd, st, rb, rn, rd, rt, c);
    NB_RUN(MPI_Ialltoallv(sb, sn, sd, st, rb, rn, rd, rt, c, &rq_));
}

static inline int c_alltoallw(const void *sb, const int *sn, const int *sd,
                              const MPI_Datatype *st, void *rb, const int *rn, const int *rd,
                              const MPI_Datatype *rt, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Alltoallw(sb, sn, sd, st, rb, rn, rd, rt, c);
    NB_RUN(MPI_Ialltoallw(sb, sn, sd, st, rb, rn, rd, rt, c, &rq_));
}

static inline int c_reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                           int root, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Reduce(sb, rb, n, t, op, root, c);
    NB_RUN(MPI_Ireduce(sb, rb, n, t, op, root, c, &rq_));
}

static inline int c_allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                              MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Allreduce(sb, rb, n, t, op, c);
    NB_RUN(MPI_Iallreduce(sb, rb, n, t, op, c, &rq_));
}

static inline int c_reduce_scatter(const void *sb, void *rb, const int *rn, MPI_Datatype t,
                                   MPI_Op op, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Reduce_scatter(sb, rb, rn, t, op, c);
    NB_RUN(MPI_Ireduce_scatter(sb, rb, rn, t, op, c, &rq_));
}

static inline int c_reduce_scatter_block(const void *sb, void *rb, int rn, MPI_Datatype t,
                                         MPI_Op op, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Reduce_scatter_block(sb, rb, rn, t, op, c);
    NB_RUN(MPI_Ireduce_scatter_block(sb, rb, rn, t, op, c, &rq_));
}

static inline int c_scan(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                         MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Scan(sb, rb, n, t, op, c);
    NB_RUN(MPI_Iscan(sb, rb, n, t, op, c, &rq_));
}

static inline int c_exscan(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op,
                           MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Exscan(sb, rb, n, t, op, c);
    NB_RUN(MPI_Iexscan(sb, rb, n, t, op, c, &rq_));
}

static inline int c_neighbor_allgather(const void *sb, int sn, MPI_Datatype st, void *rb,
                                       int rn, MPI_Datatype rt, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Neighbor_allgather(sb, sn, st, rb, rn, rt, c);
    NB_RUN(MPI_Ineighbor_allgather(sb, sn, st, rb, rn, rt, c, &rq_));
}

static inline int c_neighbor_allgatherv(const void *sb, int sn, MPI_Datatype st, void *rb,
                                        const int *rn, const int *rd, MPI_Datatype rt,
                                        MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Neighbor_allgatherv(sb, sn, st, rb, rn, rd, rt, c);
    NB_RUN(MPI_Ineighbor_allgatherv(sb, sn, st, rb, rn, rd, rt, c, &rq_));
}

static inline int c_neighbor_alltoall(const void *sb, int sn, MPI_Datatype st, void *rb,
                                      int rn, MPI_Datatype rt, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Neighbor_alltoall(sb, sn, st, rb, rn, rt, c);
    NB_RUN(MPI_Ineighbor_alltoall(sb, sn, st, rb, rn, rt, c, &rq_));
}

static inline int c_neighbor_alltoallv(const void *sb, const int *sn, const int *sd,
                                       MPI_Datatype st, void *rb, const int *rn,
                                       const int *rd, MPI_Datatype rt, MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Neighbor_alltoallv(sb, sn, sd, st, rb, rn, rd, rt, c);
    NB_RUN(MPI_Ineighbor_alltoallv(sb, sn, sd, st, rb, rn, rd, rt, c, &rq_));
}

static inline int c_neighbor_alltoallw(const void *sb, const int *sn, const MPI_Aint *sd,
                                       const MPI_Datatype *st, void *rb, const int *rn,
                                       const MPI_Aint *rd, const MPI_Datatype *rt,
                                       MPI_Comm c)
{
    if (!coll_nb)
        return MPI_Neighbor_alltoallw(sb, sn, sd, st, rb, rn, rd, rt, c);
    NB_RUN(MPI_Ineighbor_alltoallw(sb, sn, sd, st, rb, rn, rd, rt, c, &rq_));
}

#endif
