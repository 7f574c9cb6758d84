/*
 * MPI_Reduce / MPI_Ireduce: the levels of the reduction (coll/level.h).
 *
 * Selection (docs/collectives.md, "Synchronisation and reductions"):
 *  - one host, contiguous data, more than two ranks: the shared-memory reduction when it
 *    accepts (two ranks: one message, also without a schedule, red_direct.c);
 *  - otherwise binomial tree below METAMPI_COLL_REDUCE_LONG bytes (or fewer elements than
 *    the largest power of two <= ranks), Rabenseifner (reduce-scatter + gather) above;
 *  - several hosts (op commutative, or each host one contiguous rank range): node reduction
 *    to the host's representative (the root on its host, the leader elsewhere), then a
 *    reduction among the representatives.
 * METAMPI_COLL_REDUCE=shm|binomial|rabenseifner forces one (shm falls back when it declines).
 */
#include "coll/red.h"
#include "coll/shm/shm.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

/* ---- the levels (coll/level.h), asked in the order of the table's reduce rows -------------- */

static size_t bytes_of(const coll_call_t *call)
{
    return call->dt ? call->count * (size_t)call->dt->size : 0;
}
static const void *in_of(const coll_call_t *call)
{
    return call->sbuf == COLL_IN_PLACE ? call->rbuf : call->sbuf;
}
static void hold(const coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    icoll_sched_hold_op(call->s, call->op);
}

static int inter_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("inter", "-", bytes_of(call));
    red_inter_reduce(call->s, call->comm, call->sbuf, call->rbuf, call->count, call->dt,
                     call->op, call->root);
    return MPI_SUCCESS;
}

static int direct_build(coll_call_t *call)
{
    return red_direct_reduce(call->comm, call->sbuf, call->rbuf, call->count, call->dt,
                             call->op, call->root);
}

static int none_takes(coll_call_t *call)
{
    return call->count == 0 ? MPI_SUCCESS : COLL_DECLINED;
}
static int none_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("none", "-", bytes_of(call));
    return MPI_SUCCESS;
}

static int sites_takes(coll_call_t *call)
{
    return (call->found = red_sites(call->comm, call->op)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int sites_build(coll_call_t *call)
{
    hold(call);
    coll_trace_note("sites", "-", bytes_of(call));
    return site_reduce(call->s, call->comm, call->found, in_of(call), call->rbuf, call->count,
                       call->dt, call->op, call->root);
}

static int hier_takes(coll_call_t *call)
{
    return (call->found = red_hier(call->comm, call->op)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int hier_build(coll_call_t *call)
{
    const coll_hier_t *h = call->found;
    hold(call);
    coll_trace_note("hier",
                    coll_algo_name(COMM_OP_REDUCE,
                                   red_reduce_choice(h->nhosts, call->count, call->dt)),
                    bytes_of(call));
    return red_reduce_hier(call->s, call->comm, h, in_of(call), call->rbuf, call->count,
                           call->dt, call->op, call->root);
}

/* one host, contiguous data (the receive buffer at the root only) */
static int shm_takes(coll_call_t *call)
{
    comm_t *c = call->comm;
    const coll_hier_t *h;
    void *p;
    return red_reduce_shm(c->size) && (h = coll_hier(c)) && h->nhosts == 1 &&
                   red_contig(in_of(call), call->count, call->dt, &p) &&
                   (c->rank != call->root || red_contig(call->rbuf, call->count, call->dt, &p))
               ? MPI_SUCCESS
               : COLL_DECLINED;
}
static int shm_build(coll_call_t *call)
{
    comm_t *c = call->comm;
    void *pin, *pout = NULL;
    red_contig(in_of(call), call->count, call->dt, &pin);
    if (c->rank == call->root)
        red_contig(call->rbuf, call->count, call->dt, &pout);
    hold(call);
    int rc = coll_shm_reduce(call->s, c, pin, pout, call->count, call->dt, call->op, call->root);
    if (rc != COLL_DECLINED)
        coll_trace_note("shm", "-", bytes_of(call));
    return rc;
}

static int p2p_build(coll_call_t *call)
{
    comm_t *c = call->comm;
    hold(call);
    coll_trace_note("p2p",
                    coll_algo_name(COMM_OP_REDUCE, red_reduce_choice(c->size, call->count, call->dt)),
                    bytes_of(call));
    coll_team_t t = coll_team_all(c);
    red_reduce_team(call->s, &t, in_of(call), call->rbuf, call->count, call->dt, call->op,
                    call->root);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t shm = { COLL_SHM, 0, shm_takes, shm_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_reduce_family = {
    COMM_OP_REDUCE,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_HIER] = &hier, [COLL_SHM] = &shm, [COLL_P2P] = &p2p },
};
