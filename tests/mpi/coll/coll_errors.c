/* Error paths of the collectives, with MPI_ERRORS_RETURN: invalid roots (MPI_ERR_ROOT),
 * negative counts (MPI_ERR_COUNT), MPI_DATATYPE_NULL and uncommitted types (MPI_ERR_TYPE),
 * MPI_OP_NULL and ops not defined for the type, MPI_REPLACE / MPI_NO_OP (MPI_ERR_OP),
 * MPI_COMM_NULL, freed communicators and Scan/Exscan on inter-communicators (MPI_ERR_COMM),
 * MPI_IN_PLACE where the standard does not allow it (MPI_ERR_BUFFER or MPI_ERR_ARG: the
 * standard names no class), neighbourhood collectives without a topology (MPI_ERR_TOPOLOGY),
 * a NULL request pointer (MPI_ERR_ARG); blocking and I-forms; a user error handler is
 * called; the communicator still works afterwards. Every process makes the same erroneous
 * call, so no process starts communicating; arguments significant only at the root are
 * tested on MPI_COMM_SELF. Checks MPICH does not make (it crashes, asserts, or returns
 * another class) are under #ifdef METAMPI.
 *
 *   coll_errors
 */
#include "coll_check.h"

static int wrank, wsize;
static int a[64], b[64];
static int ones[8] = {1, 1, 1, 1, 1, 1, 1, 1}, zeros[8], negs[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
static MPI_Datatype ints[8] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT,
                               MPI_INT, MPI_INT, MPI_INT, MPI_INT};
static MPI_Datatype nulls[8] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL,
                                MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL,
                                MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
static MPI_Aint azeros[8];

#define E(call, klass) CHECK_ERR(call, klass)
/* Checks MPICH 4.0.2 does not make (it returns success or crashes): metampi only. */
#ifdef METAMPI
#define E_M(call, klass) CHECK_ERR(call, klass)
#else
#define E_M(call, klass)                                                                       \
    do {                                                                                       \
        if (0)                                                                                 \
            (void)(call); /* not made: its arguments still count as used */                    \
    } while (0)
#endif
/* The standard names no class for MPI_IN_PLACE where it is not allowed. */
#define E_INPLACE(call)                                                                        \
    do {                                                                                       \
        int c_ = cls(call);                                                                    \
        CHECK(c_ == MPI_ERR_BUFFER || c_ == MPI_ERR_ARG);                                      \
    } while (0)

/* ---- roots ---------------------------------------------------------------------------------- */

static void t_root(MPI_Comm c)
{
    MPI_Request rq;
    int n;
    MPI_Comm_size(c, &n);
    int bad[4] = {-5, n, MPI_ROOT, MPI_PROC_NULL};
    for (int i = 0; i < 4; i++) {
        int r = bad[i];
        E(MPI_Bcast(a, 1, MPI_INT, r, c), MPI_ERR_ROOT);
        E(MPI_Ibcast(a, 1, MPI_INT, r, c, &rq), MPI_ERR_ROOT);
        E(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, r, c), MPI_ERR_ROOT);
        E(MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, r, c, &rq), MPI_ERR_ROOT);
        E(MPI_Gatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, r, c), MPI_ERR_ROOT);
        E(MPI_Igatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, r, c, &rq), MPI_ERR_ROOT);
        E(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, r, c), MPI_ERR_ROOT);
        E(MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_INT, r, c, &rq), MPI_ERR_ROOT);
        E(MPI_Scatterv(a, ones, zeros, MPI_INT, b, 1, MPI_INT, r, c), MPI_ERR_ROOT);
        E(MPI_Iscatterv(a, ones, zeros, MPI_INT, b, 1, MPI_INT, r, c, &rq), MPI_ERR_ROOT);
        E(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, r, c), MPI_ERR_ROOT);
        E(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, r, c, &rq), MPI_ERR_ROOT);
    }
}

/* ---- counts --------------------------------------------------------------------------------- */

