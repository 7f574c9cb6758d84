/*
 * MPI_Allgather, MPI_Allgatherv and their I-forms (MPI-3.1 §5.7): the levels. The algorithms
 * over a team (recursive_doubling, bruck, ring) are in algo/allgather.c.
 * Across hosts (Allgather): each host gathers its blocks at its leader, the leaders
 * allgather their hosts' blocks, each leader broadcasts the whole to its host (shared
 * memory when available), in a host-ordered packed temporary (the receive buffer itself when
 * hosts hold consecutive ranks and it is contiguous).
 * One host (Allgather, small blocks): through the communicator's shared area
 * (coll/shm/exchange.c), each member's block packed into its slot and read by all.
 * Inter-communicators: each member sends its block to the first member of the other group,
 * which broadcasts the other group's blocks within its own group.
 */
#include "coll/move.h"

#include "coll/direct.h"

#include "coll/shm/shm.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"
#include "core/comm_arch.h"

/* The algorithm of kind (allgather or allgatherv) over n members gathering total bytes: the
 * forced one, else the selection table's (coll/table.c). */
static int pick(comm_op_kind_t kind, int n, size_t total)
{
    coll_measure_t m = { .n = n, .size = total, .commutative = 1 };
    return coll_pick_p2p(kind, &m);
}

/* The algorithm mv_allgather_set runs for algo over a team of n (for the trace). */
static const char *set_algo(int n, int algo)
{
    return coll_algo_name(COMM_OP_ALLGATHER,
                          algo == MV_AG_RECURSIVE_DOUBLING && (n & (n - 1)) ? MV_AG_BRUCK : algo);
}

/* Hosts' phases (see the top): leaders gather, exchange, broadcast, unpack. */
static int allgather_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h,
                          const p2p_data_t *mine, const mv_blocks_t *rb, size_t bb, int algo)
{
    int n = h->all.size, me = h->all.rank, host = h->host_of[me];
    size_t total = (size_t)n * bb;
    p2p_data_t whole = mv_run(rb, 0, (size_t)n);
    int direct = !whole.layout && mv_hier_ordered(h, n);
    char *tmp = direct ? whole.buf : icoll_sched_alloc(s, total);
    int *start = h->leaders.rank >= 0 ? icoll_sched_alloc(s, (size_t)h->nhosts * sizeof(int))
                                      : NULL;
    if (!tmp || (h->leaders.rank >= 0 && !start))
        return MPI_ERR_NO_MEM;
    /* my block: from the send buffer, or (in place) from the receive buffer unless that is
     * where the leader collects it anyway */
    p2p_data_t own = mine ? *mine : mv_run(rb, me, 1);
    const p2p_data_t *src = mine || !direct || h->node.rank != 0 ? &own : NULL;
    mv_blocks_t out = mv_bytes(tmp + (size_t)mv_host_start(h, host) * bb, bb);
    mv_gather_team(s, &h->node, 0, src, &out, bb);
    icoll_sched_fence(s);
    if (start) {
        for (int k = 1; k < h->nhosts; k++)
            start[k] = start[k - 1] + h->node_size[k - 1];
        mv_set_t set = { mv_bytes(tmp, bb), start, h->node_size };
        if (algo < 0)
            algo = pick(COMM_OP_ALLGATHER, h->nhosts, total);
        mv_allgather_set(s, &h->leaders, &set, NULL, algo);
        icoll_sched_fence(s);
    }
    int rc = COLL_DECLINED;
    if (coll_forced(COMM_OP_ALLGATHER) < 0)
        rc = coll_shm_bcast(s, c, tmp, total, 0);
    if (rc == COLL_DECLINED) {
        rc = MPI_SUCCESS;
        mv_bcast_bytes(s, &h->node, 0, tmp, total, mv_bcast_forced());
    }
    icoll_sched_fence(s);
    if (!direct)
        mv_hosts_copy(s, h, n, tmp, bb, rb, 0);
    return rc;
}

