/*
 * Scatter of equal blocks over a team, point to point (coll/move.h declares it; which
 * algorithm runs is the selection table's, coll/table.c: METAMPI_COLL_SCATTER, _LONG,
 * _TREE_RANKS). The mirror image of algo/gather.c.
 *  binomial  log2(n) rounds; the root sends each subtree its blocks in one message straight
 *            from the send buffer (packing only the one subtree that wraps around the end of
 *            the rank order); an inner node receives its subtree's blocks in a packed
 *            temporary and passes its children theirs. Small blocks.
 *  linear    the root sends every block from its place. Large blocks, and n <= 2.
 */
#include "coll/move.h"

#include "coll/select.h"
#include "core/comm_arch.h"

int mv_scatter_pick(int n, size_t bb)
{
    coll_measure_t m = { .n = n, .size = bb, .commutative = 1 };
    return coll_pick_p2p(COMM_OP_SCATTER, &m);
}

static void scatter_linear(icoll_sched_t *s, const coll_team_t *t, int root,
                           const mv_blocks_t *in, const p2p_data_t *mine)
{
    if (t->rank != root) {
        mv_recv(s, t, root, mine);
        return;
    }
    if (mine) {
        p2p_data_t d = mv_run(in, root, 1);
        mv_copy(s, &d, mine);
    }
    for (int i = 0; i < t->size; i++)
        if (i != root) {
            p2p_data_t d = mv_run(in, i, 1);
            mv_send(s, t, i, &d);
        }
}

static void scatter_binomial(icoll_sched_t *s, const coll_team_t *t, int root,
                             const mv_blocks_t *in, const p2p_data_t *mine, size_t bb)
{
    int n = t->size, rel = (t->rank - root + n) % n, sub = mv_subtree(rel, n);
    int top = mv_top_bit(n - 1);
    if (rel) {
        int parent = (rel - (rel & -rel) + root) % n;
        if (sub == 1) {
            mv_recv(s, t, parent, mine);
            return;
        }
        char *tmp = icoll_sched_alloc(s, (size_t)sub * bb);
        if (!tmp)
            return;
        p2p_data_t d = mv_data(tmp, (size_t)sub * bb);
        mv_recv(s, t, parent, &d);
        icoll_sched_fence(s);
        for (int mask = top; mask > 0; mask >>= 1)
            if (mask < sub) {
                d = mv_data(tmp + (size_t)mask * bb, (size_t)mv_subtree(rel + mask, n) * bb);
                mv_send(s, t, (rel + mask + root) % n, &d);
            }
        d = mv_data(tmp, bb);
        mv_copy(s, &d, mine);
        return;
    }
    /* the root: subtree rel+mask holds team indices root+mask ... (mod n); the one that
     * wraps is packed first (local steps go before the sends they feed) */
    char *wrap = NULL;
    for (int mask = 1; mask < n; mask <<= 1) {
        int first = (root + mask) % n, k = mv_subtree(mask, n), head = n - first;
        if (first + k <= n)
            continue;
        if (!(wrap = icoll_sched_alloc(s, (size_t)k * bb)))
            return;
        p2p_data_t a = mv_run(in, first, (size_t)head), b = mv_data(wrap, (size_t)head * bb);
        mv_copy(s, &a, &b);
        a = mv_run(in, 0, (size_t)(k - head));
        b = mv_data(wrap + (size_t)head * bb, (size_t)(k - head) * bb);
        mv_copy(s, &a, &b);
    }
    if (mine) {
        p2p_data_t d = mv_run(in, root, 1);
        mv_copy(s, &d, mine);
    }
    for (int mask = top; mask > 0; mask >>= 1) {
        int first = (root + mask) % n, k = mv_subtree(mask, n);
        p2p_data_t d = first + k <= n ? mv_run(in, first, (size_t)k)
                                      : mv_data(wrap, (size_t)k * bb);
        mv_send(s, t, first, &d);
    }
}

void mv_scatter_team(icoll_sched_t *s, const coll_team_t *t, int root, const mv_blocks_t *in,
                     const p2p_data_t *mine, size_t bb)
{
    if (bb == 0)
        return;
    if (t->size == 1) {
        if (mine) {
            p2p_data_t d = mv_run(in, 0, 1);
            mv_copy(s, &d, mine);
        }
        return;
    }
    /* members of unlike architectures: no inner node forwards others' blocks as bytes */
    if (comm_arch_mixed(t->c) || mv_scatter_pick(t->size, bb) == MV_ROOTED_LINEAR)
        scatter_linear(s, t, root, in, mine);
    else
        scatter_binomial(s, t, root, in, mine, bb);
}

