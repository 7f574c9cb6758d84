/*
 * The hierarchical level of the reductions: a reduction within each host (the host's shared
 * area when it accepts, else the reduction's point-to-point algorithm over the host's
 * members) to the host's representative, then among the representatives. coll/red.h declares
 * them; the entry points (reduce.c, allreduce.c, ...) and the sites level call them, and they
 * call only below: coll/algo/, coll/shm/ and the schedule engine.
 */
#include "coll/red.h"

#include "coll/shm/shm.h"
#include "runtime/tunables.h"

/* The hier level's test for the reductions and the barrier (red.h). */
const coll_hier_t *red_hier(comm_t *c, const op_t *op)
{
    if (!tun_bool(TUN_COLL_HIER)) /* METAMPI_COLL_HIER=0: no collective uses the hierarchy */
        return NULL;
    const coll_hier_t *h = coll_hier(c);
    if (!h || h->nhosts <= 1 || h->nhosts >= c->size)
        return NULL;
    /* hosts are numbered in order of their lowest rank: each host is one contiguous range
     * exactly when the numbers never go down */
    if (op && !op->commute)
        for (int r = 1; r < c->size; r++)
            if (h->host_of[r] < h->host_of[r - 1])
                return NULL;
    return h;
}

int red_node_reduce(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const void *in,
                    void *out, size_t count, dtype_t *dt, op_t *op, int root, int shm)
{
    void *pin, *pout = NULL;
    int me_root = h->node.rank == root, rc;
    if (shm && red_contig(in, count, dt, &pin) &&
        (!me_root || red_contig(out, count, dt, &pout)) &&
        (rc = coll_shm_reduce(s, c, pin, pout, count, dt, op, root)) != COLL_DECLINED)
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
