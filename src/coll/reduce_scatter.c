/*
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block and their I-forms: one implementation over
 * per-rank counts (the block form has them all equal).
 *
 * Selection (docs/collectives.md, "Synchronisation and reductions"):
 *  - commutative op and fewer than METAMPI_COLL_REDUCE_SCATTER_LONG bytes in the whole
 *    vector: recursive halving (log2 rounds, fold for non-powers of two);
 *  - otherwise pairwise exchange (all n-1 blocks travel at once, combined in rank order:
 *    any op);
 *  - several hosts: the hierarchical allreduce up to the leaders, which hand each member of
 *    their host its block.
 * METAMPI_COLL_REDUCE_SCATTER=recursive_halving|pairwise forces one (recursive halving falls
 * back to pairwise for non-commutative ops).
 */
#include "coll/red.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

enum { ALG_HALVING, ALG_PAIRWISE }; /* in the order of the selection table (coll/table.c) */

typedef struct blocks {
    const size_t *cnt, *displ; /* n counts; n+1 displacements (displ[n] = total) */
} blocks_t;

typedef struct slots {
    icoll_sched_t *s;
    dtype_t *dt;
    size_t each;
    int n;
    char *base;
} slots_t;

/* Slot j of n (allocated on first use); NULL when out of memory. */
static void *slot(slots_t *sl, int j)
{
    if (!sl->base && !(sl->base = red_temp(sl->s, (size_t)sl->n * sl->each, sl->dt)))
        return NULL;
    return red_at(sl->base, (size_t)j * sl->each, sl->dt);
}

/* Everyone sends each member that member's block, all at once; member me combines the n
 * contributions to its block in rank order: x0 op x1 op ... op x(n-1). */
static void pairwise(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     const blocks_t *b, dtype_t *dt, op_t *op)
{
    int n = t->size, me = t->rank, inplace = in == out;
    size_t cm = b->cnt[me];
    slots_t sl = { s, dt, cm, n, NULL };
    /* out is a fine place for the last operand, unless it overlaps our input (in place) */
    for (int i = 1; i < n; i++) {
        int dst = (me + i) % n, src = (me - i + n) % n;
        red_send(s, t, dst, in, b->displ[dst], b->cnt[dst], dt);
        if (cm) {
            void *to = !inplace && src == n - 1 ? out : slot(&sl, src);
            if (!to)
                return;
            red_recv(s, t, src, to, 0, cm, dt);
        }
    }
    if (cm == 0)
        return;
    const void *acc = NULL;
    for (int j = 0; j < n; j++) {
        void *bj;
        if (j == me) {
            if (j == 0) { /* our operand is only read */
                acc = red_at(in, b->displ[me], dt);
                continue;
            }
            if (!(bj = !inplace && me == n - 1 ? out : slot(&sl, me)))
                return;
            red_copy(s, in, b->displ[me], bj, 0, cm, dt);
        } else {
            bj = !inplace && j == n - 1 ? out : slot(&sl, j);
        }
        if (j > 0)
            red_op(s, op, acc, bj, 0, cm, dt);
        acc = bj;
    }
    red_copy(s, acc, 0, out, 0, cm, dt);
}

/* Recursive halving (commutative only): partners p2/2, p2/4, ... apart exchange the half of
 * their current range of blocks the other keeps; ranges of active members map to contiguous
 * element ranges because folding keeps rank order. */
static void halving(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                    const blocks_t *b, dtype_t *dt, op_t *op)
{
    int n = t->size, me = t->rank;
    size_t total = b->displ[n];
    red_fold_t f = red_fold(n, me);
#define E(k) ((k) == f.p2 ? total : b->displ[(k) < f.rem ? 2 * (k) : (k) + f.rem])
    if (f.nr < 0) {
        red_send(s, t, me + 1, in, 0, total, dt);
        icoll_sched_fence(s);
        red_recv(s, t, me + 1, out, 0, b->cnt[me], dt);
        return;
    }
    slots_t sl = { s, dt, total, 2, NULL };
    const void *acc = in; /* read-only until the first combination */
    int at = -1;          /* slot holding acc, -1: in */
    if (me < 2 * f.rem) {
        void *w = slot(&sl, 0);
        if (!w)
            return;
        red_recv(s, t, me - 1, w, 0, total, dt);
        red_op(s, op, in, w, 0, total, dt);
        acc = w;
        at = 0;
    }
    int lo = 0, hi = f.p2;
    for (int m = f.p2 / 2; m >= 1; m /= 2) {
        int pn = f.nr ^ m, peer = red_fold_member(&f, pn), mid = lo + m;
        int klo = f.nr < pn ? lo : mid, khi = f.nr < pn ? mid : hi;
        int glo = f.nr < pn ? mid : lo, ghi = f.nr < pn ? hi : mid;
        red_send(s, t, peer, acc, E(glo), E(ghi) - E(glo), dt);
        void *r = slot(&sl, at == 0 ? 1 : 0);
        if (!r)
            return;
        red_recv(s, t, peer, r, E(klo), E(khi) - E(klo), dt);
        if (at < 0) { /* x(me) op theirs, into the receive buffer */
            red_op(s, op, acc, r, E(klo), E(khi) - E(klo), dt);
            acc = r;
            at = 0;
        } else {
            red_op(s, op, r, (void *)(uintptr_t)acc, E(klo), E(khi) - E(klo), dt);
        }
        lo = klo;
        hi = khi;
    }
#undef E
    if (me < 2 * f.rem)
        red_send(s, t, me - 1, acc, b->displ[me - 1], b->cnt[me - 1], dt);
    red_copy(s, acc, b->displ[me], out, 0, b->cnt[me], dt);
}

