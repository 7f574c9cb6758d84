/*
 * MPI_Gather, MPI_Gatherv and their I-forms (MPI-3.1 §5.5).
 *
 * Gather of equal blocks (bb bytes each):
 *  binomial  log2(n) rounds; an inner node of the tree collects its subtree's blocks in a
 *            packed temporary and sends them up as one message; the root receives each
 *            subtree straight into the receive buffer (a temporary only for the one subtree
 *            that wraps around the end of the rank order). Small blocks.
 *  linear    the root receives every block straight into place. Large blocks, and n <= 2.
 * Across hosts: each host gathers to its local root (the root itself on its own host, the
 * leader elsewhere), then every other host's leader sends its host's blocks to the root in one
 * message. When hosts hold consecutive ranks the root receives everything in place, else it
 * unpacks a host-ordered temporary.
 * Gatherv: linear (the root posts every receive at once, straight into place).
 * Inter-communicators: small blocks are gathered within the remote group first (one message
 * to the root), large ones go to the root directly.
 */
#include "coll/move.h"
#include "coll/sites.h"
#include "coll/trace.h"

static const char *const gather_names[] = { "binomial", "linear" };
static coll_choice_t gather_choice = { "METAMPI_COLL_GATHER", gather_names, 2, 0, 0 };
/* from this block size (bytes) on, linear */
static coll_knob_t gather_long = { "METAMPI_COLL_GATHER_LONG", 16 * 1024, 0, 0 };
/* the tree needs at least this many ranks (with fewer, the root's few messages cost less than
 * an extra hop and the inner node's copy) */
static coll_knob_t gather_tree_ranks = { "METAMPI_COLL_GATHER_TREE_RANKS", 5, 0, 0 };

enum { BINOMIAL, LINEAR };

static int pick(int n, size_t bb)
{
    int forced = coll_choice_forced(&gather_choice);
    if (forced >= 0)
        return forced;
    if ((size_t)n < coll_knob(&gather_tree_ranks))
        return LINEAR;
    return bb >= coll_knob(&gather_long) ? LINEAR : BINOMIAL;
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
    if (pick(t->size, bb) == LINEAR)
        gather_linear(s, t, root, mine, out);
    else
        gather_binomial(s, t, root, mine, out, bb);
}

void mv_gather_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const p2p_data_t *mine,
                    const mv_blocks_t *rb, size_t bb, int root)
{
    int n = h->all.size, me = h->all.rank, h0 = h->host_of[root], host = h->host_of[me];
    int lroot = host == h0 ? root : h->host_first[host], nroot = h->node_rank[lroot];
    int croot = coll_team_peer(&h->all, root);
    if (me != lroot) {
        mv_gather_team(s, &h->node, nroot, mine, NULL, bb);
        return;
    }
    if (me != root) { /* another host's leader: its host's blocks in one message */
        size_t k = (size_t)h->node_size[host];
        if (k == 1) {
            icoll_sched_send_data(s, c, croot, mine);
            return;
        }
        char *tmp = icoll_sched_alloc(s, k * bb);
        if (!tmp)
            return;
        mv_blocks_t out = mv_bytes(tmp, bb);
        mv_gather_team(s, &h->node, nroot, mine, &out, bb);
        icoll_sched_fence(s);
        p2p_data_t d = mv_data(tmp, k * bb);
        icoll_sched_send_data(s, c, croot, &d);
        return;
    }
    if (mv_hier_ordered(h, n)) {
        mv_blocks_t out = *rb;
        out.base = coll_at(rb->base, (size_t)h->host_first[h0] * rb->count, rb->dt);
        mv_gather_team(s, &h->node, nroot, mine, &out, bb);
        for (int k = 0; k < h->nhosts; k++)
            if (k != h0) {
                p2p_data_t d = mv_run(rb, h->host_first[k], (size_t)h->node_size[k]);
                icoll_sched_recv_data(s, c, h->leaders.ranks[k], &d);
            }
        icoll_sched_fence(s);
        return;
    }
    char *tmp = icoll_sched_alloc(s, (size_t)n * bb);
    if (!tmp)
        return;
    p2p_data_t own = mine ? *mine : mv_run(rb, root, 1);
    mv_blocks_t out = mv_bytes(tmp + (size_t)mv_host_start(h, h0) * bb, bb);
    mv_gather_team(s, &h->node, nroot, &own, &out, bb);
    for (int k = 0; k < h->nhosts; k++)
        if (k != h0) {
            p2p_data_t d = mv_data(tmp + (size_t)mv_host_start(h, k) * bb,
                                   (size_t)h->node_size[k] * bb);
            icoll_sched_recv_data(s, c, h->leaders.ranks[k], &d);
        }
    icoll_sched_fence(s);
    mv_hosts_copy(s, h, n, tmp, bb, rb, 0);
}