static void t_count(MPI_Comm c)
{
    MPI_Request rq;
    E(MPI_Bcast(a, -1, MPI_INT, 0, c), MPI_ERR_COUNT);
    E(MPI_Ibcast(a, -1, MPI_INT, 0, c, &rq), MPI_ERR_COUNT);
    E(MPI_Gather(a, -1, MPI_INT, b, 1, MPI_INT, 0, c), MPI_ERR_COUNT);
    E(MPI_Igather(a, -1, MPI_INT, b, 1, MPI_INT, 0, c, &rq), MPI_ERR_COUNT);
    E(MPI_Scatter(a, 1, MPI_INT, b, -1, MPI_INT, 0, c), MPI_ERR_COUNT);
    E(MPI_Iscatter(a, 1, MPI_INT, b, -1, MPI_INT, 0, c, &rq), MPI_ERR_COUNT);
    E(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, c), MPI_ERR_COUNT);
    E(MPI_Iallgather(a, -1, MPI_INT, b, 1, MPI_INT, c, &rq), MPI_ERR_COUNT);
    E(MPI_Allgatherv(a, -1, MPI_INT, b, ones, zeros, MPI_INT, c), MPI_ERR_COUNT);
    E(MPI_Allgatherv(a, 1, MPI_INT, b, negs, zeros, MPI_INT, c), MPI_ERR_COUNT);
    E(MPI_Iallgatherv(a, 1, MPI_INT, b, negs, zeros, MPI_INT, c, &rq), MPI_ERR_COUNT);
    E(MPI_Alltoall(a, -1, MPI_INT, b, 1, MPI_INT, c), MPI_ERR_COUNT);
    E(MPI_Ialltoall(a, 1, MPI_INT, b, -1, MPI_INT, c, &rq), MPI_ERR_COUNT);
    E(MPI_Alltoallv(a, negs, zeros, MPI_INT, b, ones, zeros, MPI_INT, c), MPI_ERR_COUNT);
    E(MPI_Ialltoallv(a, ones, zeros, MPI_INT, b, negs, zeros, MPI_INT, c, &rq), MPI_ERR_COUNT);
    E(MPI_Alltoallw(a, negs, zeros, ints, b, ones, zeros, ints, c), MPI_ERR_COUNT);
    E(MPI_Ialltoallw(a, ones, zeros, ints, b, negs, zeros, ints, c, &rq), MPI_ERR_COUNT);
    E_M(MPI_Reduce(a, b, -1, MPI_INT, MPI_SUM, 0, c), MPI_ERR_COUNT);
    E_M(MPI_Ireduce(a, b, -1, MPI_INT, MPI_SUM, 0, c, &rq), MPI_ERR_COUNT);
    E_M(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, c), MPI_ERR_COUNT);
    E_M(MPI_Iallreduce(a, b, -1, MPI_INT, MPI_SUM, c, &rq), MPI_ERR_COUNT);
    E_M(MPI_Reduce_scatter(a, b, negs, MPI_INT, MPI_SUM, c), MPI_ERR_COUNT);
    E_M(MPI_Ireduce_scatter(a, b, negs, MPI_INT, MPI_SUM, c, &rq), MPI_ERR_COUNT);
    E_M(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, c), MPI_ERR_COUNT);
    E_M(MPI_Ireduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, c, &rq), MPI_ERR_COUNT);
    E_M(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, c), MPI_ERR_COUNT);
    E_M(MPI_Iscan(a, b, -1, MPI_INT, MPI_SUM, c, &rq), MPI_ERR_COUNT);
    E_M(MPI_Exscan(a, b, -1, MPI_INT, MPI_SUM, c), MPI_ERR_COUNT);
    E_M(MPI_Iexscan(a, b, -1, MPI_INT, MPI_SUM, c, &rq), MPI_ERR_COUNT);
    /* arguments significant only at the root, on MPI_COMM_SELF */
    MPI_Comm s = MPI_COMM_SELF;
    E(MPI_Gather(a, 1, MPI_INT, b, -1, MPI_INT, 0, s), MPI_ERR_COUNT);
    E(MPI_Gatherv(a, 1, MPI_INT, b, negs, zeros, MPI_INT, 0, s), MPI_ERR_COUNT);
    E(MPI_Igatherv(a, 1, MPI_INT, b, negs, zeros, MPI_INT, 0, s, &rq), MPI_ERR_COUNT);
    E(MPI_Scatter(a, -1, MPI_INT, b, 1, MPI_INT, 0, s), MPI_ERR_COUNT);
    E(MPI_Scatterv(a, negs, zeros, MPI_INT, b, 1, MPI_INT, 0, s), MPI_ERR_COUNT);
    E(MPI_Iscatterv(a, negs, zeros, MPI_INT, b, 1, MPI_INT, 0, s, &rq), MPI_ERR_COUNT);
}

/* ---- datatypes ------------------------------------------------------------------------------ */

