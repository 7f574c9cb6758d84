/* The reductions on intra-communicators (MPI-3.1 §5.9, §5.10): MPI_Reduce, MPI_Allreduce,
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block against a reference folded locally in rank
 * order, for a representative set of (type, op) pairs (SUM, PROD, MAX, MIN, logical and
 * bitwise ops, MINLOC/MAXLOC on the pair types, a commutative user op and a NON-COMMUTATIVE
 * user op — 2x2 matrix product — on a contiguous type and on a resized type with gaps that
 * must stay untouched), every root, counts 0, 1, random and up to 1 MiB (counts not
 * divisible by the rank count, past the algorithm switches), MPI_IN_PLACE (root of Reduce,
 * every rank of the others), random recvcounts including 0, and determinism: the same
 * Allreduce of arbitrary doubles twice gives the same bits, on every rank. Runs on
 * MPI_COMM_WORLD, a duplicate, an odd/even split, a split in reverse rank order (where rank
 * order is the new order) and MPI_COMM_SELF.
 *
 *   coll_reduce [nb]     nb: every collective through its I-form
 */
#include "coll_red.h"

static int full; /* the whole (type, op) table on this communicator */

/* MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other than 0 for more than
 * 2 KiB of data: not made under MPICH. */
#ifdef METAMPI
#define INPLACE_REDUCE_OK(root, bytes) 1
#else
#define INPLACE_REDUCE_OK(root, bytes) ((root) == 0 || (bytes) <= 2048)
#endif

/* MPICH 4.0.2's large in-place MPI_Reduce_scatter moves the result to the start of the
 * buffer with an overlapping memcpy (and asserts): not made under MPICH. */
#ifdef METAMPI
#define INPLACE_RS_OK(bytes) 1
#else
#define INPLACE_RS_OK(bytes) ((bytes) < (1 << 18))
#endif

static void do_reduce(MPI_Comm c, const redcase_t *rc, size_t count, int root, int inplace,
                      int key)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    const tdesc_t *t = &tds[rc->td];
    if (!INPLACE_REDUCE_OK(root, count * t->extent))
        inplace = 0;
    void *sbuf = rbuf_alloc(t, count), *sexp = rbuf_alloc(t, count);
    red_input(t, rc->op, sbuf, count, key, me);
    red_input(t, rc->op, sexp, count, key, me);
    void *rbuf = NULL, *exp = NULL;
    int at_root = me == root;
    if (at_root) {
        rbuf = rbuf_alloc(t, count);
        exp = rbuf_alloc(t, count);
        if (inplace)
            red_input(t, rc->op, rbuf, count, key, me);
        red_reference(t, rc->op, exp, 0, count, key, 0, n);
    }
    CHECK_RC(c_reduce(inplace && at_root ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->type,
                      rc->op, root, c),
             MPI_SUCCESS);
    if (at_root)
        red_compare(t, rc->opname, rbuf, exp, count, inplace ? "reduce in place" : "reduce");
    red_compare(t, rc->opname, sbuf, sexp, count, "reduce sendbuf");
    free(sbuf), free(sexp), free(rbuf), free(exp);
}

static void do_allreduce(MPI_Comm c, const redcase_t *rc, size_t count, int inplace, int key)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    const tdesc_t *t = &tds[rc->td];
    void *sbuf = rbuf_alloc(t, count), *rbuf = rbuf_alloc(t, count);
    void *exp = rbuf_alloc(t, count);
    red_input(t, rc->op, inplace ? rbuf : sbuf, count, key, me);
    red_reference(t, rc->op, exp, 0, count, key, 0, n);
    CHECK_RC(c_allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)count, t->type, rc->op, c),
             MPI_SUCCESS);
    red_compare(t, rc->opname, rbuf, exp, count, inplace ? "allreduce in place" : "allreduce");
    free(sbuf), free(rbuf), free(exp);
}

