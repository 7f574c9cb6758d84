/*
 * MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their I-forms (MPI-3.1 §5.8): the levels.
 * The algorithms (linear, pairwise, bruck) are in algo/alltoall.c. One host (MPI_Alltoall,
 * small blocks): through the communicator's shared area (coll/shm/exchange.c), each member's
 * blocks packed into its slot, each member reading its block from every slot.
 * Inter-communicators: every member exchanges with every member of the other group, all
 * posted at once (linear).
 */
#include "coll/algo/alltoall.h"
#include "coll/direct.h"
#include "coll/move.h"
#include "coll/shm/shm.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"
#include "core/comm_arch.h"

/* The algorithm for bb-byte blocks over n members: the forced one, else the table's. */
static int pick(int n, size_t bb)
{
    coll_measure_t m = { .n = n, .size = bb, .commutative = 1 };
    return coll_pick_p2p(COMM_OP_ALLTOALL, &m);
}

static int pick_v(void)
{
    coll_measure_t m = { .n = 0, .commutative = 1 };
    return coll_pick_p2p(COMM_OP_ALLTOALLV, &m);
}

/* ---- the levels (coll/level.h), asked in the order of the table's alltoall(v,w) rows ------ */

static void hold(const coll_call_t *call)
{
    if (call->kind != COMM_OP_ALLTOALLW) {
        icoll_sched_hold_dtype(call->s, call->stype);
        icoll_sched_hold_dtype(call->s, call->rtype);
        return;
    }
    int n = comm_peer_size(call->comm), inplace = call->sbuf == COLL_IN_PLACE;
    for (int i = 0; i < n; i++) {
        if (!inplace && call->scounts[i])
            icoll_sched_hold_dtype(call->s, call->stypes[i]);
        if (call->rcounts[i])
            icoll_sched_hold_dtype(call->s, call->rtypes[i]);
    }
}

/* The two sides of the call; *bb: the block size (alltoall). */
static void sides(const coll_call_t *call, side_t *sd, side_t *rd, size_t *bb)
{
    char *sbase = (char *)(uintptr_t)call->sbuf;
    *bb = 0;
    switch (call->kind) {
    case COMM_OP_ALLTOALL:
        *rd = (side_t){ .kind = SIDE_UNIFORM, .base = call->rbuf, .dt = call->rtype,
                        .count = call->rcount };
        *sd = (side_t){ .kind = SIDE_UNIFORM, .base = sbase, .dt = call->stype,
                        .count = call->scount };
        *bb = call->rcount * (size_t)call->rtype->size;
        break;
    case COMM_OP_ALLTOALLV:
        *rd = (side_t){ .kind = SIDE_V, .base = call->rbuf, .dt = call->rtype,
                        .counts = call->rcounts, .displs = call->rdispls };
        *sd = (side_t){ .kind = SIDE_V, .base = sbase, .dt = call->stype,
                        .counts = call->scounts, .displs = call->sdispls };
        break;
    default:
        *rd = (side_t){ .kind = SIDE_W, .base = call->rbuf, .counts = call->rcounts,
                        .displs = call->rdispls, .types = call->rtypes };
        *sd = (side_t){ .kind = SIDE_W, .base = sbase, .counts = call->scounts,
                        .displs = call->sdispls, .types = call->stypes };
        break;
    }
}

/* The v and w forms pack MPI_IN_PLACE first, whatever the level. */
static int vw_sides(coll_call_t *call, side_t *sd, side_t *rd)
{
    size_t bb;
    hold(call);
    sides(call, sd, rd, &bb);
    if (call->sbuf == COLL_IN_PLACE && a2a_pack_in_place(call->s, call->comm->size, rd, sd))
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

/* between groups, what this group sends need not be what it receives: the exchange skips
 * the empty pieces itself */
static int inter_build(coll_call_t *call)
{
    side_t sd, rd;
    size_t bb;
    if (call->kind != COMM_OP_ALLTOALL) {
        int rc = vw_sides(call, &sd, &rd);
        if (rc != MPI_SUCCESS)
            return rc;
    } else {
        hold(call);
        sides(call, &sd, &rd, &bb);
    }
    coll_trace_note("inter", "-", call->kind == COMM_OP_ALLTOALL ? bb : 0);
    a2a_exchange(call->s, call->comm, &sd, &rd, COLL_A2A_LINEAR);
    return MPI_SUCCESS;
}

static int direct_build(coll_call_t *call)
{
    return coll_direct_alltoall(call->comm, call->sbuf, call->scount, call->stype, call->rbuf,
                                call->rcount, call->rtype);
}

/* the same at every member: all blocks have one signature */
static int none_takes(coll_call_t *call)
{
    return call->rcount * (size_t)call->rtype->size == 0 ? MPI_SUCCESS : COLL_DECLINED;
}
static int none_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("none", "-", 0);
    return MPI_SUCCESS;
}

