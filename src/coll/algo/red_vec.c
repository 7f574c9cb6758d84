/*
 * Whole-vector reduction algorithms over a team (red.h): recursive doubling, Rabenseifner
 * (reduce-scatter by recursive vector halving, then allgather or gather) and ring.
 *
 * The accumulator. Each member combines its partial result with a partner's in steps of two
 * kinds: partner above (acc = acc op theirs: the result lands in the receive buffer, so the
 * accumulator moves to it) or partner below (acc = theirs op acc: the result stays). Two
 * writable buffers suffice (`home`, where the result is wanted, and one temporary). The
 * user's send buffer is read-only: while the accumulator is still there (`ro`), the first
 * step lands the result in whichever buffer makes the remaining moves end in `home`, so no
 * final copy is needed; with MPI_IN_PLACE the data starts in home and may need one copy.
 * Where each result is computed at one member only (Rabenseifner) and the op is commutative,
 * a partner-below step on the read-only operand computes mine op theirs straight into the
 * receive buffer instead of copying our operand first (the order is still fixed). Recursive
 * doubling never does: both partners must compute the same expression to get the same bits.
 *
 * Recursive vector halving uses distance doubling (partners 1, 2, 4, ... apart): after step k
 * a member's segment is reduced over the aligned block of 2^(k+1) active members containing
 * it, the lower block always the left operand, so order is kept for non-commutative ops.
 */
#include "coll/red.h"

typedef struct acc {
    icoll_sched_t *s;
    dtype_t *dt;
    size_t count;
    const void *in;   /* the caller's operand (read-only unless it is home) */
    void *home, *tmp; /* the two writable buffers (tmp allocated on first use) */
    const void *at;   /* where the accumulator is */
    int ro;           /* at == in and in must not be written */
    void *land;       /* ro: where the first step puts its result */
    int swap;         /* theirs op acc may be computed as acc op theirs (see acc_step) */
} acc_t;

/* Kinds of the steps a member takes: 'a' partner above, 'b' partner below. */
static void acc_init(acc_t *a, icoll_sched_t *s, const void *in, void *home, void *tmp,
                     size_t count, dtype_t *dt, const char *kinds, int nk)
{
    *a = (acc_t){ .s = s, .dt = dt, .count = count, .in = in, .home = home, .tmp = tmp,
                  .at = in, .ro = in != home };
    int moves = 0;
    for (int i = 1; i < nk; i++)
        moves += kinds[i] == 'a';
    a->land = moves % 2 ? NULL : home; /* NULL: tmp (allocated when first needed) */
}

static void *acc_tmp(acc_t *a)
{
    if (!a->tmp)
        a->tmp = red_temp(a->s, a->count, a->dt);
    return a->tmp;
}

static void *acc_other(acc_t *a, const void *x)
{
    return x == a->home ? acc_tmp(a) : a->home;
}

static void *acc_land(acc_t *a)
{
    return a->land ? a->land : acc_tmp(a);
}

/* One step on range [lo, lo + n): the caller has already sent at[give]. Receives the
 * partner's partial of the range and combines; returns 0 when out of memory. */
static int acc_step(acc_t *a, const coll_team_t *t, int peer, int above, op_t *op, size_t lo,
                    size_t n)
{
    void *w = a->ro ? acc_land(a) : (void *)(uintptr_t)a->at, *b;
    if (!w)
        return 0;
    if (above) {
        b = w == a->at ? acc_other(a, w) : w; /* result in the receive buffer */
        if (!b)
            return 0;
        red_recv(a->s, t, peer, b, lo, n, a->dt);
        red_op(a->s, op, a->at, b, lo, n, a->dt);
        a->at = b;
    } else if (a->ro && a->swap) {
        /* mine op theirs into the receive buffer: saves copying our read-only operand */
        red_recv(a->s, t, peer, w, lo, n, a->dt);
        red_op(a->s, op, a->in, w, lo, n, a->dt);
        a->at = w;
    } else {
        if (!(b = acc_other(a, w)))
            return 0;
        red_recv(a->s, t, peer, b, lo, n, a->dt);
        if (a->ro)
            red_copy(a->s, a->in, lo, w, lo, n, a->dt);
        red_op(a->s, op, b, w, lo, n, a->dt);
        a->at = w;
    }
    a->ro = 0;
    return 1;
}