/* Every member sends its block to the other group's first member, which broadcasts the
 * other group's blocks within its own group: uniform blocks are one typed run, received and
 * broadcast in place; v-form blocks travel packed in a temporary. */
static int allgather_inter(icoll_sched_t *s, comm_t *c, const p2p_data_t *mine,
                           const mv_set_t *set, size_t total)
{
    comm_t *local = c->local_comm;
    int m = comm_peer_size(c);
    if (mine->bytes)
        icoll_sched_send_data(s, c, 0, mine);
    if (total == 0)
        return MPI_SUCCESS;
    if (!set->start) {
        if (local->rank == 0) {
            for (int i = 0; i < m; i++) {
                p2p_data_t d = mv_run(&set->b, i, 1);
                icoll_sched_recv_data(s, c, i, &d);
            }
            icoll_sched_fence(s);
        }
        return coll_bcast(s, local, set->b.base, (size_t)m * set->b.count, set->b.dt, 0);
    }
    if (comm_arch_mixed(c)) {
        /* members of unlike architectures: each block received and broadcast typed, in place
         * (a packed temporary would carry its writers' bytes unconverted) */
        for (int i = 0; i < m; i++) {
            p2p_data_t d = mv_run(&set->b, set->start[i], (size_t)set->len[i]);
            if (local->rank == 0 && d.bytes)
                icoll_sched_recv_data(s, c, i, &d);
        }
        icoll_sched_fence(s);
        int rc = MPI_SUCCESS;
        for (int i = 0; i < m && rc == MPI_SUCCESS; i++)
            if (set->len[i])
                rc = coll_bcast(s, local, coll_at(set->b.base, (size_t)set->start[i] *
                                                  set->b.count, set->b.dt),
                                (size_t)set->len[i] * set->b.count, set->b.dt, 0);
        return rc;
    }
    char *tmp = icoll_sched_alloc(s, total);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    size_t off = 0;
    for (int i = 0; i < m; i++) {
        size_t bytes = mv_set_bytes(set, i);
        p2p_data_t d = mv_data(tmp + off, bytes);
        if (local->rank == 0 && bytes)
            icoll_sched_recv_data(s, c, i, &d);
        off += bytes;
    }
    icoll_sched_fence(s);
    int rc = coll_bcast(s, local, tmp, total, mv_byte(), 0);
    icoll_sched_fence(s);
    off = 0;
    for (int i = 0; i < m; i++) {
        p2p_data_t d = mv_run(&set->b, set->start[i], (size_t)set->len[i]);
        p2p_data_t p = mv_data(tmp + off, d.bytes);
        mv_copy(s, &p, &d);
        off += d.bytes;
    }
    return rc;
}

/* ---- the levels (coll/level.h), asked in the order of the table's allgather(v) rows ------- */

/* This member's block (none with MPI_IN_PLACE), the receive set and everything gathered. */
typedef struct ag_view {
    int inplace;
    p2p_data_t mine;
    mv_set_t set;
    size_t total;
} ag_view_t;

static ag_view_t view(const coll_call_t *call)
{
    comm_t *c = call->comm;
    ag_view_t v = { .inplace = call->sbuf == COLL_IN_PLACE };
    if (!v.inplace)
        v.mine = mv_typed(call->sbuf, call->scount, call->stype);
    int m = comm_peer_size(c);
    if (call->kind == COMM_OP_ALLGATHER) {
        v.set = (mv_set_t){ { call->rbuf, call->rcount, call->rtype }, NULL, NULL };
        v.total = (size_t)m * call->rcount * (size_t)call->rtype->size;
    } else {
        v.set = (mv_set_t){ { call->rbuf, 1, call->rtype }, call->rdispls, call->rcounts };
        for (int i = 0; i < m; i++)
            v.total += (size_t)call->rcounts[i] * (size_t)call->rtype->size;
    }
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
    ag_view_t v = view(call);
    coll_trace_note("inter", "-", v.total);
    return allgather_inter(call->s, call->comm, &v.mine, &v.set, v.total);
}

