/*
 * Neighbourhood collectives (MPI-3.1 §7.6–7.7): every one is a single exchange in which this
 * process sends block k to its k-th destination and receives block l from its l-th source.
 * The builders only describe the blocks (p2p_data_t, so derived types travel packed); one
 * function, finish(), turns them into schedule entries.
 *
 * Neighbours, in the order of the standard:
 *   Cartesian    2 * ndims, for each dimension d the source then the destination of
 *                MPI_Cart_shift(d, 1): neighbour 2d is in the negative direction, 2d + 1 in
 *                the positive one; both lists are the same. MPI_PROC_NULL neighbours keep
 *                their block in the buffer layout, nothing is sent or received for them.
 *   graph        MPI_Graph_neighbors of this rank, as sources and as destinations.
 *   dist. graph  the sources and destinations of MPI_Dist_graph_neighbors (repeated edges
 *                and self-loops allowed).
 *
 * Which send matches which receive. All messages of the operation share the schedule's tag,
 * so between two processes they match in posting order; that order decides where a block
 * lands when one process is a neighbour several times:
 *   - graphs: the k-th edge to a process matches the k-th edge from it (MPI-3.1 §7.6: the
 *     equivalent code posts sends and receives in list order), so both sides post in list
 *     order;
 *   - Cartesian: the block sent in the negative direction of dimension d is received as the
 *     one from the positive direction (block s lands in block s ^ 1), also in a periodic
 *     dimension of extent 1 or 2 where both neighbours are the same process (MPI-3.1 errata in
 *     MPI-4.0 Annex B.1.1, mpi-forum/mpi-issues#153; MPI-4.1 Example 8.10). Sends are posted
 *     in block order and receives with the two blocks of each dimension swapped: in such a
 *     dimension this process sends block 2d then 2d + 1 to its peer, which receives them into
 *     2d + 1 then 2d. Neighbours of different dimensions are distinct processes (they differ
 *     in a different coordinate) unless both are this process.
 * Messages to this process itself are local copies, paired exactly as the messages would
 * be: the j-th send to self in send order fills the j-th receive from self in posting order.
 *
 * Empty blocks are sent too (a header-only message): a program whose signatures do not match
 * then gets MPI_ERR_TRUNCATE where data does not fit, rather than a receive that never
 * completes.
 */
#include "coll/coll.h"
#include "coll/neighbor.h"
#include "coll/sites.h"
#include "coll/trace.h"
#include "core/topo_ops.h"

#include <stdlib.h>

/* Operations with at most 2 * SMALL blocks in all (e.g. SMALL neighbours on each side) build
 * without allocating (a blocking neighbourhood collective in a loop then allocates nothing:
 * schedules are reused). */
enum { SMALL = 16 };

/* One operation being built: the neighbourhood and the block descriptions. */
typedef struct nop {
    int indeg, outdeg;
    const int *srcs, *dsts;
    int cart;                 /* receives posted with the blocks of each dimension swapped */
    p2p_data_t *snd, *rcv;    /* snd[outdeg], rcv[indeg] */
    void *heap;               /* what did not fit below (freed by finish) */
    int cartn[2 * SMALL];
    p2p_data_t small[2 * SMALL];
} nop_t;

int coll_neighbor_degrees(const comm_t *c, int *indeg, int *outdeg)
{
    const topo_t *t = c->topo;
    if (!t)
        return -1;
    switch (t->kind) {
    case MPI_CART:
        *indeg = *outdeg = 2 * t->ndims;
        return 0;
    case MPI_GRAPH: {
        const int *first;
        topo_graph_neighbors(t, c->rank, &first, indeg);
        *outdeg = *indeg;
        return 0;
    }
    case MPI_DIST_GRAPH:
        *indeg = t->indegree;
        *outdeg = t->outdegree;
        return 0;
    default:
        return -1;
    }
}

