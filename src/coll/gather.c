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
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

static int gather_inter(icoll_sched_t *s, comm_t *c, const p2p_data_t *mine,
                        const mv_blocks_t *rb, size_t bb, int root)
{
    if (root == MPI_PROC_NULL || bb == 0)
        return MPI_SUCCESS;
    int m = comm_peer_size(c);
    if (root == MPI_ROOT) {
        if (mv_gather_pick(m, bb) == MV_ROOTED_BINOMIAL) {
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
    if (mv_gather_pick(local->size, bb) != MV_ROOTED_BINOMIAL) {
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
    coll_trace_note(hier ? "hier" : "p2p",
                    hier ? "linear" : coll_algo_name(COMM_OP_GATHER, mv_gather_pick(c->size, bb)), bb);
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
