/*
 * MPI_Reduce / MPI_Ireduce.
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

int coll_reduce(icoll_sched_t *s, comm_t *c, const void *sbuf, void *rbuf, size_t count,
                dtype_t *dt, op_t *op, int root)
{
    icoll_sched_hold_dtype(s, dt);
    icoll_sched_hold_op(s, op);
    size_t bytes = dt ? count * (size_t)dt->size : 0;
    if (comm_is_inter(c)) {
        coll_trace_note("inter", "-", bytes);
        red_inter_reduce(s, c, sbuf, rbuf, count, dt, op, root);
        return MPI_SUCCESS;
    }
    if (count == 0) {
        coll_trace_note("none", "-", bytes);
        return MPI_SUCCESS;
    }
    const void *in = sbuf == COLL_IN_PLACE ? rbuf : sbuf;
    const coll_sites_t *S = red_sites(c, op);
    if (S) {
        coll_trace_note("sites", "-", bytes);
        return site_reduce(s, c, S, in, rbuf, count, dt, op, root);
    }
    const coll_hier_t *h = red_hier(c, op);
    if (h) {
        coll_trace_note("hier",
                        coll_algo_name(COMM_OP_REDUCE, red_reduce_choice(h->nhosts, count, dt)),
                        bytes);
        return red_reduce_hier(s, c, h, in, rbuf, count, dt, op, root);
    }
    void *pin, *pout = NULL;
    if (red_reduce_shm(c->size) && (h = coll_hier(c)) && h->nhosts == 1 &&
        red_contig(in, count, dt, &pin) &&
        (c->rank != root || red_contig(rbuf, count, dt, &pout))) {
        int rc = coll_shm_reduce(s, c, pin, pout, count, dt, op, root);
        if (rc != COLL_DECLINED) {
            coll_trace_note("shm", "-", bytes);
            return rc;
        }
    }
    coll_trace_note("p2p", coll_algo_name(COMM_OP_REDUCE, red_reduce_choice(c->size, count, dt)),
                    bytes);
    coll_team_t t = coll_team_all(c);
    red_reduce_team(s, &t, in, rbuf, count, dt, op, root);
    return MPI_SUCCESS;
}