/* The step kinds of active member f->nr (after the folding step of odd members < 2 rem). */
static int step_kinds(const red_fold_t *f, char *kinds)
{
    int nk = 0;
    if (f->me < 2 * f->rem)
        kinds[nk++] = 'b';
    for (int k = 0; k < f->steps; k++)
        kinds[nk++] = f->nr & (1 << k) ? 'b' : 'a';
    return nk;
}

/* Folding in: odd member me < 2 rem receives member me-1's whole vector. */
static int fold_in(acc_t *a, const coll_team_t *t, const red_fold_t *f, op_t *op)
{
    if (f->me >= 2 * f->rem)
        return 1;
    return acc_step(a, t, f->me - 1, 0, op, 0, a->count);
}

/* The cases both allreduces share: nothing to do, one member, or a member folded out (it
 * gives its vector to me+1 and gets the result back). Returns 1 when the member is done;
 * otherwise *f is its fold. */
static int allreduce_trivial(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                             size_t count, dtype_t *dt, red_fold_t *f)
{
    int n = t->size, me = t->rank;
    if (count == 0)
        return 1;
    if (n == 1) {
        red_copy(s, in, 0, out, 0, count, dt);
        return 1;
    }
    *f = red_fold(n, me);
    if (f->nr < 0) {
        red_send(s, t, me + 1, in, 0, count, dt);
        icoll_sched_fence(s);
        red_recv(s, t, me + 1, out, 0, count, dt);
        return 1;
    }
    return 0;
}

void red_allreduce_rd(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                      size_t count, dtype_t *dt, op_t *op)
{
    red_fold_t f;
    if (allreduce_trivial(s, t, in, out, count, dt, &f))
        return;
    int me = t->rank;
    char kinds[40];
    acc_t a;
    acc_init(&a, s, in, out, NULL, count, dt, kinds, step_kinds(&f, kinds));
    if (!fold_in(&a, t, &f, op))
        return;
    for (int k = 0; k < f.steps; k++) {
        int pn = f.nr ^ (1 << k), peer = red_fold_member(&f, pn);
        red_send(s, t, peer, a.at, 0, count, dt);
        if (!acc_step(&a, t, peer, pn > f.nr, op, 0, count))
            return;
    }
    red_copy(s, a.at, 0, out, 0, count, dt);
    if (me < 2 * f.rem)
        red_send(s, t, me - 1, out, 0, count, dt);
}

/* ---- Rabenseifner ---------------------------------------------------------------------- */

typedef struct halving {
    size_t lo[33], hi[33]; /* segment held before step k (level k); level steps: the result */
    size_t glo[32], ghi[32]; /* the half given away at step k (the partner's segment after) */
} halving_t;

/* Reduce-scatter of the active members: a.at[lo[steps], hi[steps]) ends fully reduced. */
static int halve(acc_t *a, const coll_team_t *t, const red_fold_t *f, op_t *op, halving_t *h)
{
    h->lo[0] = 0;
    h->hi[0] = a->count;
    for (int k = 0; k < f->steps; k++) {
        int pn = f->nr ^ (1 << k), peer = red_fold_member(f, pn), above = pn > f->nr;
        size_t lo = h->lo[k], hi = h->hi[k], mid = lo + (hi - lo) / 2;
        size_t klo = above ? lo : mid, khi = above ? mid : hi;
        h->glo[k] = above ? mid : lo;
        h->ghi[k] = above ? hi : mid;
        h->lo[k + 1] = klo;
        h->hi[k + 1] = khi;
        red_send(a->s, t, peer, a->at, h->glo[k], h->ghi[k] - h->glo[k], a->dt);
        if (!acc_step(a, t, peer, above, op, klo, khi - klo))
            return 0;
    }
    return 1;
}

void red_allreduce_rabenseifner(icoll_sched_t *s, const coll_team_t *t, const void *in,
                                void *out, size_t count, dtype_t *dt, op_t *op)
{
    red_fold_t f;
    if (allreduce_trivial(s, t, in, out, count, dt, &f))
        return;
    int me = t->rank;
    char kinds[40];
    acc_t a;
    halving_t h;
    acc_init(&a, s, in, out, NULL, count, dt, kinds, step_kinds(&f, kinds));
    a.swap = op->commute; /* each segment is reduced at one member only */
    if (!fold_in(&a, t, &f, op) || !halve(&a, t, &f, op, &h))
        return;
    size_t lo = h.lo[f.steps], hi = h.hi[f.steps];
    red_copy(s, a.at, lo, out, lo, hi - lo, dt);
    /* allgather: undo the halving, exchanging whole segments with the same partners */
    for (int k = f.steps - 1; k >= 0; k--) {
        int peer = red_fold_member(&f, f.nr ^ (1 << k));
        icoll_sched_fence(s); /* what we send was received (or computed) before */
        red_send(s, t, peer, out, lo, hi - lo, dt);
        red_recv(s, t, peer, out, h.glo[k], h.ghi[k] - h.glo[k], dt);
        lo = h.lo[k];
        hi = h.hi[k];
    }
    if (me < 2 * f.rem) {
        icoll_sched_fence(s);
        red_send(s, t, me - 1, out, 0, count, dt);
    }
}

