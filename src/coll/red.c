/* Typed steps, folding, binomial trees and zero-byte synchronisation over teams (red.h). */
#include "coll/red.h"

#include "datatype/engine/layout.h"
#include "runtime/tunables.h"

#include <stdlib.h>

static p2p_data_t range(const void *buf, size_t off, size_t cnt, dtype_t *dt)
{
    return coll_data(red_at(buf, off, dt), cnt, dt);
}

void red_send(icoll_sched_t *s, const coll_team_t *t, int i, const void *buf, size_t off,
              size_t cnt, dtype_t *dt)
{
    if (cnt == 0)
        return;
    p2p_data_t d = range(buf, off, cnt, dt);
    icoll_sched_send_data(s, t->c, coll_team_peer(t, i), &d);
}

void red_recv(icoll_sched_t *s, const coll_team_t *t, int i, void *buf, size_t off, size_t cnt,
              dtype_t *dt)
{
    if (cnt == 0)
        return;
    p2p_data_t d = range(buf, off, cnt, dt);
    icoll_sched_recv_data(s, t->c, coll_team_peer(t, i), &d);
}

void red_copy(icoll_sched_t *s, const void *src, size_t soff, void *dst, size_t doff,
              size_t cnt, dtype_t *dt)
{
    if (cnt == 0 || red_at(src, soff, dt) == red_at(dst, doff, dt))
        return;
    p2p_data_t a = range(src, soff, cnt, dt), b = range(dst, doff, cnt, dt);
    icoll_sched_copy_data(s, &a, &b);
}

void red_op(icoll_sched_t *s, op_t *op, const void *in, void *inout, size_t off, size_t cnt,
            dtype_t *dt)
{
    if (cnt == 0)
        return;
    icoll_sched_op(s, op, red_at(in, off, dt), red_at(inout, off, dt), cnt, dt);
}

red_fold_t red_fold(int n, int me)
{
    red_fold_t f = { .p2 = 1, .me = me };
    while (f.p2 * 2 <= n) {
        f.p2 *= 2;
        f.steps++;
    }
    f.rem = n - f.p2;
    if (me < 2 * f.rem)
        f.nr = me % 2 ? me / 2 : -1;
    else
        f.nr = me - f.rem;
    return f;
}

/* ---- binomial trees --------------------------------------------------------------------- */

void red_reduce_binomial(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                         size_t count, dtype_t *dt, op_t *op, int root)
{
    int n = t->size, me = t->rank;
    if (count == 0)
        return;
    if (n == 1) {
        red_copy(s, in, 0, out, 0, count, dt);
        return;
    }
    /* Children v+1, v+2, v+4, ... (relative to the tree root) hold consecutive ranges above
     * v's, so combining acc (below) with each child's partial (above) in turn keeps order. */
    int troot = op->commute ? root : 0;
    int v = (me - troot + n) % n, kids[32], nk = 0, mask;
    for (mask = 1; mask < n && !(v & mask); mask <<= 1)
        if (v + mask < n)
            kids[nk++] = (v + mask + troot) % n;
    int at_root = me == root;
    const void *acc = in;
    if (nk > 0) {
        /* all children's partials are received at once, each into its own buffer; at the root
         * the last one lands in out (unless out still holds our own operand: in place) */
        int last_out = v == 0 && at_root && out != in;
        char *tmp = NULL;
        if (nk - last_out > 0 && !(tmp = red_temp(s, (size_t)(nk - last_out) * count, dt)))
            return;
        void *b[32];
        for (int j = 0; j < nk; j++) {
            b[j] = j == nk - 1 && last_out ? out : red_at(tmp, (size_t)j * count, dt);
            red_recv(s, t, kids[j], b[j], 0, count, dt);
        }
        for (int j = 0; j < nk; j++) {
            red_op(s, op, acc, b[j], 0, count, dt);
            acc = b[j];
        }
    }
    if (v != 0)
        red_send(s, t, (v - mask + troot) % n, acc, 0, count, dt);
    else if (at_root)
        red_copy(s, acc, 0, out, 0, count, dt);
    else
        red_send(s, t, root, acc, 0, count, dt); /* non-commutative: forward to the root */
    if (at_root && v != 0) {
        icoll_sched_fence(s); /* our operand (maybe in out) has left before out is written */
        red_recv(s, t, troot, out, 0, count, dt);
    }
}

