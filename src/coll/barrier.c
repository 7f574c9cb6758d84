/*
 * MPI_Barrier / MPI_Ibarrier: the levels of the barrier (coll/level.h), asked in the order of
 * the table's barrier rows. Within one host: the shared-memory barrier when it accepts (more
 * than two members; two exchange one message, also without a schedule: red_direct.c), else
 * dissemination (ceil(log2 n) rounds of zero-byte messages). Across hosts: a barrier of each
 * host (shared memory, or a fan-in to the host's leader), dissemination among the leaders, a
 * release within each host (shared memory, or a fan-out from the leader). Across sites:
 * sites.c. Inter-communicators: red_inter.c.
 */
#include "coll/red.h"
#include "coll/shm/shm.h"
#include "coll/sites.h"
#include "coll/trace.h"

static int inter_build(coll_call_t *call)
{
    coll_trace_note("inter", "-", 0);
    red_inter_barrier(call->s, call->comm);
    return MPI_SUCCESS;
}

static int direct_build(coll_call_t *call)
{
    return red_direct_barrier(call->comm);
}

static int none_takes(coll_call_t *call)
{
    return call->comm->size == 1 ? MPI_SUCCESS : COLL_DECLINED;
}
static int none_build(coll_call_t *call)
{
    (void)call;
    coll_trace_note("none", "-", 0);
    return MPI_SUCCESS;
}

static int sites_takes(coll_call_t *call)
{
    return (call->found = red_sites(call->comm, NULL)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int sites_build(coll_call_t *call)
{
    coll_trace_note("sites", "-", 0);
    return site_barrier(call->s, call->comm, call->found);
}

static int hier_takes(coll_call_t *call)
{
    return (call->found = red_hier(call->comm, NULL)) ? MPI_SUCCESS : COLL_DECLINED;
}
/* each host's barrier, dissemination among the leaders, each host's release; the host phases
 * in the shared area when it serves them, else fan-in / fan-out over the node team */
static int hier_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    const coll_hier_t *h = call->found;
    int rc, shm = red_barrier_shm(c->size);
    coll_trace_note("hier", "dissemination", 0);
    if (!shm || (rc = coll_shm_barrier(s, c)) == COLL_DECLINED)
        red_fan_in(s, &h->node);
    else if (rc != MPI_SUCCESS)
        return rc;
    icoll_sched_fence(s);
    if (h->leaders.rank >= 0)
        red_dissemination(s, &h->leaders);
    icoll_sched_fence(s);
    if (!shm || (rc = coll_shm_barrier(s, c)) == COLL_DECLINED)
        red_fan_out(s, &h->node);
    else if (rc != MPI_SUCCESS)
        return rc;
    return MPI_SUCCESS;
}

static int shm_takes(coll_call_t *call)
{
    const coll_hier_t *h;
    return red_barrier_shm(call->comm->size) && (h = coll_hier(call->comm)) && h->nhosts == 1
               ? MPI_SUCCESS
               : COLL_DECLINED;
}
static int shm_build(coll_call_t *call)
{
    int rc = coll_shm_barrier(call->s, call->comm);
    if (rc != COLL_DECLINED)
        coll_trace_note("shm", "-", 0);
    return rc;
}

static int p2p_build(coll_call_t *call)
{
    coll_trace_note("p2p", "dissemination", 0);
    coll_team_t t = coll_team_all(call->comm);
    red_dissemination(call->s, &t);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t shm = { COLL_SHM, 0, shm_takes, shm_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_barrier_family = {
    COMM_OP_BARRIER,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_HIER] = &hier, [COLL_SHM] = &shm, [COLL_P2P] = &p2p },
};