static int gather_inter(icoll_sched_t *s, comm_t *c, const p2p_data_t *mine,
                        const mv_blocks_t *rb, size_t bb, int root)
{
    if (root == MPI_PROC_NULL || bb == 0)
        return MPI_SUCCESS;
    int m = comm_peer_size(c);
    if (root == MPI_ROOT) {
        if (pick(m, bb) == BINOMIAL) {
            p2p_data_t d = mv_run(rb, 0, (size_t)m);
            icoll_sched_recv_data(s, c, 0, &d);
        } else {
            for (int i = 0; i < m; i++) {
                p2p_data_t d = mv_run(rb, i, 1);
                icoll_sched_recv_data(s, c, i, &d);
            }
        }
        return MPI_SUCCESS;
    }
    comm_t *local = c->local_comm;
    if (pick(local->size, bb) != BINOMIAL) {
        icoll_sched_send_data(s, c, root, mine);
        return MPI_SUCCESS;
    }
    coll_team_t all = coll_team_all(local);
    char *tmp = local->rank == 0 ? icoll_sched_alloc(s, (size_t)local->size * bb) : NULL;
    if (local->rank == 0 && !tmp)
        return MPI_ERR_NO_MEM;
    mv_blocks_t out = mv_bytes(tmp, bb);
    mv_gather_team(s, &all, 0, mine, &out, bb);
    if (local->rank == 0) {
        icoll_sched_fence(s);
        p2p_data_t d = mv_data(tmp, (size_t)local->size * bb);
        icoll_sched_send_data(s, c, root, &d);
    }
    return MPI_SUCCESS;
}

int coll_gather(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                void *rbuf, size_t rcount, dtype_t *rtype, int root)
{
    int inplace = sbuf == COLL_IN_PLACE;
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    int at_root = comm_is_inter(c) ? root == MPI_ROOT : c->rank == root;
    p2p_data_t mine = { 0 };
    if (!inplace && stype && !(comm_is_inter(c) && at_root))
        mine = mv_typed(sbuf, scount, stype);
    size_t bb = at_root ? rcount * (size_t)rtype->size : mine.bytes;
    mv_blocks_t rb = { rbuf, rcount, rtype };
    if (comm_is_inter(c)) {
        coll_trace_note("inter", "-", bb);
        return gather_inter(s, c, &mine, &rb, bb, root);
    }
    if (bb == 0) {
        coll_trace_note("none", "-", bb);
        return MPI_SUCCESS;
    }
    const coll_sites_t *S = coll_use_sites(c);
    if (S)
        coll_trace_note("sites", "-", bb);
    if (S)
        return site_gather(s, c, S, inplace ? NULL : &mine, rbuf, rcount, rtype, bb, root);
    const coll_hier_t *h;
    int hier = mv_use_hier(c, &h);
    if (hier < 0)
        return MPI_ERR_NO_MEM;
    coll_trace_note(hier ? "hier" : "p2p", hier ? "linear" : gather_names[pick(c->size, bb)], bb);
    if (hier) {
        mv_gather_hier(s, c, h, inplace ? NULL : &mine, &rb, bb, root);
    } else {
        coll_team_t all = coll_team_all(c);
        mv_gather_team(s, &all, root, inplace ? NULL : &mine, &rb, bb);
    }
    return MPI_SUCCESS;
}

/* ---- Gatherv ------------------------------------------------------------------------- */

int coll_gatherv(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                 void *rbuf, const int *rcounts, const int *displs, dtype_t *rtype, int root)
{
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    int inter = comm_is_inter(c);
    if (inter)
        coll_trace_note("inter", "-", 0);
    if (inter ? root == MPI_PROC_NULL : 0)
        return MPI_SUCCESS;
    const coll_sites_t *S = inter ? NULL : coll_use_sites(c);
    coll_trace_note(S ? "sites" : "p2p", S ? "-" : "linear", 0);
    if (S) {
        p2p_data_t mine = sbuf == COLL_IN_PLACE ? (p2p_data_t){ 0 }
                                                : mv_typed(sbuf, scount, stype);
        return site_gatherv(s, c, S, sbuf == COLL_IN_PLACE ? NULL : &mine, rbuf, rcounts,
                            displs, rtype, root);
    }
    if (inter ? root != MPI_ROOT : c->rank != root) {
        p2p_data_t d = mv_typed(sbuf, scount, stype);
        if (d.bytes)
            icoll_sched_send_data(s, c, root, &d);
        return MPI_SUCCESS;
    }
    mv_blocks_t rb = { rbuf, 1, rtype };
    int m = comm_peer_size(c);
    for (int i = 0; i < m; i++)
        if (inter || i != root) {
            p2p_data_t d = mv_run(&rb, displs[i], (size_t)rcounts[i]);
            if (d.bytes)
                icoll_sched_recv_data(s, c, i, &d);
        }
    if (!inter && sbuf != COLL_IN_PLACE) {
        icoll_sched_fence(s);
        p2p_data_t from = mv_typed(sbuf, scount, stype);
        p2p_data_t to = mv_run(&rb, displs[root], (size_t)rcounts[root]);
        mv_copy(s, &from, &to);
    }
    return MPI_SUCCESS;
}
