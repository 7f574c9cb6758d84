/*
 * Reduce_scatter over a team (coll/red.h), in the order of the selection table:
 *  recursive_halving  (commutative only) log2 rounds, fold for non-powers of two;
 *  pairwise           all n-1 blocks travel at once, combined in rank order: any op.
 */
#include "coll/red.h"

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
void red_rs_pairwise(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     const red_blocks_t *b, dtype_t *dt, op_t *op)
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
void red_rs_halving(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                    const red_blocks_t *b, dtype_t *dt, op_t *op)
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
