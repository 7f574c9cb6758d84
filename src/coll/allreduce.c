/*
 * MPI_Allreduce / MPI_Iallreduce: the levels of the allreduce (coll/level.h).
 *
 * Selection (docs/collectives.md, "Synchronisation and reductions"):
 *  - one host, contiguous data, more than two ranks: the shared-memory allreduce when it
 *    accepts;
 *  - below METAMPI_COLL_ALLREDUCE_LONG bytes (or fewer elements than the largest power of two
 *    <= ranks): recursive doubling (with 2 ranks: one exchange and one op, and the blocking
 *    call runs it without a schedule, red_direct.c);
 *  - above: Rabenseifner; for commutative ops on a rank count that is not a power of two and
 *    at least METAMPI_COLL_ALLREDUCE_RING bytes, the ring (no folding step);
 *  - several hosts (op commutative, or each host one contiguous rank range): node reduction
 *    to the leader, allreduce among the leaders (same table), broadcast within each host.
 * METAMPI_COLL_ALLREDUCE=shm|recursive_doubling|rabenseifner|ring forces one (ring falls back
 * to the table for non-commutative ops, shm when it declines).
 */
#include "coll/red.h"
#include "coll/shm/shm.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

static const char *ar_name(int algo)
{
    return coll_algo_name(COMM_OP_ALLREDUCE, algo);
}

int red_allreduce_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const void *in,
                       void *out, size_t count, dtype_t *dt, op_t *op, int bcast)
{
    int shm = red_allreduce_shm(0), leader = h->node.rank == 0, rc;
    if ((rc = red_node_reduce(s, c, h, in, leader ? out : NULL, count, dt, op, 0, shm)))
        return rc;
    icoll_sched_fence(s);
    if (leader)
        red_allreduce_team(s, &h->leaders, out, out, count, dt, op);
    if (!bcast)
        return MPI_SUCCESS;
    icoll_sched_fence(s);
    void *p;
    if (shm && red_contig(out, count, dt, &p) &&
        (rc = coll_shm_bcast(s, c, p, count * (size_t)dt->size, 0)) != COLL_DECLINED)
        return rc;
    red_bcast_binomial(s, &h->node, out, count, dt, 0);
    return MPI_SUCCESS;
}

/* ---- the levels (coll/level.h), asked in the order of the table's allreduce rows ----------- */

static size_t bytes_of(const coll_call_t *call)
{
    return call->count * (size_t)call->dt->size;
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
    red_inter_allreduce(call->s, call->comm, call->sbuf, call->rbuf, call->count, call->dt,
                        call->op);
    return MPI_SUCCESS;
}

static int direct_build(coll_call_t *call)
{
    return red_direct_allreduce(call->comm, call->sbuf, call->rbuf, call->count, call->dt,
                                call->op);
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
    return site_allreduce(call->s, call->comm, call->found, in_of(call), call->rbuf,
                          call->count, call->dt, call->op, 1);
}

static int hier_takes(coll_call_t *call)
{
    return (call->found = red_hier(call->comm, call->op)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int hier_build(coll_call_t *call)
{
    const coll_hier_t *h = call->found;
    hold(call);
    coll_trace_note("hier", ar_name(red_allreduce_choice(h->nhosts, call->count, call->dt,
                                                         call->op)),
                    bytes_of(call));
    return red_allreduce_hier(call->s, call->comm, h, in_of(call), call->rbuf, call->count,
                              call->dt, call->op, 1);
}

/* one host of more than one member, contiguous data */
static int shm_takes(coll_call_t *call)
{
    comm_t *c = call->comm;
    const coll_hier_t *h;
    void *p;
    return red_allreduce_shm(c->size) && c->size > 1 && (h = coll_hier(c)) &&
                   h->nhosts == 1 && red_contig(in_of(call), call->count, call->dt, &p) &&
                   red_contig(call->rbuf, call->count, call->dt, &p)
               ? MPI_SUCCESS
               : COLL_DECLINED;
}
static int shm_build(coll_call_t *call)
{
    void *pin, *pout;
    red_contig(in_of(call), call->count, call->dt, &pin);
    red_contig(call->rbuf, call->count, call->dt, &pout);
    hold(call);
    int rc = coll_shm_allreduce(call->s, call->comm, pin, pout, call->count, call->dt, call->op);
    if (rc != COLL_DECLINED)
        coll_trace_note("shm", "-", bytes_of(call));
    return rc;
}

static int p2p_build(coll_call_t *call)
{
    comm_t *c = call->comm;
    hold(call);
    coll_trace_note("p2p", ar_name(red_allreduce_choice(c->size, call->count, call->dt, call->op)),
                    bytes_of(call));
    coll_team_t t = coll_team_all(c);
    red_allreduce_team(call->s, &t, in_of(call), call->rbuf, call->count, call->dt, call->op);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t shm = { COLL_SHM, 0, shm_takes, shm_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_allreduce_family = {
    COMM_OP_ALLREDUCE,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_HIER] = &hier, [COLL_SHM] = &shm, [COLL_P2P] = &p2p },
};