void red_bcast_binomial(icoll_sched_t *s, const coll_team_t *t, void *buf, size_t count,
                        dtype_t *dt, int root)
{
    int n = t->size, v = (t->rank - root + n) % n, mask = 1;
    if (n == 1 || count == 0)
        return;
    for (; mask < n; mask <<= 1)
        if (v & mask) {
            red_recv(s, t, (v - mask + root) % n, buf, 0, count, dt);
            icoll_sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            red_send(s, t, (v + mask + root) % n, buf, 0, count, dt);
}

/* ---- zero-byte synchronisation -------------------------------------------------------- */

void red_fan_in(icoll_sched_t *s, const coll_team_t *t)
{
    int n = t->size, v = t->rank, mask;
    if (n == 1)
        return;
    for (mask = 1; mask < n && !(v & mask); mask <<= 1)
        if (v + mask < n)
            icoll_sched_recv(s, t->c, coll_team_peer(t, v + mask), NULL, 0);
    icoll_sched_fence(s); /* the whole subtree has arrived before we tell the parent */
    if (v != 0) {
        icoll_sched_send(s, t->c, coll_team_peer(t, v - mask), NULL, 0);
        icoll_sched_fence(s);
    }
}

void red_fan_out(icoll_sched_t *s, const coll_team_t *t)
{
    int n = t->size, v = t->rank, mask = 1;
    if (n == 1)
        return;
    for (; mask < n; mask <<= 1)
        if (v & mask) {
            icoll_sched_recv(s, t->c, coll_team_peer(t, v - mask), NULL, 0);
            icoll_sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n)
            icoll_sched_send(s, t->c, coll_team_peer(t, v + mask), NULL, 0);
    icoll_sched_fence(s);
}

/* Round k: a message to me + 2^k, one from me - 2^k; after round k every member has heard,
 * directly or not, from the 2^(k+1) - 1 members below it, so after ceil(log2 n) rounds from
 * everyone. */
void red_dissemination(icoll_sched_t *s, const coll_team_t *t)
{
    int n = t->size, me = t->rank;
    for (int k = 1; k < n; k <<= 1) {
        icoll_sched_send(s, t->c, coll_team_peer(t, (me + k) % n), NULL, 0);
        icoll_sched_recv(s, t->c, coll_team_peer(t, (me - k + n) % n), NULL, 0);
        icoll_sched_fence(s);
    }
}

/* ---- hierarchy and shared memory --------------------------------------------------------- */

const coll_hier_t *red_hier(comm_t *c, const op_t *op)
{
    if (!tun_bool(TUN_COLL_HIER)) /* METAMPI_COLL_HIER=0: no collective uses the hierarchy */
        return NULL;
    const coll_hier_t *h = coll_hier(c);
    if (!h || h->nhosts <= 1 || h->nhosts >= c->size)
        return NULL;
    /* hosts are numbered in order of their lowest rank: each host is one contiguous range
     * exactly when the numbers never go down */
    if (op && !op->commute)
        for (int r = 1; r < c->size; r++)
            if (h->host_of[r] < h->host_of[r - 1])
                return NULL;
    return h;
}

int red_contig(const void *buf, size_t count, dtype_t *dt, void **addr)
{
    if (!dt_layout_contiguous(dt->layout, count))
        return 0;
    *addr = (void *)((uintptr_t)buf + (uintptr_t)dt_layout_true_lb(dt->layout));
    return 1;
}
