/*
 * Scatter of equal blocks over a team, point to point, and its choice (METAMPI_COLL_SCATTER,
 * _LONG, _TREE_RANKS); coll/move.h declares them. The mirror image of algo/gather.c.
 *  binomial  log2(n) rounds; the root sends each subtree its blocks in one message straight
 *            from the send buffer (packing only the one subtree that wraps around the end of
 *            the rank order); an inner node receives its subtree's blocks in a packed
 *            temporary and passes its children theirs. Small blocks.
 *  linear    the root sends every block from its place. Large blocks, and n <= 2.
 */
#include "coll/move.h"

const char *const mv_scatter_names[] = { "binomial", "linear" };
static coll_choice_t scatter_choice = { "METAMPI_COLL_SCATTER", mv_scatter_names, 2, 0, 0 };
/* from this block size (bytes) on, linear */
static coll_knob_t scatter_long = { "METAMPI_COLL_SCATTER_LONG", 16 * 1024, 0, 0 };
/* the tree needs at least this many ranks (with fewer, the root's few messages cost less than
 * an extra hop and the inner node's copy) */
static coll_knob_t scatter_tree_ranks = { "METAMPI_COLL_SCATTER_TREE_RANKS", 5, 0, 0 };

int mv_scatter_pick(int n, size_t bb)
{
    int forced = coll_choice_forced(&scatter_choice);
    if (forced >= 0)
        return forced;
    if ((size_t)n < coll_knob(&scatter_tree_ranks))
        return MV_ROOTED_LINEAR;
    return bb >= coll_knob(&scatter_long) ? MV_ROOTED_LINEAR : MV_ROOTED_BINOMIAL;
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
    if (mv_scatter_pick(t->size, bb) == MV_ROOTED_LINEAR)
        scatter_linear(s, t, root, in, mine);
    else
        scatter_binomial(s, t, root, in, mine, bb);
}