static int reduce_scatter(icoll_sched_t *s, comm_t *c, const void *sbuf, void *rbuf,
                          const blocks_t *b, dtype_t *dt, op_t *op)
{
    if (comm_is_inter(c)) {
        size_t all = 0;
        for (int i = 0; i < c->size; i++)
            all += b->cnt[i];
        coll_trace_note("inter", "-", all * (size_t)dt->size);
        red_inter_reduce_scatter(s, c, sbuf, rbuf, b->cnt, dt, op);
        return MPI_SUCCESS;
    }
    int n = c->size, me = c->rank;
    size_t total = b->displ[n];
    if (total == 0) {
        coll_trace_note("none", "-", 0);
        return MPI_SUCCESS;
    }
    const void *in = sbuf == COLL_IN_PLACE ? rbuf : sbuf;
    const coll_sites_t *S = red_sites(c, op);
    const coll_hier_t *h = S ? coll_hier(c) : red_hier(c, op);
    static const char *const ar_names[] = { "shm", "recursive_doubling", "rabenseifner",
                                            "ring" };
    if (S)
        coll_trace_note("sites", "-", total * (size_t)dt->size);
    else if (h)
        coll_trace_note("hier", ar_names[red_allreduce_choice(h->nhosts, total, dt, op)],
                        total * (size_t)dt->size);
    if (h) {
        int leader = h->node.rank == 0;
        void *all = NULL;
        if (leader && !(all = red_temp(s, total, dt)))
            return MPI_SUCCESS; /* out of memory: recorded on s */
        int rc = S ? site_allreduce(s, c, S, in, all, total, dt, op, 0)
                   : red_allreduce_hier(s, c, h, in, all, total, dt, op, 0);
        if (rc != MPI_SUCCESS)
            return rc;
        icoll_sched_fence(s);
        if (!leader) {
            red_recv(s, &h->node, 0, rbuf, 0, b->cnt[me], dt);
            return MPI_SUCCESS;
        }
        for (int j = 1; j < h->node.size; j++) {
            int r = coll_team_peer(&h->node, j);
            red_send(s, &h->node, j, all, b->displ[r], b->cnt[r], dt);
        }
        red_copy(s, all, b->displ[me], rbuf, 0, b->cnt[me], dt);
        return MPI_SUCCESS;
    }
    coll_team_t t = coll_team_all(c);
    /* the kind only names the table: reduce_scatter and _block share it */
    coll_measure_t m = { .n = n, .size = (size_t)dt->size * total, .count = total,
                         .commutative = 1 };
    int alg = coll_pick_p2p(COMM_OP_REDUCE_SCATTER, &m);
    coll_trace_note("p2p", coll_algo_name(COMM_OP_REDUCE_SCATTER,
                                          alg == ALG_HALVING && op->commute ? ALG_HALVING
                                                                            : ALG_PAIRWISE),
                    total * (size_t)dt->size);
    if (n == 1) {
        red_copy(s, in, 0, rbuf, 0, total, dt);
        return MPI_SUCCESS;
    }
    if (alg == ALG_HALVING && op->commute)
        halving(s, &t, in, rbuf, b, dt, op);
    else
        pairwise(s, &t, in, rbuf, b, dt, op);
    return MPI_SUCCESS;
}

/* Counts and displacements in schedule memory (the recvcounts array may go away once an
 * I-form returns). n is the local group size. */
static blocks_t *make_blocks(icoll_sched_t *s, int n, const int *counts, size_t each)
{
    blocks_t *b = icoll_sched_alloc(s, sizeof *b + (2 * (size_t)n + 1) * sizeof(size_t));
    if (!b)
        return NULL;
    size_t *cnt = (size_t *)(b + 1), *displ = cnt + n;
    displ[0] = 0;
    for (int i = 0; i < n; i++) {
        cnt[i] = counts ? (size_t)counts[i] : each;
        displ[i + 1] = displ[i] + cnt[i];
    }
    b->cnt = cnt;
    b->displ = displ;
    return b;
}

int coll_reduce_scatter(icoll_sched_t *s, comm_t *c, const void *sbuf, void *rbuf,
                        const int *rcounts, dtype_t *dt, op_t *op)
{
    icoll_sched_hold_dtype(s, dt);
    icoll_sched_hold_op(s, op);
    blocks_t *b = make_blocks(s, c->size, rcounts, 0);
    return b ? reduce_scatter(s, c, sbuf, rbuf, b, dt, op) : MPI_SUCCESS;
}

int coll_reduce_scatter_block(icoll_sched_t *s, comm_t *c, const void *sbuf, void *rbuf,
                              size_t rcount, dtype_t *dt, op_t *op)
{
    icoll_sched_hold_dtype(s, dt);
    icoll_sched_hold_op(s, op);
    blocks_t *b = make_blocks(s, c->size, NULL, rcount);
    return b ? reduce_scatter(s, c, sbuf, rbuf, b, dt, op) : MPI_SUCCESS;
}
