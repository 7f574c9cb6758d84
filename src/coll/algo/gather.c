/*
 * Gather of equal blocks over a team, point to point (coll/move.h declares it; which
 * algorithm runs is the selection table's, coll/table.c: METAMPI_COLL_GATHER, _LONG,
 * _TREE_RANKS). Knows nothing of levels or entry points
 * (coll/gather.c has the entry, coll/level/hier.c the phases over hosts).
 *  binomial  log2(n) rounds; an inner node of the tree collects its subtree's blocks in a
 *            packed temporary and sends them up as one message; the root receives each
 *            subtree straight into the receive buffer (a temporary only for the one subtree
 *            that wraps around the end of the rank order). Small blocks.
 *  linear    the root receives every block straight into place. Large blocks, and n <= 2.
 */
#include "coll/move.h"

#include "coll/select.h"
#include "core/comm_arch.h"

int mv_gather_pick(int n, size_t bb)
{
    coll_measure_t m = { .n = n, .size = bb, .commutative = 1 };
    return coll_pick_p2p(COMM_OP_GATHER, &m);
}

static void gather_linear(icoll_sched_t *s, const coll_team_t *t, int root,
                          const p2p_data_t *mine, const mv_blocks_t *out)
{
    if (t->rank != root) {
        mv_send(s, t, root, mine);
        return;
    }
    for (int i = 0; i < t->size; i++)
        if (i != root) {
            p2p_data_t d = mv_run(out, i, 1);
            mv_recv(s, t, i, &d);
        }
    if (mine) { /* a local step: after the receives */
        p2p_data_t d = mv_run(out, root, 1);
        mv_copy(s, mine, &d);
    }
}

static void gather_binomial(icoll_sched_t *s, const coll_team_t *t, int root,
                            const p2p_data_t *mine, const mv_blocks_t *out, size_t bb)
{
    int n = t->size, rel = (t->rank - root + n) % n, sub = mv_subtree(rel, n);
    if (rel) {
        int parent = (rel - (rel & -rel) + root) % n;
        if (sub == 1) {
            mv_send(s, t, parent, mine);
            return;
        }
        char *tmp = icoll_sched_alloc(s, (size_t)sub * bb);
        if (!tmp)
            return;
        p2p_data_t d = mv_data(tmp, bb);
        mv_copy(s, mine, &d);
        for (int mask = 1; mask < sub; mask <<= 1) {
            d = mv_data(tmp + (size_t)mask * bb, (size_t)mv_subtree(rel + mask, n) * bb);
            mv_recv(s, t, (rel + mask + root) % n, &d);
        }
        icoll_sched_fence(s);
        d = mv_data(tmp, (size_t)sub * bb);
        mv_send(s, t, parent, &d);
        return;
    }
    /* the root: subtree rel+mask holds team indices root+mask ... (mod n) */
    char *wrap = NULL;
    int wfirst = 0, wk = 0;
    for (int mask = 1; mask < n; mask <<= 1) {
        int first = (root + mask) % n, k = mv_subtree(mask, n);
        p2p_data_t d;
        if (first + k <= n) {
            d = mv_run(out, first, (size_t)k);
        } else {
            if (!(wrap = icoll_sched_alloc(s, (size_t)k * bb)))
                return;
            wfirst = first, wk = k;
            d = mv_data(wrap, (size_t)k * bb);
        }
        mv_recv(s, t, first, &d);
    }
    if (wrap) { /* local steps: after the receives */
        int head = n - wfirst;
        p2p_data_t a = mv_data(wrap, (size_t)head * bb), b = mv_run(out, wfirst, (size_t)head);
        mv_copy(s, &a, &b);
        a = mv_data(wrap + (size_t)head * bb, (size_t)(wk - head) * bb);
        b = mv_run(out, 0, (size_t)(wk - head));
        mv_copy(s, &a, &b);
    }
    if (mine) {
        p2p_data_t d = mv_run(out, root, 1);
        mv_copy(s, mine, &d);
    }
}

void mv_gather_team(icoll_sched_t *s, const coll_team_t *t, int root, const p2p_data_t *mine,
                    const mv_blocks_t *out, size_t bb)
{
    if (bb == 0)
        return;
    if (t->size == 1) {
        if (mine) {
            p2p_data_t d = mv_run(out, 0, 1);
            mv_copy(s, mine, &d);
        }
        return;
    }
    /* members of unlike architectures: no inner node forwards others' blocks as bytes */
    if (comm_arch_mixed(t->c) || mv_gather_pick(t->size, bb) == MV_ROOTED_LINEAR)
        gather_linear(s, t, root, mine, out);
    else
        gather_binomial(s, t, root, mine, out, bb);
}

