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

#include "coll/direct.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"
#include "core/comm_arch.h"

static int gather_inter(icoll_sched_t *s, comm_t *c, const p2p_data_t *mine,
                        const mv_blocks_t *rb, size_t bb, int root)
{
    if (root == MPI_PROC_NULL || bb == 0)
        return MPI_SUCCESS;
    int m = comm_peer_size(c);
    /* a group's blocks gathered first travel as bytes: not between unlike architectures */
    int mixed = comm_arch_mixed(c);
    if (root == MPI_ROOT) {
        if (!mixed && mv_gather_pick(m, bb) == MV_ROOTED_BINOMIAL) {
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
    if (mixed || mv_gather_pick(local->size, bb) != MV_ROOTED_BINOMIAL) {
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

/* ---- the levels of gather (coll/level.h), asked in the order of the table's gather rows ---- */

/* This member's block (none at the root with MPI_IN_PLACE) and the block size bb (the root's
 * from its receive side). */
typedef struct gather_view {
    int inplace;
    p2p_data_t mine;
    size_t bb;
    mv_blocks_t rb;
} gather_view_t;

static gather_view_t view(const coll_call_t *call)
{
    comm_t *c = call->comm;
    gather_view_t v = { .inplace = call->sbuf == COLL_IN_PLACE };
    int at_root = comm_is_inter(c) ? call->root == MPI_ROOT : c->rank == call->root;
    if (!v.inplace && call->stype && !(comm_is_inter(c) && at_root))
        v.mine = mv_typed(call->sbuf, call->scount, call->stype);
    v.bb = at_root ? call->rcount * (size_t)call->rtype->size : v.mine.bytes;
    v.rb = (mv_blocks_t){ call->rbuf, call->rcount, call->rtype };
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
    gather_view_t v = view(call);
    coll_trace_note("inter", "-", v.bb);
    return gather_inter(call->s, call->comm, &v.mine, &v.rb, v.bb, call->root);
}

static int direct_build(coll_call_t *call)
{
    return coll_direct_gather(call->comm, call->sbuf, call->scount, call->stype, call->rbuf,
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
    gather_view_t v = view(call);
    coll_trace_note("sites", "-", v.bb);
    return site_gather(call->s, call->comm, call->found, v.inplace ? NULL : &v.mine, call->rbuf,
                       call->rcount, call->rtype, v.bb, call->root);
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
    gather_view_t v = view(call);
    coll_trace_note("hier", "linear", v.bb);
    mv_gather_hier(call->s, call->comm, call->found, v.inplace ? NULL : &v.mine, &v.rb, v.bb,
                   call->root);
    return MPI_SUCCESS;
}

static int p2p_build(coll_call_t *call)
{
    comm_t *c = call->comm;
    hold(call);
    gather_view_t v = view(call);
    coll_trace_note("p2p", coll_algo_name(COMM_OP_GATHER, mv_gather_pick(c->size, v.bb)), v.bb);
    coll_team_t all = coll_team_all(c);
    mv_gather_team(call->s, &all, call->root, v.inplace ? NULL : &v.mine, &v.rb, v.bb);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_gather_family = {
    COMM_OP_GATHER,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_HIER] = &hier, [COLL_P2P] = &p2p },
};

/* ---- Gatherv ------------------------------------------------------------------------- */

/* Gatherv: the root posts every receive at once, straight into place (both intra- and
 * inter-communicators). */
static int gatherv_linear(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    const void *sbuf = call->sbuf;
    int inter = comm_is_inter(c), root = call->root;
    if (inter ? root != MPI_ROOT : c->rank != root) {
        p2p_data_t d = mv_typed(sbuf, call->scount, call->stype);
        if (d.bytes)
            icoll_sched_send_data(s, c, root, &d);
        return MPI_SUCCESS;
    }
    mv_blocks_t rb = { call->rbuf, 1, call->rtype };
    int m = comm_peer_size(c);
    for (int i = 0; i < m; i++)
        if (inter || i != root) {
            p2p_data_t d = mv_run(&rb, call->rdispls[i], (size_t)call->rcounts[i]);
            if (d.bytes)
                icoll_sched_recv_data(s, c, i, &d);
        }
    if (!inter && sbuf != COLL_IN_PLACE) {
        icoll_sched_fence(s);
        p2p_data_t from = mv_typed(sbuf, call->scount, call->stype);
        p2p_data_t to = mv_run(&rb, call->rdispls[root], (size_t)call->rcounts[root]);
        mv_copy(s, &from, &to);
    }
    return MPI_SUCCESS;
}

static int v_inter_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("inter", "-", 0);
    return call->root == MPI_PROC_NULL ? MPI_SUCCESS : gatherv_linear(call);
}

static int v_sites_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("sites", "-", 0);
    int inplace = call->sbuf == COLL_IN_PLACE;
    p2p_data_t mine = inplace ? (p2p_data_t){ 0 } : mv_typed(call->sbuf, call->scount, call->stype);
    return site_gatherv(call->s, call->comm, call->found, inplace ? NULL : &mine, call->rbuf,
                        call->rcounts, call->rdispls, call->rtype, call->root);
}

static int v_p2p_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("p2p", "linear", 0);
    return gatherv_linear(call);
}

static const coll_level_t v_inter = { COLL_INTER, 0, coll_takes_inter, v_inter_build };
static const coll_level_t v_sites = { COLL_SITES, 0, sites_takes, v_sites_build };
static const coll_level_t v_p2p = { COLL_P2P, 0, NULL, v_p2p_build };

const coll_family_t coll_gatherv_family = {
    COMM_OP_GATHERV,
    { [COLL_INTER] = &v_inter, [COLL_SITES] = &v_sites, [COLL_P2P] = &v_p2p },
};
