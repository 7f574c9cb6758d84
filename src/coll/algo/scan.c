/*
 * Scan and Exscan over a team (coll/red.h), in the order of the selection table:
 *
 * Recursive doubling (the default): in round k a member exchanges its partial (the
 * reduction over its aligned block of 2^k ranks) with the member 2^k away; the lower block is
 * always the left operand, so order is kept for non-commutative ops. Messages nobody needs
 * (into the lower member of the last round) are not sent. The linear chain (each member
 * waits for its predecessor's prefix) is there to be forced: METAMPI_COLL_SCAN=
 * recursive_doubling|linear (both Scan and Exscan).
 */
#include "coll/red.h"

void red_scan_rd(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                 size_t count, dtype_t *dt, op_t *op, int excl)
{
    int n = t->size, me = t->rank;
    char *tmp = red_temp(s, 2 * count, dt);
    if (!tmp)
        return;
    void *partial = tmp, *other = red_at(tmp, count, dt);
    red_copy(s, in, 0, partial, 0, count, dt); /* before out is written (in place) */
    if (!excl)
        red_copy(s, in, 0, out, 0, count, dt);
    int have = !excl; /* out holds a result so far */
    for (int m = 1; m < n; m <<= 1) {
        int peer = me ^ m, more = 2 * m < n; /* more: later rounds need partials */
        if (peer >= n)
            continue;
        if (peer > me || more)
            red_send(s, t, peer, partial, 0, count, dt);
        if (peer < me) { /* theirs is below everything we hold */
            void *rb = have ? other : out;
            red_recv(s, t, peer, rb, 0, count, dt);
            if (have)
                red_op(s, op, rb, out, 0, count, dt);
            if (more)
                red_op(s, op, rb, partial, 0, count, dt);
            have = 1;
        } else if (more) {
            red_recv(s, t, peer, other, 0, count, dt);
            red_op(s, op, partial, other, 0, count, dt);
            void *x = partial;
            partial = other;
            other = x;
        }
    }
}

void red_scan_linear(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     size_t count, dtype_t *dt, op_t *op, int excl)
{
    int n = t->size, me = t->rank;
    if (!excl) {
        red_copy(s, in, 0, out, 0, count, dt);
        if (me > 0) {
            void *tmp = red_temp(s, count, dt);
            if (!tmp)
                return;
            red_recv(s, t, me - 1, tmp, 0, count, dt);
            red_op(s, op, tmp, out, 0, count, dt);
        }
        if (me < n - 1)
            red_send(s, t, me + 1, out, 0, count, dt);
        return;
    }
    if (me == 0) {
        red_send(s, t, 1, in, 0, count, dt);
        return;
    }
    void *mine = NULL; /* our operand, kept apart from out when it is needed after */
    if (me < n - 1) {
        if (!(mine = red_temp(s, count, dt)))
            return;
        red_copy(s, in, 0, mine, 0, count, dt);
    }
    red_recv(s, t, me - 1, out, 0, count, dt);
    if (me < n - 1) {
        red_op(s, op, out, mine, 0, count, dt);
        red_send(s, t, me + 1, mine, 0, count, dt);
    }
}
