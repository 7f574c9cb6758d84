/* Binomial trees (reduce, broadcast) and zero-byte synchronisation (fan-in, fan-out,
 * dissemination) over a team (coll/red.h): algorithms, which never ask a level. */
#include "coll/red.h"

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
