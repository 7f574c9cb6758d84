/* Typed steps and folding over teams, and the contiguity test of the shared area (red.h). The
 * trees are in algo/red_tree.c, the hier decision (red_hier) in level/hier_red.c. */
#include "coll/red.h"

#include "datatype/engine/layout.h"

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

/* ---- shared memory ---------------------------------------------------------------------- */

int red_contig(const void *buf, size_t count, dtype_t *dt, void **addr)
{
    if (!dt_layout_contiguous(dt->layout, count))
        return 0;
    *addr = (void *)((uintptr_t)buf + (uintptr_t)dt_layout_true_lb(dt->layout));
    return 1;
}
