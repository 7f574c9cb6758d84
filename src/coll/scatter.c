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
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

static int scatter_inter(icoll_sched_t *s, comm_t *c, const mv_blocks_t *sb,
                         const p2p_data_t *mine, size_t bb, int root)
{
    if (root == MPI_PROC_NULL || bb == 0)
        return MPI_SUCCESS;
    int m = comm_peer_size(c);
    if (root == MPI_ROOT) {
        if (mv_scatter_pick(m, bb) == MV_ROOTED_BINOMIAL) {
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
    if (mv_scatter_pick(local->size, bb) != MV_ROOTED_BINOMIAL) {
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
    coll_trace_note(hier ? "hier" : "p2p",
                    hier ? "linear" : coll_algo_name(COMM_OP_SCATTER, mv_scatter_pick(c->size, bb)), bb);
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