/* The neighbour lists of c and room for the blocks. */
static int start(comm_t *c, nop_t *op)
{
    const topo_t *t = c->topo;
    op->heap = NULL;
    op->cart = 0;
    if (!t)
        return MPI_ERR_TOPOLOGY;
    switch (t->kind) {
    case MPI_CART:
        op->indeg = op->outdeg = 2 * t->ndims;
        op->cart = 1;
        break;
    case MPI_GRAPH:
        topo_graph_neighbors(t, c->rank, &op->srcs, &op->indeg);
        op->dsts = op->srcs;
        op->outdeg = op->indeg;
        break;
    case MPI_DIST_GRAPH:
        op->indeg = t->indegree;
        op->outdeg = t->outdegree;
        op->srcs = t->sources;
        op->dsts = t->destinations;
        break;
    default:
        return MPI_ERR_TOPOLOGY;
    }
    size_t nblocks = (size_t)op->indeg + (size_t)op->outdeg;
    size_t ncart = op->cart ? (size_t)op->indeg : 0;
    if (nblocks <= 2 * SMALL && ncart <= 2 * SMALL) {
        op->snd = op->small;
    } else {
        op->heap = malloc(nblocks * sizeof(p2p_data_t) + ncart * sizeof(int));
        if (!op->heap)
            return MPI_ERR_NO_MEM;
        op->snd = op->heap;
    }
    op->rcv = op->snd + op->outdeg;
    if (op->cart) {
        int *n = op->heap ? (int *)(op->snd + nblocks) : op->cartn;
        for (int d = 0; d < t->ndims; d++)
            topo_cart_shift(t, d, 1, &n[2 * d], &n[2 * d + 1]);
        op->srcs = op->dsts = n;
    }
    return MPI_SUCCESS;
}

/* The receive block posted i-th. */
static int posted(const nop_t *op, int i)
{
    return op->cart ? i ^ 1 : i;
}

/* ---- the levels (coll/level.h): sites, p2p; call->prepared is the nop_t of the blocks ---- */

/* The local copies (edges to self) come last: a step runs once everything before it has
 * completed, and a failing one (truncation) ends the schedule, so putting them first could
 * keep this process's sends from ever starting while its peers wait for them. Frees the
 * building state. */
static int copies_to_self(icoll_sched_t *s, comm_t *c, nop_t *op)
{
    int me = c->rank;
    for (int k = 0, i = 0; k < op->outdeg; k++) {
        if (op->dsts[k] != me)
            continue;
        while (i < op->indeg && op->srcs[posted(op, i)] != me)
            i++;
        if (i == op->indeg)
            break; /* more edges to self than from self: an erroneous topology */
        icoll_sched_copy_data(s, &op->snd[k], &op->rcv[posted(op, i++)]);
    }
    free(op->heap);
    return MPI_SUCCESS; /* errors recorded on s are reported when it runs */
}

