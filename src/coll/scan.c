/*
 * MPI_Scan, MPI_Exscan and their I-forms (intra-communicators only): the levels (direct,
 * none, p2p; coll/level.h). The algorithms are in algo/scan.c.
 */
#include "coll/red.h"
#include "coll/select.h"
#include "coll/trace.h"

static int excl(const coll_call_t *call)
{
    return call->kind == COMM_OP_EXSCAN;
}
static void hold(const coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    icoll_sched_hold_op(call->s, call->op);
}

static int direct_build(coll_call_t *call)
{
    return red_direct_scan(call->comm, call->sbuf, call->rbuf, call->count, call->dt, call->op,
                           excl(call));
}

static int none_takes(coll_call_t *call)
{
    return call->count == 0 ? MPI_SUCCESS : COLL_DECLINED;
}
static int none_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("none", "-", 0);
    return MPI_SUCCESS;
}

static int p2p_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    size_t count = call->count;
    dtype_t *dt = call->dt;
    hold(call);
    coll_measure_t m = { .n = c->size, .size = count * (size_t)dt->size, .count = count,
                         .commutative = call->op->commute };
    int alg = coll_pick_p2p(COMM_OP_SCAN, &m); /* scan and exscan share the table */
    coll_trace_note("p2p", coll_algo_name(COMM_OP_SCAN, alg), count * (size_t)dt->size);
    const void *in = call->sbuf == COLL_IN_PLACE ? call->rbuf : call->sbuf;
    coll_team_t t = coll_team_all(c);
    if (c->size == 1) {
        if (!excl(call))
            red_copy(s, in, 0, call->rbuf, 0, count, dt);
        return MPI_SUCCESS;
    }
    if (alg == COLL_SCAN_LINEAR)
        red_scan_linear(s, &t, in, call->rbuf, count, dt, call->op, excl(call));
    else
        red_scan_rd(s, &t, in, call->rbuf, count, dt, call->op, excl(call));
    return MPI_SUCCESS;
}

static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_scan_family = {
    COMM_OP_SCAN,
    { [COLL_DIRECT] = &direct, [COLL_NONE] = &none, [COLL_P2P] = &p2p },
};