void red_reduce_rabenseifner(icoll_sched_t *s, const coll_team_t *t, const void *in,
                             void *out, size_t count, dtype_t *dt, op_t *op, int root)
{
    int n = t->size, me = t->rank, at_root = me == root;
    if (count == 0)
        return;
    if (n == 1) {
        red_copy(s, in, 0, out, 0, count, dt);
        return;
    }
    red_fold_t f = red_fold(n, me), fr = red_fold(n, root);
    int R = fr.nr >= 0 ? fr.nr : root / 2; /* the active member that gathers the result */
    if (f.nr < 0) {
        red_send(s, t, me + 1, in, 0, count, dt);
        if (at_root) {
            icoll_sched_fence(s);
            red_recv(s, t, me + 1, out, 0, count, dt);
        }
        return;
    }
    /* the root gathers into out; other members only have temporaries */
    void *home = out;
    if (!at_root && !(home = red_temp(s, count, dt)))
        return;
    char kinds[40];
    acc_t a;
    halving_t h;
    acc_init(&a, s, in, home, NULL, count, dt, kinds, step_kinds(&f, kinds));
    a.swap = op->commute;
    if (!fold_in(&a, t, &f, op) || !halve(&a, t, &f, op, &h))
        return;
    size_t lo = h.lo[f.steps], hi = h.hi[f.steps];
    void *g = at_root ? out : (void *)(uintptr_t)a.at; /* where the gathered vector grows */
    if (at_root)
        red_copy(s, a.at, lo, out, lo, hi - lo, dt);
    for (int k = f.steps - 1; k >= 0; k--) {
        int m = 1 << k, peer = red_fold_member(&f, f.nr ^ m);
        if ((f.nr ^ R) & m) { /* R is across: hand over everything we hold, then done */
            icoll_sched_fence(s);
            red_send(s, t, peer, g, lo, hi - lo, dt);
            return;
        }
        red_recv(s, t, peer, g, h.glo[k], h.ghi[k] - h.glo[k], dt);
        lo = h.lo[k];
        hi = h.hi[k];
    }
    if (!at_root) { /* the root folded out: it is our even neighbour */
        icoll_sched_fence(s);
        red_send(s, t, root, g, 0, count, dt);
    }
}

/* ---- ring ------------------------------------------------------------------------------ */

void red_allreduce_ring(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                        size_t count, dtype_t *dt, op_t *op)
{
    int n = t->size, me = t->rank;
    if (count == 0)
        return;
    if (n == 1) {
        red_copy(s, in, 0, out, 0, count, dt);
        return;
    }
    int right = (me + 1) % n, left = (me - 1 + n) % n;
#define OFF(i) ((size_t)((unsigned long long)count * (unsigned)(i) / (unsigned)n))
#define LEN(i) (OFF((i) + 1) - OFF(i))
    /* partials travel right; in place they cannot land in out before our operand is used */
    void *acc = out;
    if (in == out && !(acc = red_temp(s, count, dt)))
        return;
    for (int i = 0; i < n - 1; i++) {
        int sb = (me - i + n) % n, rb = (me - i - 1 + n) % n;
        red_send(s, t, right, i == 0 ? in : acc, OFF(sb), LEN(sb), dt);
        red_recv(s, t, left, acc, OFF(rb), LEN(rb), dt);
        red_op(s, op, in, acc, OFF(rb), LEN(rb), dt); /* x(me) op partial: commutative only */
    }
    int done = (me + 1) % n;
    red_copy(s, acc, OFF(done), out, OFF(done), LEN(done), dt);
    for (int i = 0; i < n - 1; i++) {
        int sb = (me + 1 - i + n) % n, rb = (me - i + n) % n;
        icoll_sched_fence(s);
        red_send(s, t, right, out, OFF(sb), LEN(sb), dt);
        red_recv(s, t, left, out, OFF(rb), LEN(rb), dt);
    }
#undef OFF
#undef LEN
}