static void t_type(MPI_Comm c)
{
    MPI_Request rq;
    MPI_Datatype nt = MPI_DATATYPE_NULL, unc;
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &unc), MPI_SUCCESS); /* never committed */
    E(MPI_Bcast(a, 1, nt, 0, c), MPI_ERR_TYPE);
    E(MPI_Ibcast(a, 1, nt, 0, c, &rq), MPI_ERR_TYPE);
    E(MPI_Bcast(a, 1, unc, 0, c), MPI_ERR_TYPE);
    E(MPI_Ibcast(a, 1, unc, 0, c, &rq), MPI_ERR_TYPE);
    E(MPI_Gather(a, 1, nt, b, 1, MPI_INT, 0, c), MPI_ERR_TYPE);
    E(MPI_Igather(a, 1, unc, b, 2, MPI_INT, 0, c, &rq), MPI_ERR_TYPE);
    E(MPI_Scatter(a, 1, MPI_INT, b, 1, nt, 0, c), MPI_ERR_TYPE);
    E(MPI_Allgather(a, 1, MPI_INT, b, 1, nt, c), MPI_ERR_TYPE);
    E(MPI_Iallgather(a, 1, unc, b, 2, MPI_INT, c, &rq), MPI_ERR_TYPE);
    E(MPI_Allgatherv(a, 1, nt, b, ones, zeros, MPI_INT, c), MPI_ERR_TYPE);
    E(MPI_Alltoall(a, 1, nt, b, 1, MPI_INT, c), MPI_ERR_TYPE);
    E(MPI_Ialltoall(a, 1, MPI_INT, b, 1, nt, c, &rq), MPI_ERR_TYPE);
    E(MPI_Alltoallv(a, ones, zeros, MPI_INT, b, ones, zeros, nt, c), MPI_ERR_TYPE);
    E(MPI_Alltoallw(a, ones, zeros, nulls, b, ones, zeros, ints, c), MPI_ERR_TYPE);
    E(MPI_Ialltoallw(a, ones, zeros, ints, b, ones, zeros, nulls, c, &rq), MPI_ERR_TYPE);
    /* MPICH 4.0.2 reports MPI_ERR_OP for a null or uncommitted type in a reduction */
    E_M(MPI_Reduce(a, b, 1, nt, MPI_SUM, 0, c), MPI_ERR_TYPE);
    E_M(MPI_Allreduce(a, b, 1, nt, MPI_SUM, c), MPI_ERR_TYPE);
    E_M(MPI_Iallreduce(a, b, 1, nt, MPI_SUM, c, &rq), MPI_ERR_TYPE);
    E_M(MPI_Reduce_scatter(a, b, ones, nt, MPI_SUM, c), MPI_ERR_TYPE);
    E_M(MPI_Reduce_scatter_block(a, b, 1, nt, MPI_SUM, c), MPI_ERR_TYPE);
    E_M(MPI_Scan(a, b, 1, nt, MPI_SUM, c), MPI_ERR_TYPE);
    E_M(MPI_Exscan(a, b, 1, nt, MPI_SUM, c), MPI_ERR_TYPE);
    E_M(MPI_Allreduce(a, b, 1, unc, MPI_SUM, c), MPI_ERR_TYPE);
    E_M(MPI_Iscan(a, b, 1, unc, MPI_SUM, c, &rq), MPI_ERR_TYPE);
    MPI_Type_free(&unc);
}

/* ---- ops ------------------------------------------------------------------------------------ */

