/*
 * MPI_Barrier / MPI_Ibarrier. Within one host: the shared-memory barrier when it accepts
 * (more than two members; two exchange one message, also without a schedule: red_direct.c),
 * else dissemination (ceil(log2 n) rounds of zero-byte messages). Across hosts: a barrier of
 * each host (shared memory, or a fan-in to the host's leader), dissemination among the
 * leaders, a release within each host (shared memory, or a fan-out from the leader).
 * Inter-communicators: red_inter.c.
 */
#include "coll/red.h"
#include "coll/shm/shm.h"
#include "coll/sites.h"
#include "coll/trace.h"

int coll_barrier(icoll_sched_t *s, comm_t *c)
{
    if (comm_is_inter(c)) {
        coll_trace_note("inter", "-", 0);
        red_inter_barrier(s, c);
        return MPI_SUCCESS;
    }
    if (c->size == 1) {
        coll_trace_note("none", "-", 0);
        return MPI_SUCCESS;
    }
    const coll_sites_t *S = red_sites(c, NULL);
    if (S) {
        coll_trace_note("sites", "-", 0);
        return site_barrier(s, c, S);
    }
    int rc, shm = red_barrier_shm(c->size);
    const coll_hier_t *h = red_hier(c, NULL);
    if (!h) {
        if (shm && (h = coll_hier(c)) && h->nhosts == 1 &&
            (rc = coll_shm_barrier(s, c)) != COLL_DECLINED) {
            coll_trace_note("shm", "-", 0);
            return rc;
        }
        coll_trace_note("p2p", "dissemination", 0);
        coll_team_t t = coll_team_all(c);
        red_dissemination(s, &t);
        return MPI_SUCCESS;
    }
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
