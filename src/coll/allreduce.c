/*
 * MPI_Allreduce / MPI_Iallreduce.
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

int red_allreduce_shm(int n)
{
    int alg = coll_forced(COMM_OP_ALLREDUCE);
    return alg == RED_AR_SHM || (alg < 0 && n != 2);
}

int red_allreduce_choice(int n, size_t count, const dtype_t *dt, const op_t *op)
{
    coll_measure_t m = { .n = n, .size = (size_t)dt->size * count, .count = count,
                         .commutative = op->commute };
    return coll_pick_p2p(COMM_OP_ALLREDUCE, &m);
}

void red_allreduce_team(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                        size_t count, dtype_t *dt, op_t *op)
{
    int alg = red_allreduce_choice(t->size, count, dt, op);
    if (alg == RED_AR_RING)
        red_allreduce_ring(s, t, in, out, count, dt, op);
    else if (alg == RED_AR_RABENSEIFNER)
        red_allreduce_rabenseifner(s, t, in, out, count, dt, op);
    else
        red_allreduce_rd(s, t, in, out, count, dt, op);
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

int coll_allreduce(icoll_sched_t *s, comm_t *c, const void *sbuf, void *rbuf, size_t count,
                   dtype_t *dt, op_t *op)
{
    icoll_sched_hold_dtype(s, dt);
    icoll_sched_hold_op(s, op);
    size_t bytes = count * (size_t)dt->size;
    if (comm_is_inter(c)) {
        coll_trace_note("inter", "-", bytes);
        red_inter_allreduce(s, c, sbuf, rbuf, count, dt, op);
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
        return site_allreduce(s, c, S, in, rbuf, count, dt, op, 1);
    }
    const coll_hier_t *h = red_hier(c, op);
    if (h) {
        coll_trace_note("hier", ar_name(red_allreduce_choice(h->nhosts, count, dt, op)), bytes);
        return red_allreduce_hier(s, c, h, in, rbuf, count, dt, op, 1);
    }
    void *pin, *pout;
    if (red_allreduce_shm(c->size) && c->size > 1 && (h = coll_hier(c)) &&
        h->nhosts == 1 && red_contig(in, count, dt, &pin) &&
        red_contig(rbuf, count, dt, &pout)) {
        int rc = coll_shm_allreduce(s, c, pin, pout, count, dt, op);
        if (rc != COLL_DECLINED) {
            coll_trace_note("shm", "-", bytes);
            return rc;
        }
    }
    coll_trace_note("p2p", ar_name(red_allreduce_choice(c->size, count, dt, op)), bytes);
    coll_team_t t = coll_team_all(c);
    red_allreduce_team(s, &t, in, rbuf, count, dt, op);
    return MPI_SUCCESS;
}
