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
#include "coll/sites.h"
#include "coll/trace.h"

static const char *const names[] = { "shm", "binomial", "rabenseifner" };
static coll_choice_t choice = { "METAMPI_COLL_REDUCE", names, 3, 0, 0 };
static coll_knob_t long_knob = { "METAMPI_COLL_REDUCE_LONG", 64 * 1024, 0, 0 };

int red_reduce_shm(int n)
{
    int alg = coll_choice_forced(&choice);
    return alg == RED_R_SHM || (alg < 0 && n != 2);
}

int red_reduce_choice(int n, size_t count, const dtype_t *dt)
{
    int alg = coll_choice_forced(&choice);
    if (alg == RED_R_BINOMIAL || alg == RED_R_RABENSEIFNER)
        return alg;
    /* two members: one message and one combine beat halving the vector (measured: the
     * binomial tree is 2-3x faster from 64 KiB to 1 MiB) */
    return n > 2 && (size_t)dt->size * count >= coll_knob(&long_knob) &&
                   count >= (size_t)red_fold(n, 0).p2
               ? RED_R_RABENSEIFNER
               : RED_R_BINOMIAL;
}

void red_reduce_team(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     size_t count, dtype_t *dt, op_t *op, int root)
{
    if (red_reduce_choice(t->size, count, dt) == RED_R_RABENSEIFNER)
        red_reduce_rabenseifner(s, t, in, out, count, dt, op, root);
    else
        red_reduce_binomial(s, t, in, out, count, dt, op, root);
}

int red_node_reduce(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const void *in,
                    void *out, size_t count, dtype_t *dt, op_t *op, int root, int shm)
{
    void *pin, *pout = NULL;
    int me_root = h->node.rank == root, rc;
    if (shm && red_contig(in, count, dt, &pin) &&
        (!me_root || red_contig(out, count, dt, &pout)) &&
        (rc = coll_shm_reduce(s, c, pin, pout, count, dt, op, root)) != COLL_SHM_DECLINED)
        return rc;
    red_reduce_team(s, &h->node, in, out, count, dt, op, root);
    return MPI_SUCCESS;
}

int red_reduce_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const void *in,
                    void *out, size_t count, dtype_t *dt, op_t *op, int root)
{
    int me = h->all.rank, rh = h->host_of[root], mine = h->host_of[me];
    /* each host's representative: the root on its host, the leader on the others */
    int node_root = mine == rh ? h->node_rank[root] : 0;
    int rep = h->node.rank == node_root;
    void *mid = NULL;
    if (rep && !(mid = me == root ? out : red_temp(s, count, dt)))
        return MPI_SUCCESS; /* out of memory: recorded on s */
    int rc = red_node_reduce(s, c, h, in, mid, count, dt, op, node_root,
                             red_reduce_shm(0));
    if (rc != MPI_SUCCESS || !rep)
        return rc;
    icoll_sched_fence(s);
    coll_team_t reps = h->leaders;
    reps.rank = mine;
    if (h->host_first[rh] != root) {
        int *r = icoll_sched_alloc(s, (size_t)h->nhosts * sizeof *r);
        if (!r)
            return MPI_SUCCESS;
        for (int i = 0; i < h->nhosts; i++)
            r[i] = h->leaders.ranks[i];
        r[rh] = coll_team_peer(&h->all, root);
        reps.ranks = r;
    }
    red_reduce_team(s, &reps, mid, out, count, dt, op, rh);
    return MPI_SUCCESS;
}

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
        coll_trace_note("hier", names[red_reduce_choice(h->nhosts, count, dt)], bytes);
        return red_reduce_hier(s, c, h, in, rbuf, count, dt, op, root);
    }
    void *pin, *pout = NULL;
    if (red_reduce_shm(c->size) && (h = coll_hier(c)) && h->nhosts == 1 &&
        red_contig(in, count, dt, &pin) &&
        (c->rank != root || red_contig(rbuf, count, dt, &pout))) {
        int rc = coll_shm_reduce(s, c, pin, pout, count, dt, op, root);
        if (rc != COLL_SHM_DECLINED) {
            coll_trace_note("shm", "-", bytes);
            return rc;
        }
    }
    coll_trace_note("p2p", names[red_reduce_choice(c->size, count, dt)], bytes);
    coll_team_t t = coll_team_all(c);
    red_reduce_team(s, &t, in, rbuf, count, dt, op, root);
    return MPI_SUCCESS;
}