/* Reduce_scatter with counts[] (block: all equal, through Reduce_scatter_block). */
static void do_reduce_scatter(MPI_Comm c, const redcase_t *rc, const int *counts, int block,
                              int inplace, int key)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    const tdesc_t *t = &tds[rc->td];
    size_t total = 0, first = 0;
    for (int j = 0; j < n; j++) {
        if (j == me)
            first = total;
        total += (size_t)counts[j];
    }
    size_t mine = (size_t)counts[me];
    if (!block && !INPLACE_RS_OK(total * t->extent))
        inplace = 0;
    void *sbuf = rbuf_alloc(t, total), *rbuf = rbuf_alloc(t, inplace ? total : mine);
    void *exp = rbuf_alloc(t, mine);
    red_input(t, rc->op, inplace ? rbuf : sbuf, total, key, me);
    red_reference(t, rc->op, exp, first, mine, key, 0, n);
    const void *sb = inplace ? MPI_IN_PLACE : sbuf;
    if (block)
        CHECK_RC(c_reduce_scatter_block(sb, rbuf, counts[0], t->type, rc->op, c), MPI_SUCCESS);
    else
        CHECK_RC(c_reduce_scatter(sb, rbuf, counts, t->type, rc->op, c), MPI_SUCCESS);
    const char *what = block ? (inplace ? "reduce_scatter_block in place" : "reduce_scatter_block")
                             : (inplace ? "reduce_scatter in place" : "reduce_scatter");
    if (inplace) { /* the result is at the start; the rest of the input area is undefined */
        for (size_t i = 0; i < mine; i++)
            if (!t->eq(rbuf, exp, i))
                red_compare(t, rc->opname, rbuf, exp, mine, what);
        red_guard(t, rbuf, total);
    } else {
        red_compare(t, rc->opname, rbuf, exp, mine, what);
    }
    free(sbuf), free(rbuf), free(exp);
}

/* Counts for about `bytes` of data of an element size (never a multiple of 8 elements). */
static size_t count_for(size_t bytes, const tdesc_t *t)
{
    size_t c = bytes / t->extent;
    return c > 8 ? c - 3 : c;
}

static void t_reduce_allreduce(MPI_Comm c, int key0)
{
    int n, key = key0;
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    for (int k = 0; k < NREDCASES; k++) {
        if (!full && k % 4 != 1)
            continue;
        const redcase_t *rc = &redcases[k];
        size_t counts[2] = {(size_t)(1 + rng_int(&g, 3)), (size_t)(4 + rng_int(&g, 400))};
        for (int i = 0; i < 2; i++) {
            key++;
            int root = (k + i) % n;
            do_reduce(c, rc, counts[i], root, (k + i) % 2, key);
            do_allreduce(c, rc, counts[i], (k + i + 1) % 2, key);
        }
    }
    /* count 0 */
    key++;
    do_reduce(c, &redcases[0], 0, n - 1, 0, key);
    do_allreduce(c, &redcases[3], 0, 1, key);
    do_allreduce(c, &redcases[NREDCASES - 4], 0, 0, key);
    /* large: 64 KiB and 1 MiB (in place for one of the two, alternately) */
    static const int big[] = {0, 3, 12, 28, 34, 35};
    for (int b = 0; b < (int)(sizeof big / sizeof *big); b++) {
        const redcase_t *rc = &redcases[big[b]];
        if (!full && b % 2)
            continue;
        for (size_t bytes = 1 << 16; bytes <= 1 << 20; bytes <<= 4) {
            if (bytes == 1 << 20 && b != 1 && b != 4) /* 1 MiB: double sum, matrices */
                continue;
            key++;
            size_t cnt = count_for(bytes, &tds[rc->td]);
            int inplace = (bytes == 1 << 20) == b % 2;
            do_reduce(c, rc, cnt, b % 2 ? n - 1 : 0, inplace, key);
            do_allreduce(c, rc, cnt, !inplace, key);
        }
    }
}