static int sites_takes(coll_call_t *call)
{
    return (call->found = coll_use_sites(call->comm)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int sites_build(coll_call_t *call)
{
    nop_t *op = call->prepared;
    coll_trace_note("sites", "-", 0);
    int rc = site_neighbor(call->s, call->comm, call->found, op->indeg, op->srcs, op->rcv,
                           op->outdeg, op->dsts, op->snd, op->cart);
    if (rc != MPI_SUCCESS) {
        free(op->heap);
        return rc;
    }
    return copies_to_self(call->s, call->comm, op);
}

/* every receive and send posted at once */
static int p2p_build(coll_call_t *call)
{
    icoll_sched_t *s = call->s;
    comm_t *c = call->comm;
    nop_t *op = call->prepared;
    int me = c->rank;
    coll_trace_note("p2p", "exchange", 0);
    for (int i = 0; i < op->indeg; i++) {
        int l = posted(op, i), p = op->srcs[l];
        if (p != MPI_PROC_NULL && p != me)
            icoll_sched_recv_data(s, c, p, &op->rcv[l]);
    }
    for (int k = 0; k < op->outdeg; k++) {
        int p = op->dsts[k];
        if (p != MPI_PROC_NULL && p != me)
            icoll_sched_send_data(s, c, p, &op->snd[k]);
    }
    return copies_to_self(s, c, op);
}

static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_neighbor_family = {
    COMM_OP_NEIGHBOR_ALLGATHER,
    { [COLL_SITES] = &sites, [COLL_P2P] = &p2p },
};

/* Appends the exchange of op's blocks (snd[k] to dsts[k], rcv[l] from srcs[l]) through the
 * levels and frees the building state. */
static int finish(icoll_sched_t *s, comm_t *c, comm_op_kind_t kind, nop_t *op)
{
    coll_call_t call = { .kind = kind, .stream = icoll_sched_stream(s), .comm = c, .s = s,
                         .prepared = op };
    return coll_start(&coll_neighbor_family, &call);
}

/* element disp (in extents of dt, possibly negative) of an array at buf */
static const void *elem(const void *buf, ptrdiff_t disp, const dtype_t *dt)
{
    return (const char *)buf + disp * (ptrdiff_t)(dt->ub - dt->lb);
}

/* start() for the collectives with one type per side, which the schedule holds. */
static int start2(icoll_sched_t *s, comm_t *c, nop_t *op, dtype_t *stype, dtype_t *rtype)
{
    int rc = start(c, op);
    if (rc == MPI_SUCCESS) {
        icoll_sched_hold_dtype(s, stype);
        icoll_sched_hold_dtype(s, rtype);
    }
    return rc;
}

int coll_neighbor_allgather(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                            dtype_t *stype, void *rbuf, size_t rcount, dtype_t *rtype)
{
    nop_t op;
    int rc = start2(s, c, &op, stype, rtype);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_data_t one = coll_data(sbuf, scount, stype);
    for (int k = 0; k < op.outdeg; k++)
        op.snd[k] = one;
    for (int l = 0; l < op.indeg; l++)
        op.rcv[l] = coll_data(elem(rbuf, (ptrdiff_t)l * (ptrdiff_t)rcount, rtype), rcount, rtype);
    return finish(s, c, COMM_OP_NEIGHBOR_ALLGATHER, &op);
}

int coll_neighbor_allgatherv(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                             dtype_t *stype, void *rbuf, const int *rcounts, const int *displs,
                             dtype_t *rtype)
{
    nop_t op;
    int rc = start2(s, c, &op, stype, rtype);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_data_t one = coll_data(sbuf, scount, stype);
    for (int k = 0; k < op.outdeg; k++)
        op.snd[k] = one;
    for (int l = 0; l < op.indeg; l++)
        op.rcv[l] = coll_data(elem(rbuf, displs[l], rtype), (size_t)rcounts[l], rtype);
    return finish(s, c, COMM_OP_NEIGHBOR_ALLGATHERV, &op);
}

int coll_neighbor_alltoall(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                           dtype_t *stype, void *rbuf, size_t rcount, dtype_t *rtype)
{
    nop_t op;
    int rc = start2(s, c, &op, stype, rtype);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < op.outdeg; k++)
        op.snd[k] = coll_data(elem(sbuf, (ptrdiff_t)k * (ptrdiff_t)scount, stype), scount, stype);
    for (int l = 0; l < op.indeg; l++)
        op.rcv[l] = coll_data(elem(rbuf, (ptrdiff_t)l * (ptrdiff_t)rcount, rtype), rcount, rtype);
    return finish(s, c, COMM_OP_NEIGHBOR_ALLTOALL, &op);
}

int coll_neighbor_alltoallv(icoll_sched_t *s, comm_t *c, const void *sbuf, const int *scounts,
                            const int *sdispls, dtype_t *stype, void *rbuf, const int *rcounts,
                            const int *rdispls, dtype_t *rtype)
{
    nop_t op;
    int rc = start2(s, c, &op, stype, rtype);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < op.outdeg; k++)
        op.snd[k] = coll_data(elem(sbuf, sdispls[k], stype), (size_t)scounts[k], stype);
    for (int l = 0; l < op.indeg; l++)
        op.rcv[l] = coll_data(elem(rbuf, rdispls[l], rtype), (size_t)rcounts[l], rtype);
    return finish(s, c, COMM_OP_NEIGHBOR_ALLTOALLV, &op);
}

/* count elements of dt at byte displacement disp from buf; no data when count is 0 (dt may
 * then be NULL: MPI_Neighbor_alltoallw does not look at the type of an empty block). *held is
 * the type held last. */
static p2p_data_t wblock(icoll_sched_t *s, const void *buf, MPI_Aint disp, int count,
                         dtype_t *dt, dtype_t **held)
{
    if (count == 0 || !dt)
        return (p2p_data_t){ .buf = (void *)(uintptr_t)buf };
    if (dt != *held) /* one hold per run of equal types */
        icoll_sched_hold_dtype(s, *held = dt);
    return coll_data((const char *)buf + disp, (size_t)count, dt);
}

int coll_neighbor_alltoallw(icoll_sched_t *s, comm_t *c, const void *sbuf, const int *scounts,
                            const MPI_Aint *sdispls, dtype_t *const *stypes, void *rbuf,
                            const int *rcounts, const MPI_Aint *rdispls,
                            dtype_t *const *rtypes)
{
    nop_t op;
    int rc = start(c, &op);
    if (rc != MPI_SUCCESS)
        return rc;
    dtype_t *held = NULL;
    for (int k = 0; k < op.outdeg; k++)
        op.snd[k] = wblock(s, sbuf, sdispls[k], scounts[k], stypes[k], &held);
    for (int l = 0; l < op.indeg; l++)
        op.rcv[l] = wblock(s, rbuf, rdispls[l], rcounts[l], rtypes[l], &held);
    return finish(s, c, COMM_OP_NEIGHBOR_ALLTOALLW, &op);
}
