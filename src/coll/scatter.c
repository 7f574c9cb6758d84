/*
 * MPI_Scatter, MPI_Scatterv and their I-forms (MPI-3.1 §5.6): the mirror image of gather.c.
 *
 * Scatter of equal blocks (bb bytes each):
 *  binomial  log2(n) rounds; the root sends each subtree its blocks in one message straight
 *            from the send buffer (packing only the one subtree that wraps around the end of
 *            the rank order); an inner node receives its subtree's blocks in a packed
 *            temporary and passes its children theirs. Small blocks.
 *  linear    the root sends every block from its place. Large blocks, and n <= 2.
 * Across hosts: the root sends every other host's leader that host's blocks in one message,
 * then each host scatters from its local root (the root itself on its own host).
 * Scatterv: linear. Inter-communicators: small blocks go to the remote group's first member
 * in one message and are scattered from there, large ones go to their owners directly.
 */
#include "coll/move.h"
#include "coll/sites.h"
#include "coll/trace.h"

static const char *const scatter_names[] = { "binomial", "linear" };
static coll_choice_t scatter_choice = { "METAMPI_COLL_SCATTER", scatter_names, 2, 0, 0 };
/* from this block size (bytes) on, linear */
static coll_knob_t scatter_long = { "METAMPI_COLL_SCATTER_LONG", 16 * 1024, 0, 0 };
/* the tree needs at least this many ranks (with fewer, the root's few messages cost less than
 * an extra hop and the inner node's copy) */
static coll_knob_t scatter_tree_ranks = { "METAMPI_COLL_SCATTER_TREE_RANKS", 5, 0, 0 };

enum { BINOMIAL, LINEAR };

static int pick(int n, size_t bb)
{
    int forced = coll_choice_forced(&scatter_choice);
    if (forced >= 0)
        return forced;
    if ((size_t)n < coll_knob(&scatter_tree_ranks))
        return LINEAR;
    return bb >= coll_knob(&scatter_long) ? LINEAR : BINOMIAL;
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
    if (pick(t->size, bb) == LINEAR)
        scatter_linear(s, t, root, in, mine);
    else
        scatter_binomial(s, t, root, in, mine, bb);
}

void mv_scatter_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const mv_blocks_t *sb,
                     const p2p_data_t *mine, size_t bb, int root)
{
    int n = h->all.size, me = h->all.rank, h0 = h->host_of[root], host = h->host_of[me];
    int lroot = host == h0 ? root : h->host_first[host], nroot = h->node_rank[lroot];
    int croot = coll_team_peer(&h->all, root);
    if (me != lroot) {
        mv_scatter_team(s, &h->node, nroot, NULL, mine, bb);
        return;
    }
    if (me != root) { /* another host's leader: its host's blocks in one message */
        size_t k = (size_t)h->node_size[host];
        if (k == 1) {
            icoll_sched_recv_data(s, c, croot, mine);
            return;
        }
        char *tmp = icoll_sched_alloc(s, k * bb);
        if (!tmp)
            return;
        p2p_data_t d = mv_data(tmp, k * bb);
        icoll_sched_recv_data(s, c, croot, &d);
        icoll_sched_fence(s);
        mv_blocks_t in = mv_bytes(tmp, bb);
        mv_scatter_team(s, &h->node, nroot, &in, mine, bb);
        return;
    }
    if (mv_hier_ordered(h, n)) {
        for (int k = 0; k < h->nhosts; k++)
            if (k != h0) {
                p2p_data_t d = mv_run(sb, h->host_first[k], (size_t)h->node_size[k]);
                icoll_sched_send_data(s, c, h->leaders.ranks[k], &d);
            }
        mv_blocks_t in = *sb;
        in.base = coll_at(sb->base, (size_t)h->host_first[h0] * sb->count, sb->dt);
        mv_scatter_team(s, &h->node, nroot, &in, mine, bb);
        return;
    }
    char *tmp = icoll_sched_alloc(s, (size_t)n * bb);
    if (!tmp)
        return;
    mv_hosts_copy(s, h, n, tmp, bb, sb, 1);
    for (int k = 0; k < h->nhosts; k++)
        if (k != h0) {
            p2p_data_t d = mv_data(tmp + (size_t)mv_host_start(h, k) * bb,
                                   (size_t)h->node_size[k] * bb);
            icoll_sched_send_data(s, c, h->leaders.ranks[k], &d);
        }
    mv_blocks_t in = mv_bytes(tmp + (size_t)mv_host_start(h, h0) * bb, bb);
    mv_scatter_team(s, &h->node, nroot, &in, mine, bb);
}