static int direct_build(coll_call_t *call)
{
    return coll_direct_allgather(call->comm, call->sbuf, call->scount, call->stype, call->rbuf,
                                 call->rcount, call->rtype);
}

static int none_takes(coll_call_t *call)
{
    return view(call).total == 0 ? MPI_SUCCESS : COLL_DECLINED;
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
    ag_view_t v = view(call);
    coll_trace_note("sites", "-", v.total);
    if (call->kind == COMM_OP_ALLGATHER)
        return site_allgather(call->s, call->comm, call->found, v.inplace ? NULL : &v.mine,
                              call->rbuf, call->rcount, call->rtype);
    return site_allgatherv(call->s, call->comm, call->found, v.inplace ? NULL : &v.mine,
                           call->rbuf, call->rcounts, call->rdispls, call->rtype);
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
    const coll_hier_t *h = call->found;
    hold(call);
    ag_view_t v = view(call);
    coll_trace_note("hier", set_algo(h->nhosts, pick(COMM_OP_ALLGATHER, h->nhosts, v.total)),
                    v.total);
    return allgather_hier(call->s, call->comm, h, v.inplace ? NULL : &v.mine, &v.set.b,
                          call->rcount * (size_t)call->rtype->size,
                          coll_forced(COMM_OP_ALLGATHER));
}

/* mv_shm_exchange_ok; the size limit is coll_shm_allgather's. */
static int shm_takes(coll_call_t *call)
{
    return mv_shm_exchange_ok(call->comm, COMM_OP_ALLGATHER) ? MPI_SUCCESS : COLL_DECLINED;
}
/* The shared-memory operation works on contiguous bytes: a block of another layout is packed
 * into a temporary first, and a receive buffer of another layout is filled from one after
 * (each member by its own layouts; the operation is the same everywhere). */
static int shm_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    size_t bb = call->rcount * (size_t)call->rtype->size;
    if (!coll_shm_allgather_takes(s, c, bb))
        return COLL_DECLINED;
    ag_view_t v = view(call);
    p2p_data_t whole = mv_run(&v.set.b, 0, (size_t)c->size);
    p2p_data_t own = v.inplace ? mv_run(&v.set.b, c->rank, 1) : v.mine;
    if (own.bytes != bb) /* the type signatures differ: an erroneous program */
        return MPI_ERR_TRUNCATE;
    hold(call);
    void *in = own.buf, *out = whole.buf;
    if (own.layout) {
        p2p_data_t t = mv_data(in = icoll_sched_alloc(s, bb), bb);
        if (!in)
            return MPI_ERR_NO_MEM;
        mv_copy(s, &own, &t);
    }
    if (whole.layout && !(out = icoll_sched_alloc(s, v.total)))
        return MPI_ERR_NO_MEM;
    int rc = coll_shm_allgather(s, c, in, out, bb);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_trace_note("shm", "-", v.total);
    if (whole.layout) {
        p2p_data_t t = mv_data(out, v.total);
        mv_copy(s, &t, &whole);
    }
    return MPI_SUCCESS;
}

static int p2p_build(coll_call_t *call)
{
    comm_t *c = call->comm;
    hold(call);
    ag_view_t v = view(call);
    int algo = pick(call->kind, c->size, v.total);
    coll_trace_note("p2p", set_algo(c->size, algo), v.total);
    coll_team_t all = coll_team_all(c);
    mv_allgather_set(call->s, &all, &v.set, v.inplace ? NULL : &v.mine, algo);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t shm = { COLL_SHM, 0, shm_takes, shm_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

/* allgatherv has no direct, no hier and no shm level (its table rows) */
const coll_family_t coll_allgather_family = {
    COMM_OP_ALLGATHER,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_HIER] = &hier, [COLL_SHM] = &shm, [COLL_P2P] = &p2p },
};
const coll_family_t coll_allgatherv_family = {
    COMM_OP_ALLGATHERV,
    { [COLL_INTER] = &inter, [COLL_NONE] = &none, [COLL_SITES] = &sites, [COLL_P2P] = &p2p },
};