static void nop_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void t_op(MPI_Comm c)
{
    MPI_Request rq;
    MPI_Op on = MPI_OP_NULL;
    double d[4] = {0};
    E(MPI_Reduce(a, b, 1, MPI_INT, on, 0, c), MPI_ERR_OP);
    E(MPI_Ireduce(a, b, 1, MPI_INT, on, 0, c, &rq), MPI_ERR_OP);
    E(MPI_Allreduce(a, b, 1, MPI_INT, on, c), MPI_ERR_OP);
    E(MPI_Iallreduce(a, b, 1, MPI_INT, on, c, &rq), MPI_ERR_OP);
    E(MPI_Reduce_scatter(a, b, ones, MPI_INT, on, c), MPI_ERR_OP);
    E(MPI_Ireduce_scatter(a, b, ones, MPI_INT, on, c, &rq), MPI_ERR_OP);
    E(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, on, c), MPI_ERR_OP);
    E(MPI_Ireduce_scatter_block(a, b, 1, MPI_INT, on, c, &rq), MPI_ERR_OP);
    E(MPI_Scan(a, b, 1, MPI_INT, on, c), MPI_ERR_OP);
    E(MPI_Iscan(a, b, 1, MPI_INT, on, c, &rq), MPI_ERR_OP);
    E(MPI_Exscan(a, b, 1, MPI_INT, on, c), MPI_ERR_OP);
    E(MPI_Iexscan(a, b, 1, MPI_INT, on, c, &rq), MPI_ERR_OP);
    /* ops not defined on the type, and the one-sided-only ops */
    E(MPI_Allreduce(d, d + 2, 1, MPI_DOUBLE, MPI_BAND, c), MPI_ERR_OP);
    E(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MAXLOC, c), MPI_ERR_OP);
    E(MPI_Reduce(a, b, 1, MPI_2INT, MPI_SUM, 0, c), MPI_ERR_OP);
    E(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_REPLACE, c, &rq), MPI_ERR_OP);
    E(MPI_Allreduce(a, b, 1, MPI_INT, MPI_NO_OP, c), MPI_ERR_OP);
    E_M(MPI_Scan(d, d + 2, 1, MPI_DOUBLE, MPI_LXOR, c), MPI_ERR_OP); /* MPICH accepts it */
#ifdef METAMPI /* a freed user op handle: not checked by MPICH */
    MPI_Op u, saved;
    CHECK_RC(MPI_Op_create(nop_fn, 1, &u), MPI_SUCCESS);
    saved = u;
    CHECK_RC(MPI_Op_free(&u), MPI_SUCCESS);
    E(MPI_Allreduce(a, b, 1, MPI_INT, saved, c), MPI_ERR_OP);
#else
    (void)nop_fn;
#endif
}

/* ---- communicators -------------------------------------------------------------------------- */

static void t_comm(void)
{
    MPI_Request rq;
    MPI_Comm cn = MPI_COMM_NULL;
    E(MPI_Barrier(cn), MPI_ERR_COMM);
    E(MPI_Ibarrier(cn, &rq), MPI_ERR_COMM);
    E(MPI_Bcast(a, 1, MPI_INT, 0, cn), MPI_ERR_COMM);
    E(MPI_Ibcast(a, 1, MPI_INT, 0, cn, &rq), MPI_ERR_COMM);
    E(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, cn), MPI_ERR_COMM);
    E(MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, 0, cn, &rq), MPI_ERR_COMM);
    E(MPI_Gatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, 0, cn), MPI_ERR_COMM);
    E(MPI_Igatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, 0, cn, &rq), MPI_ERR_COMM);
    E(MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, 0, cn), MPI_ERR_COMM);
    E(MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_INT, 0, cn, &rq), MPI_ERR_COMM);
    E(MPI_Scatterv(a, ones, zeros, MPI_INT, b, 1, MPI_INT, 0, cn), MPI_ERR_COMM);
    E(MPI_Iscatterv(a, ones, zeros, MPI_INT, b, 1, MPI_INT, 0, cn, &rq), MPI_ERR_COMM);
    E(MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, cn), MPI_ERR_COMM);
    E(MPI_Iallgather(a, 1, MPI_INT, b, 1, MPI_INT, cn, &rq), MPI_ERR_COMM);
    E(MPI_Allgatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, cn), MPI_ERR_COMM);
    E(MPI_Iallgatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, cn, &rq), MPI_ERR_COMM);
    E(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, cn), MPI_ERR_COMM);
    E(MPI_Ialltoall(a, 1, MPI_INT, b, 1, MPI_INT, cn, &rq), MPI_ERR_COMM);
    E(MPI_Alltoallv(a, ones, zeros, MPI_INT, b, ones, zeros, MPI_INT, cn), MPI_ERR_COMM);
    E(MPI_Ialltoallv(a, ones, zeros, MPI_INT, b, ones, zeros, MPI_INT, cn, &rq), MPI_ERR_COMM);
    E(MPI_Alltoallw(a, ones, zeros, ints, b, ones, zeros, ints, cn), MPI_ERR_COMM);
    E(MPI_Ialltoallw(a, ones, zeros, ints, b, ones, zeros, ints, cn, &rq), MPI_ERR_COMM);
    E(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, 0, cn), MPI_ERR_COMM);
    E(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, 0, cn, &rq), MPI_ERR_COMM);
    E(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, cn), MPI_ERR_COMM);
    E(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, cn, &rq), MPI_ERR_COMM);
    E(MPI_Reduce_scatter(a, b, ones, MPI_INT, MPI_SUM, cn), MPI_ERR_COMM);
    E(MPI_Ireduce_scatter(a, b, ones, MPI_INT, MPI_SUM, cn, &rq), MPI_ERR_COMM);
    E(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, cn), MPI_ERR_COMM);
    E(MPI_Ireduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, cn, &rq), MPI_ERR_COMM);
    E(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, cn), MPI_ERR_COMM);
    E(MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, cn, &rq), MPI_ERR_COMM);
    E(MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, cn), MPI_ERR_COMM);
    E(MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, cn, &rq), MPI_ERR_COMM);
    E(MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, cn), MPI_ERR_COMM);
    E(MPI_Ineighbor_allgatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, cn, &rq), MPI_ERR_COMM);
    E(MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, cn), MPI_ERR_COMM);
    E(MPI_Ineighbor_alltoallv(a, ones, zeros, MPI_INT, b, ones, zeros, MPI_INT, cn, &rq),
      MPI_ERR_COMM);
    E(MPI_Neighbor_alltoallw(a, ones, azeros, ints, b, ones, azeros, ints, cn), MPI_ERR_COMM);
    /* a communicator freed (its handle kept): nothing was created since */
    MPI_Comm d, saved;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
    saved = d;
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    E(MPI_Bcast(a, 1, MPI_INT, 0, saved), MPI_ERR_COMM);
    E(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, saved, &rq), MPI_ERR_COMM);
}