static void t_reduce_scatter(MPI_Comm c, int key0)
{
    int n, key = key0;
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    int *counts = malloc((size_t)n * sizeof *counts);
    static const int sel[] = {0, 3, 9, 20, 28, 34, 35, 36};
    static const int maxc[] = {2, 200, -1};
    for (int s = 0; s < (int)(sizeof sel / sizeof *sel); s++) {
        const redcase_t *rc = &redcases[sel[s]];
        if (!full && s % 3)
            continue;
#ifndef METAMPI
        /* MPICH 4.0.2 returns wrong blocks for a non-commutative op on a type whose extent
         * differs from its size (it seems to step through the input by the size) */
        if (rc->td == TD_MATGAP)
            continue;
#endif
        for (int m = 0; m < 3; m++) {
            if (m == 2 && s % 2) /* about 1 MiB: for every other pair */
                continue;
            int mc = maxc[m] > 0 ? maxc[m] : (int)count_for((1 << 20) / (size_t)n, &tds[rc->td]);
            for (int inplace = 0; inplace < 2; inplace++) {
                key++;
                for (int j = 0; j < n; j++)
                    counts[j] = m == 2 && j % 2 ? mc : rng_count(&g, mc);
                do_reduce_scatter(c, rc, counts, 0, inplace, key);
                for (int j = 0; j < n; j++)
                    counts[j] = counts[0];
                do_reduce_scatter(c, rc, counts, 1, !inplace, key);
            }
        }
    }
    free(counts);
}

/* Arbitrary doubles of all magnitudes and signs: a sum whose rounding depends on the order. */
static void rough_doubles(double *d, size_t count, int key, int who)
{
    static const double scale[8] = {1e-8, 1e-3, 1, 3, 1e3, 1e6, 1e12, 1e-300};
    for (size_t i = 0; i < count; i++) {
        uint32_t h = mix3((uint32_t)key, (uint32_t)who, (uint32_t)i);
        d[i] = ((double)mix3(h, 7, 7) / 4294967296.0 - 0.5) * scale[h % 8];
    }
}

/* The same Allreduce (and Reduce) twice gives the same bits, and every rank has rank 0's. */
static void t_determinism(MPI_Comm c, int key)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    static const size_t counts[] = {1, 7, 4099, 131069};
    for (int k = 0; k < 4; k++) {
        size_t cnt = counts[k];
        double *in = malloc(cnt * sizeof *in), *r1 = malloc(cnt * sizeof *in),
               *r2 = malloc(cnt * sizeof *in), *r0 = malloc(cnt * sizeof *in);
        rough_doubles(in, cnt, key + k, me);
        CHECK_RC(c_allreduce(in, r1, (int)cnt, MPI_DOUBLE, MPI_SUM, c), MPI_SUCCESS);
        CHECK_RC(c_allreduce(in, r2, (int)cnt, MPI_DOUBLE, MPI_SUM, c), MPI_SUCCESS);
        CHECK(memcmp(r1, r2, cnt * sizeof *r1) == 0);
        memcpy(r0, r1, cnt * sizeof *r1);
        CHECK_RC(MPI_Bcast(r0, (int)cnt, MPI_DOUBLE, 0, c), MPI_SUCCESS);
        CHECK(memcmp(r0, r1, cnt * sizeof *r1) == 0);
        memcpy(r2, in, cnt * sizeof *r2);
        CHECK_RC(c_allreduce(MPI_IN_PLACE, r2, (int)cnt, MPI_DOUBLE, MPI_SUM, c), MPI_SUCCESS);
        CHECK(memcmp(r1, r2, cnt * sizeof *r1) == 0);
        CHECK_RC(c_reduce(in, r1, (int)cnt, MPI_DOUBLE, MPI_SUM, n - 1, c), MPI_SUCCESS);
        CHECK_RC(c_reduce(in, r2, (int)cnt, MPI_DOUBLE, MPI_SUM, n - 1, c), MPI_SUCCESS);
        if (me == n - 1)
            CHECK(memcmp(r1, r2, cnt * sizeof *r1) == 0);
        free(in), free(r1), free(r2), free(r0);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    coll_args(argc, argv);
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    red_init();
    comms_init();
    for (int ci = 0; ci < NCOMMS; ci++) {
        MPI_Comm c = comms[ci];
        int key = (ci + 1) << 20;
        coll_ctx = comm_names[ci];
        full = ci == 0 || ci == 3;
        t_reduce_allreduce(c, key + (1 << 16));
        t_reduce_scatter(c, key + (2 << 16));
        t_determinism(c, key + (3 << 16));
    }
    comms_free();
    red_free();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_reduce%s: ok\n", coll_nb ? " (nonblocking)" : "");
    return 0;
}
