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

#include "coll/direct.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"
#include "core/comm_arch.h"

static int scatter_inter(icoll_sched_t *s, comm_t *c, const mv_blocks_t *sb,
                         const p2p_data_t *mine, size_t bb, int root)
{
    if (root == MPI_PROC_NULL || bb == 0)
        return MPI_SUCCESS;
    int m = comm_peer_size(c);
    /* a group's blocks scattered on travel as bytes: not between unlike architectures */
    int mixed = comm_arch_mixed(c);
    if (root == MPI_ROOT) {
        if (!mixed && mv_scatter_pick(m, bb) == MV_ROOTED_BINOMIAL) {
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
    if (mixed || mv_scatter_pick(local->size, bb) != MV_ROOTED_BINOMIAL) {
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

/* ---- the levels of scatter (coll/level.h), asked in the order of the table's rows -------- */

/* The root's blocks, this member's block (none at the root with MPI_IN_PLACE) and the block
 * size bb (the root's from its send side). */
typedef struct scatter_view {
    int inplace;
    p2p_data_t mine;
    size_t bb;
    mv_blocks_t sb;
} scatter_view_t;

static scatter_view_t view(const coll_call_t *call)
{
    comm_t *c = call->comm;
    scatter_view_t v = { .inplace = call->rbuf == COLL_IN_PLACE };
    int at_root = comm_is_inter(c) ? call->root == MPI_ROOT : c->rank == call->root;
    if (!v.inplace && call->rtype && !(comm_is_inter(c) && at_root))
        v.mine = mv_typed(call->rbuf, call->rcount, call->rtype);
    v.bb = at_root ? call->scount * (size_t)call->stype->size : v.mine.bytes;
    v.sb = (mv_blocks_t){ (void *)(uintptr_t)call->sbuf, call->scount, call->stype };
    return v;
}
static void hold(const coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->stype);
    icoll_sched_hold_dtype(call->s, call->rtype);
}

static int inter_build(coll_call_t *call)
{
    hold(call);
    scatter_view_t v = view(call);
    coll_trace_note("inter", "-", v.bb);
    return scatter_inter(call->s, call->comm, &v.sb, &v.mine, v.bb, call->root);
}

static int direct_build(coll_call_t *call)
{
    return coll_direct_scatter(call->comm, call->sbuf, call->scount, call->stype, call->rbuf,
                               call->rcount, call->rtype, call->root);
}

static int none_takes(coll_call_t *call)
{
    return view(call).bb == 0 ? MPI_SUCCESS : COLL_DECLINED;
}
static int none_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("none", "-", 0);
    return MPI_SUCCESS;
}

static int sites_takes(coll_call_t *call)
{
    return (call->found = coll_use_sites(call->comm)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int sites_build(coll_call_t *call)
{
    hold(call);
    scatter_view_t v = view(call);
    coll_trace_note("sites", "-", v.bb);
    return site_scatter(call->s, call->comm, call->found, call->sbuf, call->scount, call->stype,
                        v.inplace ? NULL : &v.mine, v.bb, call->root);
}

static int hier_takes(coll_call_t *call)
{
    const coll_hier_t *h;
    int hier = mv_use_hier(call->comm, &h);
    call->found = h;
    return hier < 0 ? MPI_ERR_NO_MEM : hier ? MPI_SUCCESS : COLL_DECLINED;
}
static int hier_build(coll_call_t *call)
{
    hold(call);
    scatter_view_t v = view(call);
    coll_trace_note("hier", "linear", v.bb);
    mv_scatter_hier(call->s, call->comm, call->found, &v.sb, v.inplace ? NULL : &v.mine, v.bb,
                    call->root);
    return MPI_SUCCESS;
}

static int p2p_build(coll_call_t *call)
{
    comm_t *c = call->comm;
    hold(call);
    scatter_view_t v = view(call);
    coll_trace_note("p2p", coll_algo_name(COMM_OP_SCATTER, mv_scatter_pick(c->size, v.bb)), v.bb);
    coll_team_t all = coll_team_all(c);
    mv_scatter_team(call->s, &all, call->root, &v.sb, v.inplace ? NULL : &v.mine, v.bb);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_scatter_family = {
    COMM_OP_SCATTER,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_HIER] = &hier, [COLL_P2P] = &p2p },
};

/* ---- Scatterv ------------------------------------------------------------------------ */

/* Scatterv: the root posts every send at once, straight from place (both intra- and
 * inter-communicators). */
static int scatterv_linear(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    void *rbuf = call->rbuf;
    int inter = comm_is_inter(c), root = call->root;
    if (inter ? root != MPI_ROOT : c->rank != root) {
        p2p_data_t d = mv_typed(rbuf, call->rcount, call->rtype);
        if (d.bytes)
            icoll_sched_recv_data(s, c, root, &d);
        return MPI_SUCCESS;
    }
    mv_blocks_t sb = { (void *)(uintptr_t)call->sbuf, 1, call->stype };
    if (!inter && rbuf != COLL_IN_PLACE) {
        p2p_data_t from = mv_run(&sb, call->sdispls[root], (size_t)call->scounts[root]);
        p2p_data_t to = mv_typed(rbuf, call->rcount, call->rtype);
        mv_copy(s, &from, &to);
    }
    int m = comm_peer_size(c);
    for (int i = 0; i < m; i++)
        if (inter || i != root) {
            p2p_data_t d = mv_run(&sb, call->sdispls[i], (size_t)call->scounts[i]);
            if (d.bytes)
                icoll_sched_send_data(s, c, i, &d);
        }
    return MPI_SUCCESS;
}

static int v_inter_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("inter", "-", 0);
    return call->root == MPI_PROC_NULL ? MPI_SUCCESS : scatterv_linear(call);
}

static int v_sites_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("sites", "-", 0);
    int inplace = call->rbuf == COLL_IN_PLACE;
    p2p_data_t mine = inplace ? (p2p_data_t){ 0 } : mv_typed(call->rbuf, call->rcount, call->rtype);
    return site_scatterv(call->s, call->comm, call->found, call->sbuf, call->scounts,
                         call->sdispls, call->stype, inplace ? NULL : &mine, call->root);
}

static int v_p2p_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("p2p", "linear", 0);
    return scatterv_linear(call);
}

static const coll_level_t v_inter = { COLL_INTER, 0, coll_takes_inter, v_inter_build };
static const coll_level_t v_sites = { COLL_SITES, 0, sites_takes, v_sites_build };
static const coll_level_t v_p2p = { COLL_P2P, 0, NULL, v_p2p_build };

const coll_family_t coll_scatterv_family = {
    COMM_OP_SCATTERV,
    { [COLL_INTER] = &v_inter, [COLL_SITES] = &v_sites, [COLL_P2P] = &v_p2p },
};
