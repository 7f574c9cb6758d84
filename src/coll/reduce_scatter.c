/*
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block and their I-forms: one implementation over
 * per-rank counts (the block form has them all equal); the levels (inter, none, sites, hier,
 * p2p; coll/level.h). The algorithms over a team are in algo/reduce_scatter.c.
 *
 * Selection (docs/collectives.md, "Synchronisation and reductions"):
 *  - commutative op and fewer than METAMPI_COLL_REDUCE_SCATTER_LONG bytes in the whole
 *    vector: recursive halving (log2 rounds, fold for non-powers of two);
 *  - otherwise pairwise exchange (all n-1 blocks travel at once, combined in rank order:
 *    any op);
 *  - several sites or hosts: the hierarchical allreduce up to the leaders, which hand each
 *    member of their host its block.
 * METAMPI_COLL_REDUCE_SCATTER=recursive_halving|pairwise forces one (recursive halving falls
 * back to pairwise for non-commutative ops).
 */
#include "coll/red.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

/* Counts and displacements in schedule memory (the recvcounts array may go away once an
 * I-form returns). n is the local group size. */
static red_blocks_t *make_blocks(icoll_sched_t *s, int n, const int *counts, size_t each)
{
    red_blocks_t *b = icoll_sched_alloc(s, sizeof *b + (2 * (size_t)n + 1) * sizeof(size_t));
    if (!b)
        return NULL;
    size_t *cnt = (size_t *)(b + 1), *displ = cnt + n;
    displ[0] = 0;
    for (int i = 0; i < n; i++) {
        cnt[i] = counts ? (size_t)counts[i] : each;
        displ[i + 1] = displ[i] + cnt[i];
    }
    b->cnt = cnt;
    b->displ = displ;
    return b;
}

/* Holds the type and op and makes the blocks: NULL when out of memory (recorded on s). */
static const red_blocks_t *begin(const coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    icoll_sched_hold_op(call->s, call->op);
    return make_blocks(call->s, call->comm->size,
                       call->kind == COMM_OP_REDUCE_SCATTER ? call->rcounts : NULL, call->count);
}

static const void *in_of(const coll_call_t *call)
{
    return call->sbuf == COLL_IN_PLACE ? call->rbuf : call->sbuf;
}

static int inter_build(coll_call_t *call)
{
    const red_blocks_t *b = begin(call);
    if (!b)
        return MPI_SUCCESS;
    comm_t *c = call->comm;
    size_t all = 0;
    for (int i = 0; i < c->size; i++)
        all += b->cnt[i];
    coll_trace_note("inter", "-", all * (size_t)call->dt->size);
    red_inter_reduce_scatter(call->s, c, call->sbuf, call->rbuf, b->cnt, call->dt, call->op);
    return MPI_SUCCESS;
}

/* the whole vector, in elements */
static size_t total_of(const coll_call_t *call)
{
    int n = call->comm->size;
    if (call->kind != COMM_OP_REDUCE_SCATTER)
        return (size_t)n * call->count;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += (size_t)call->rcounts[i];
    return total;
}

static int none_takes(coll_call_t *call)
{
    return total_of(call) == 0 ? MPI_SUCCESS : COLL_DECLINED;
}
static int none_build(coll_call_t *call)
{
    if (begin(call))
        coll_trace_note("none", "-", 0);
    return MPI_SUCCESS;
}

/* Sites and hosts: the whole vector reduced at each host's leader (site_allreduce or
 * red_allreduce_hier without the broadcast), which hands each member of its host its block. */
static int up_and_out(coll_call_t *call, const coll_sites_t *S, const coll_hier_t *h)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    dtype_t *dt = call->dt;
    const red_blocks_t *b = begin(call);
    if (!b)
        return MPI_SUCCESS;
    int n = c->size, me = c->rank;
    size_t total = b->displ[n];
    const void *in = in_of(call);
    if (S)
        coll_trace_note("sites", "-", total * (size_t)dt->size);
    else
        coll_trace_note("hier",
                        coll_algo_name(COMM_OP_ALLREDUCE,
                                       red_allreduce_choice(h->nhosts, total, dt, call->op)),
                        total * (size_t)dt->size);
    int leader = h->node.rank == 0;
    void *all = NULL;
    if (leader && !(all = red_temp(s, total, dt)))
        return MPI_SUCCESS; /* out of memory: recorded on s */
    int rc = S ? site_allreduce(s, c, S, in, all, total, dt, call->op, 0)
               : red_allreduce_hier(s, c, h, in, all, total, dt, call->op, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    icoll_sched_fence(s);
    if (!leader) {
        red_recv(s, &h->node, 0, call->rbuf, 0, b->cnt[me], dt);
        return MPI_SUCCESS;
    }
    for (int j = 1; j < h->node.size; j++) {
        int r = coll_team_peer(&h->node, j);
        red_send(s, &h->node, j, all, b->displ[r], b->cnt[r], dt);
    }
    red_copy(s, all, b->displ[me], call->rbuf, 0, b->cnt[me], dt);
    return MPI_SUCCESS;
}

/* the sites' phases need c's host hierarchy too */
static int sites_takes(coll_call_t *call)
{
    return red_sites(call->comm, call->op) && (call->found = coll_hier(call->comm))
               ? MPI_SUCCESS
               : COLL_DECLINED;
}
static int sites_build(coll_call_t *call)
{
    return up_and_out(call, red_sites(call->comm, call->op), call->found);
}

static int hier_takes(coll_call_t *call)
{
    return (call->found = red_hier(call->comm, call->op)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int hier_build(coll_call_t *call)
{
    return up_and_out(call, NULL, call->found);
}

static int p2p_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    dtype_t *dt = call->dt;
    op_t *op = call->op;
    const red_blocks_t *b = begin(call);
    if (!b)
        return MPI_SUCCESS;
    int n = c->size;
    size_t total = b->displ[n];
    const void *in = in_of(call);
    coll_team_t t = coll_team_all(c);
    /* the kind only names the table: reduce_scatter and _block share it */
    coll_measure_t m = { .n = n, .size = (size_t)dt->size * total, .count = total,
                         .commutative = 1 };
    int alg = coll_pick_p2p(COMM_OP_REDUCE_SCATTER, &m);
    int halving = alg == COLL_RS_RECURSIVE_HALVING && op->commute;
    coll_trace_note("p2p",
                    coll_algo_name(COMM_OP_REDUCE_SCATTER,
                                   halving ? COLL_RS_RECURSIVE_HALVING : COLL_RS_PAIRWISE),
                    total * (size_t)dt->size);
    if (n == 1) {
        red_copy(s, in, 0, call->rbuf, 0, total, dt);
        return MPI_SUCCESS;
    }
    if (halving)
        red_rs_halving(s, &t, in, call->rbuf, b, dt, op);
    else
        red_rs_pairwise(s, &t, in, call->rbuf, b, dt, op);
    return MPI_SUCCESS;
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_reduce_scatter_family = {
    COMM_OP_REDUCE_SCATTER,
    { [COLL_INTER] = &inter, [COLL_NONE] = &none, [COLL_SITES] = &sites, [COLL_HIER] = &hier,
      [COLL_P2P] = &p2p },
};