/* Scan and Exscan are not defined on inter-communicators, nor MPI_IN_PLACE, nor topologies. */
static void t_inter(void)
{
    if (wsize < 2)
        return;
    MPI_Comm local, ic;
    MPI_Request rq;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &local), MPI_SUCCESS);
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - wrank % 2, 5, &ic), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN), MPI_SUCCESS);
    E(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    E(MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, ic, &rq), MPI_ERR_COMM);
    E(MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    E(MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, ic, &rq), MPI_ERR_COMM);
    E_INPLACE(MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, ic));
    int rsize;
    MPI_Comm_remote_size(ic, &rsize);
    E(MPI_Bcast(a, 1, MPI_INT, rsize, ic), MPI_ERR_ROOT);
    E(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, -7, ic, &rq), MPI_ERR_ROOT);
#ifdef METAMPI /* MPICH 4.0.2 accepts some (Allgather), crashes in others, asserts in the last */
    E_INPLACE(MPI_Iallreduce(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, ic, &rq));
    E_INPLACE(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, ic));
    E_INPLACE(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, ic));
    E_INPLACE(MPI_Reduce_scatter_block(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM, ic));
    int cl = cls(MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, ic));
    CHECK(cl == MPI_ERR_TOPOLOGY || cl == MPI_ERR_COMM);
#endif
    /* still usable */
    int x = wrank, y = -1;
    CHECK_RC(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, ic), MPI_SUCCESS);
    int remote_max = wrank % 2 ? (wsize - 1) / 2 * 2 : wsize % 2 ? wsize - 2 : wsize - 1;
    CHECK(y == remote_max);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

/* ---- MPI_IN_PLACE where it is not allowed ------------------------------------------------- */

static void t_inplace(MPI_Comm c, MPI_Comm cart)
{
    MPI_Request rq;
    E_INPLACE(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, c));
    E_INPLACE(MPI_Iallreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, c, &rq));
    E_INPLACE(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, c));
#ifdef METAMPI /* MPICH 4.0.2 crashes: the neighbourhood collectives have no in-place form */
    E_INPLACE(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, cart));
    E_INPLACE(MPI_Ineighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, cart, &rq));
    E_INPLACE(MPI_Neighbor_alltoallv(MPI_IN_PLACE, ones, zeros, MPI_INT, b, ones, zeros,
                                     MPI_INT, cart));
#else
    (void)cart;
#endif
}

/* ---- topology, requests --------------------------------------------------------------------- */