static int sites_takes(coll_call_t *call)
{
    const coll_sites_t *S = coll_use_sites(call->comm);
    call->found = S;
    if (S && call->kind == COMM_OP_ALLTOALL &&
        !site_alltoall_combines(S, call->rcount * (size_t)call->rtype->size))
        return COLL_DECLINED;
    return S ? MPI_SUCCESS : COLL_DECLINED;
}
static int sites_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    side_t sd, rd;
    size_t bb;
    if (call->kind != COMM_OP_ALLTOALL) {
        int rc = vw_sides(call, &sd, &rd);
        if (rc != MPI_SUCCESS)
            return rc;
        coll_trace_note("sites", "-", 0);
        return site_alltoall(s, call->comm, call->found, &sd, &rd, a2a_blk, NULL, NULL, 0);
    }
    hold(call);
    sides(call, &sd, &rd, &bb);
    coll_trace_note("sites", "-", bb);
    mv_blocks_t srun = { sd.base, call->scount, call->stype };
    mv_blocks_t rrun = { call->rbuf, call->rcount, call->rtype };
    int inplace = call->sbuf == COLL_IN_PLACE;
    if (inplace && a2a_pack_in_place(s, call->comm->size, &rd, &sd) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    return site_alltoall(s, call->comm, call->found, &sd, &rd, a2a_blk, inplace ? NULL : &srun,
                         &rrun, 1);
}

/* mv_shm_exchange_ok; the size limit is coll_shm_alltoall's. */
static int shm_takes(coll_call_t *call)
{
    return mv_shm_exchange_ok(call->comm, COMM_OP_ALLTOALL) ? MPI_SUCCESS : COLL_DECLINED;
}
/* The shared-memory operation works on contiguous bytes, input and output apart: send blocks
 * of another layout, or in place (the receive buffer), are packed into a temporary first, and
 * a receive buffer of another layout is filled from one after (each member by its own
 * layouts; the operation is the same everywhere). */
static int shm_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    int n = c->size, inplace = call->sbuf == COLL_IN_PLACE;
    size_t bb = call->rcount * (size_t)call->rtype->size, total = (size_t)n * bb;
    if (!coll_shm_alltoall_takes(s, c, bb))
        return COLL_DECLINED;
    mv_blocks_t rrun = { call->rbuf, call->rcount, call->rtype };
    mv_blocks_t srun = { (void *)(uintptr_t)call->sbuf, call->scount, call->stype };
    p2p_data_t whole = mv_run(&rrun, 0, (size_t)n);
    p2p_data_t mine = inplace ? whole : mv_run(&srun, 0, (size_t)n);
    if (mine.bytes != total) /* the type signatures differ: an erroneous program */
        return MPI_ERR_TRUNCATE;
    hold(call);
    void *in = mine.buf, *out = whole.buf;
    if (mine.layout || inplace) {
        p2p_data_t t = mv_data(in = icoll_sched_alloc(s, total), total);
        if (!in)
            return MPI_ERR_NO_MEM;
        mv_copy(s, &mine, &t);
    }
    if (whole.layout && !(out = icoll_sched_alloc(s, total)))
        return MPI_ERR_NO_MEM;
    int rc = coll_shm_alltoall(s, c, in, out, bb);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_trace_note("shm", "-", bb);
    if (whole.layout) {
        p2p_data_t t = mv_data(out, total);
        mv_copy(s, &t, &whole);
    }
    return MPI_SUCCESS;
}

static int p2p_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    side_t sd, rd;
    size_t bb;
    if (call->kind != COMM_OP_ALLTOALL) {
        int rc = vw_sides(call, &sd, &rd);
        if (rc != MPI_SUCCESS)
            return rc;
        coll_trace_note("p2p", coll_algo_name(COMM_OP_ALLTOALLV, pick_v()), 0);
        a2a_exchange(s, c, &sd, &rd, pick_v());
        return MPI_SUCCESS;
    }
    hold(call);
    sides(call, &sd, &rd, &bb);
    int n = c->size, algo = pick(n, bb);
    /* Bruck forwards others' blocks in packed temporaries, which would reach members of
     * another architecture unconverted: linear there (typed blocks, converted) */
    if (algo == COLL_A2A_BRUCK && comm_arch_mixed(c))
        algo = COLL_A2A_LINEAR;
    coll_trace_note("p2p",
                    coll_algo_name(COMM_OP_ALLTOALL,
                                   algo == COLL_A2A_BRUCK && n == 1 ? COLL_A2A_LINEAR : algo),
                    bb);
    if (call->sbuf == COLL_IN_PLACE) {
        if (algo == COLL_A2A_BRUCK) /* it copies the send blocks first anyway */
            sd = rd;
        else if (a2a_pack_in_place(s, n, &rd, &sd) != MPI_SUCCESS)
            return MPI_ERR_NO_MEM;
    }
    if (algo == COLL_A2A_BRUCK && n > 1)
        return a2a_bruck(s, c, &sd, &rd, bb);
    a2a_exchange(s, c, &sd, &rd, algo);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t shm = { COLL_SHM, 0, shm_takes, shm_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

/* alltoallv and alltoallw have no shm level (their table rows) */
const coll_family_t coll_alltoall_family = {
    COMM_OP_ALLTOALL,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_SHM] = &shm, [COLL_P2P] = &p2p },
};
const coll_family_t coll_alltoallv_family = {
    COMM_OP_ALLTOALLV,
    { [COLL_INTER] = &inter, [COLL_SITES] = &sites, [COLL_P2P] = &p2p },
};
const coll_family_t coll_alltoallw_family = {
    COMM_OP_ALLTOALLW,
    { [COLL_INTER] = &inter, [COLL_SITES] = &sites, [COLL_P2P] = &p2p },
};