static int scatter_inter(icoll_sched_t *s, comm_t *c, const mv_blocks_t *sb,
                         const p2p_data_t *mine, size_t bb, int root)
{
    if (root == MPI_PROC_NULL || bb == 0)
        return MPI_SUCCESS;
    int m = comm_peer_size(c);
    if (root == MPI_ROOT) {
        if (pick(m, bb) == BINOMIAL) {
            p2p_data_t d = mv_run(sb, 0, (size_t)m);
            icoll_sched_send_data(s, c, 0, &d);
        } else {
            for (int i = 0; i < m; i++) {
                p2p_data_t d = mv_run(sb, i, 1);
                icoll_sched_send_data(s, c, i, &d);
            }
        }
        return MPI_SUCCESS;
    }
    comm_t *local = c->local_comm;
    if (pick(local->size, bb) != BINOMIAL) {
        icoll_sched_recv_data(s, c, root, mine);
        return MPI_SUCCESS;
    }
    coll_team_t all = coll_team_all(local);
    char *tmp = NULL;
    if (local->rank == 0) {
        if (!(tmp = icoll_sched_alloc(s, (size_t)local->size * bb)))
            return MPI_ERR_NO_MEM;
        p2p_data_t d = mv_data(tmp, (size_t)local->size * bb);
        icoll_sched_recv_data(s, c, root, &d);
        icoll_sched_fence(s);
    }
    mv_blocks_t in = mv_bytes(tmp, bb);
    mv_scatter_team(s, &all, 0, &in, mine, bb);
    return MPI_SUCCESS;
}

int coll_scatter(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                 void *rbuf, size_t rcount, dtype_t *rtype, int root)
{
    int inplace = rbuf == COLL_IN_PLACE;
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    int at_root = comm_is_inter(c) ? root == MPI_ROOT : c->rank == root;
    p2p_data_t mine = { 0 };
    if (!inplace && rtype && !(comm_is_inter(c) && at_root))
        mine = mv_typed(rbuf, rcount, rtype);
    size_t bb = at_root ? scount * (size_t)stype->size : mine.bytes;
    mv_blocks_t sb = { (void *)(uintptr_t)sbuf, scount, stype };
    if (comm_is_inter(c)) {
        coll_trace_note("inter", "-", bb);
        return scatter_inter(s, c, &sb, &mine, bb, root);
    }
    if (bb == 0) {
        coll_trace_note("none", "-", bb);
        return MPI_SUCCESS;
    }
    const coll_sites_t *S = coll_use_sites(c);
    if (S)
        coll_trace_note("sites", "-", bb);
    if (S)
        return site_scatter(s, c, S, sbuf, scount, stype, inplace ? NULL : &mine, bb, root);
    const coll_hier_t *h;
    int hier = mv_use_hier(c, &h);
    if (hier < 0)
        return MPI_ERR_NO_MEM;
    coll_trace_note(hier ? "hier" : "p2p", hier ? "linear" : scatter_names[pick(c->size, bb)], bb);
    if (hier) {
        mv_scatter_hier(s, c, h, &sb, inplace ? NULL : &mine, bb, root);
    } else {
        coll_team_t all = coll_team_all(c);
        mv_scatter_team(s, &all, root, &sb, inplace ? NULL : &mine, bb);
    }
    return MPI_SUCCESS;
}

/* ---- Scatterv ------------------------------------------------------------------------ */

int coll_scatterv(icoll_sched_t *s, comm_t *c, const void *sbuf, const int *scounts,
                  const int *displs, dtype_t *stype, void *rbuf, size_t rcount, dtype_t *rtype,
                  int root)
{
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    int inter = comm_is_inter(c);
    if (inter)
        coll_trace_note("inter", "-", 0);
    if (inter && root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    const coll_sites_t *S = inter ? NULL : coll_use_sites(c);
    coll_trace_note(S ? "sites" : "p2p", S ? "-" : "linear", 0);
    if (S) {
        p2p_data_t mine = rbuf == COLL_IN_PLACE ? (p2p_data_t){ 0 }
                                                : mv_typed(rbuf, rcount, rtype);
        return site_scatterv(s, c, S, sbuf, scounts, displs, stype,
                             rbuf == COLL_IN_PLACE ? NULL : &mine, root);
    }
    if (inter ? root != MPI_ROOT : c->rank != root) {
        p2p_data_t d = mv_typed(rbuf, rcount, rtype);
        if (d.bytes)
            icoll_sched_recv_data(s, c, root, &d);
        return MPI_SUCCESS;
    }
    mv_blocks_t sb = { (void *)(uintptr_t)sbuf, 1, stype };
    if (!inter && rbuf != COLL_IN_PLACE) {
        p2p_data_t from = mv_run(&sb, displs[root], (size_t)scounts[root]);
        p2p_data_t to = mv_typed(rbuf, rcount, rtype);
        mv_copy(s, &from, &to);
    }
    int m = comm_peer_size(c);
    for (int i = 0; i < m; i++)
        if (inter || i != root) {
            p2p_data_t d = mv_run(&sb, displs[i], (size_t)scounts[i]);
            if (d.bytes)
                icoll_sched_send_data(s, c, i, &d);
        }
    return MPI_SUCCESS;
}