static void t_topology(MPI_Comm c, MPI_Comm cart)
{
    MPI_Request rq;
    E(MPI_Neighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, c), MPI_ERR_TOPOLOGY);
    E(MPI_Ineighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, c, &rq), MPI_ERR_TOPOLOGY);
    E_M(MPI_Neighbor_allgatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, c), MPI_ERR_TOPOLOGY);
    E_M(MPI_Ineighbor_allgatherv(a, 1, MPI_INT, b, ones, zeros, MPI_INT, c, &rq),
      MPI_ERR_TOPOLOGY);
    E(MPI_Neighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, c), MPI_ERR_TOPOLOGY);
    E(MPI_Ineighbor_alltoall(a, 1, MPI_INT, b, 1, MPI_INT, c, &rq), MPI_ERR_TOPOLOGY);
    /* MPICH 4.0.2 reports MPI_ERR_COUNT for the v and w forms */
    E_M(MPI_Neighbor_alltoallv(a, ones, zeros, MPI_INT, b, ones, zeros, MPI_INT, c),
      MPI_ERR_TOPOLOGY);
    E_M(MPI_Ineighbor_alltoallv(a, ones, zeros, MPI_INT, b, ones, zeros, MPI_INT, c, &rq),
      MPI_ERR_TOPOLOGY);
    E_M(MPI_Neighbor_alltoallw(a, ones, azeros, ints, b, ones, azeros, ints, c),
      MPI_ERR_TOPOLOGY);
    E_M(MPI_Ineighbor_alltoallw(a, ones, azeros, ints, b, ones, azeros, ints, c, &rq),
      MPI_ERR_TOPOLOGY);
    /* bad arguments on a communicator that has one */
    E(MPI_Neighbor_alltoall(a, -1, MPI_INT, b, 1, MPI_INT, cart), MPI_ERR_COUNT);
    E(MPI_Neighbor_allgather(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, cart), MPI_ERR_TYPE);
    E(MPI_Ineighbor_alltoallv(a, ones, zeros, MPI_INT, b, negs, zeros, MPI_INT, cart, &rq),
      MPI_ERR_COUNT);
    E(MPI_Neighbor_alltoallw(a, ones, azeros, nulls, b, ones, azeros, ints, cart),
      MPI_ERR_TYPE);
}

static void t_request(MPI_Comm c, MPI_Comm cart)
{
    E(MPI_Ibarrier(c, NULL), MPI_ERR_ARG);
    E(MPI_Ibcast(a, 1, MPI_INT, 0, c, NULL), MPI_ERR_ARG);
    E(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, c, NULL), MPI_ERR_ARG);
    E(MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, 0, c, NULL), MPI_ERR_ARG);
    E(MPI_Ialltoallv(a, ones, zeros, MPI_INT, b, ones, zeros, MPI_INT, c, NULL), MPI_ERR_ARG);
    E(MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, c, NULL), MPI_ERR_ARG);
    E(MPI_Ineighbor_allgather(a, 1, MPI_INT, b, 1, MPI_INT, cart, NULL), MPI_ERR_ARG);
}

/* ---- the error handler is called ------------------------------------------------------------ */

static int handler_calls, handler_class;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void t_handler(MPI_Comm c)
{
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_create_errhandler(count_errors, &eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(c, eh), MPI_SUCCESS);
    MPI_Request rq;
    int rc = MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, c);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_OP && cls(rc) == MPI_ERR_OP);
    rc = MPI_Ibcast(a, 1, MPI_INT, -4, c, &rq);
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_ROOT && cls(rc) == MPI_ERR_ROOT);
    CHECK_RC(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), MPI_SUCCESS);
    MPI_Errhandler_free(&eh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    CHECK(wsize <= 8);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    MPI_Comm c, cart;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN), MPI_SUCCESS);
    int dims[1] = {wsize}, periods[1] = {1};
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN), MPI_SUCCESS);
    t_root(c);
    t_count(c);
    t_type(c);
    t_op(c);
    t_comm();
    t_inter();
    t_inplace(c, cart);
    t_topology(c, cart);
    t_request(c, cart);
    t_handler(c);
    /* the communicators still work */
    int x = wrank + 1, y = 0;
    CHECK_RC(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    CHECK(y == wsize * (wsize + 1) / 2);
    CHECK_RC(MPI_Barrier(c), MPI_SUCCESS);
    int nb[2] = {-1, -1};
    CHECK_RC(MPI_Neighbor_allgather(&wrank, 1, MPI_INT, nb, 1, MPI_INT, cart), MPI_SUCCESS);
    CHECK(nb[0] == (wrank + wsize - 1) % wsize && nb[1] == (wrank + 1) % wsize);
    MPI_Comm_free(&cart);
    MPI_Comm_free(&c);
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_errors: ok\n");
    return 0;
}
