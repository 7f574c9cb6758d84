/* Error classes of the data-movement collectives (MPI_ERRORS_RETURN on the communicators):
 * every argument checked, blocking and I-forms, and a type-signature mismatch detected as
 * truncation at the root. */
#include "common.h"

static int x[64], y[64 * 8], cnt[8], dsp[8];
static MPI_Datatype types[8];

static void intra(MPI_Comm comm)
{
    int me = rank_of(comm), n = size_of(comm), other = (me + 1) % n;
    MPI_Request req;
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    for (int i = 0; i < n; i++) {
        cnt[i] = 1;
        dsp[i] = i;
        types[i] = MPI_INT;
    }

    /* communicator */
    CHECK_RC(MPI_Bcast(x, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_RC(MPI_Ialltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_NULL, &req), MPI_ERR_COMM);
    /* counts */
    CHECK_RC(MPI_Bcast(x, -1, MPI_INT, 0, comm), MPI_ERR_COUNT);
    CHECK_RC(MPI_Allgather(x, -1, MPI_INT, y, 1, MPI_INT, comm), MPI_ERR_COUNT);
    CHECK_RC(MPI_Allgather(x, 1, MPI_INT, y, -2, MPI_INT, comm), MPI_ERR_COUNT);
    CHECK_RC(MPI_Gather(x, -1, MPI_INT, y, 1, MPI_INT, 0, comm), MPI_ERR_COUNT);
    CHECK_RC(MPI_Scatter(x, 1, MPI_INT, y, -1, MPI_INT, 0, comm), MPI_ERR_COUNT);
    CHECK_RC(MPI_Alltoall(x, -1, MPI_INT, y, 1, MPI_INT, comm), MPI_ERR_COUNT);
    cnt[n - 1] = -1;
    CHECK_RC(MPI_Allgatherv(x, 1, MPI_INT, y, cnt, dsp, MPI_INT, comm), MPI_ERR_COUNT);
    CHECK_RC(MPI_Alltoallv(x, cnt, dsp, MPI_INT, y, cnt, dsp, MPI_INT, comm), MPI_ERR_COUNT);
    CHECK_RC(MPI_Alltoallw(x, cnt, dsp, types, y, cnt, dsp, types, comm), MPI_ERR_COUNT);
    if (me == 0) {
        CHECK_RC(MPI_Gatherv(x, 1, MPI_INT, y, cnt, dsp, MPI_INT, 0, comm), MPI_ERR_COUNT);
        CHECK_RC(MPI_Scatterv(x, cnt, dsp, MPI_INT, y, 1, MPI_INT, 0, comm), MPI_ERR_COUNT);
    }
    cnt[n - 1] = 1;
    /* types */
    CHECK_RC(MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE);
    CHECK_RC(MPI_Ibcast(x, 1, uncommitted, 0, comm, &req), MPI_ERR_TYPE);
    CHECK_RC(MPI_Allgather(x, 1, MPI_INT, y, 1, MPI_DATATYPE_NULL, comm), MPI_ERR_TYPE);
    CHECK_RC(MPI_Alltoall(x, 1, uncommitted, y, 1, MPI_INT, comm), MPI_ERR_TYPE);
    CHECK_RC(MPI_Gather(x, 1, (MPI_Datatype)0x0c00fff0, y, 1, MPI_INT, 0, comm), MPI_ERR_TYPE);
    types[n - 1] = uncommitted;
    CHECK_RC(MPI_Alltoallw(x, cnt, dsp, types, y, cnt, dsp, types, comm),
             MPI_ERR_TYPE);
    types[n - 1] = MPI_INT;
    /* roots */
    CHECK_RC(MPI_Bcast(x, 1, MPI_INT, n, comm), MPI_ERR_ROOT);
    CHECK_RC(MPI_Bcast(x, 1, MPI_INT, MPI_ROOT, comm), MPI_ERR_ROOT);
    CHECK_RC(MPI_Igather(x, 1, MPI_INT, y, 1, MPI_INT, -1, comm, &req), MPI_ERR_ROOT);
    CHECK_RC(MPI_Scatterv(x, cnt, dsp, MPI_INT, y, 1, MPI_INT, MPI_PROC_NULL, comm),
             MPI_ERR_ROOT);
    /* buffers */
    CHECK_RC(MPI_Bcast(NULL, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Allgather(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Allgather(y, 1, MPI_INT, y, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Alltoall(y, 1, MPI_INT, y, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Alltoall(x, 1, MPI_INT, NULL, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    /* MPI_IN_PLACE where only the root may use it */
    CHECK_RC(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, other, comm),
             n > 1 ? MPI_ERR_BUFFER : MPI_SUCCESS);
    CHECK_RC(MPI_Scatter(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, other, comm),
             n > 1 ? MPI_ERR_BUFFER : MPI_SUCCESS);
    CHECK_RC(MPI_Gather(y, 1, MPI_INT, y, 1, MPI_INT, me, comm), MPI_ERR_BUFFER);
    /* arrays */
    CHECK_RC(MPI_Allgatherv(x, 1, MPI_INT, y, NULL, dsp, MPI_INT, comm), MPI_ERR_ARG);
    CHECK_RC(MPI_Allgatherv(x, 1, MPI_INT, y, cnt, NULL, MPI_INT, comm), MPI_ERR_ARG);
    CHECK_RC(MPI_Alltoallv(x, cnt, NULL, MPI_INT, y, cnt, dsp, MPI_INT, comm), MPI_ERR_ARG);
    CHECK_RC(MPI_Alltoallw(x, cnt, dsp, NULL, y, cnt, dsp, types, comm), MPI_ERR_ARG);
    CHECK_RC(MPI_Gatherv(x, 1, MPI_INT, y, NULL, dsp, MPI_INT, me, comm), MPI_ERR_ARG);
    CHECK_RC(MPI_Scatterv(x, cnt, NULL, MPI_INT, y, 1, MPI_INT, me, comm), MPI_ERR_ARG);
    /* request */
    CHECK_RC(MPI_Ibcast(x, 1, MPI_INT, 0, comm, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Iallgatherv(x, 1, MPI_INT, y, cnt, dsp, MPI_INT, comm, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Ialltoallw(x, cnt, dsp, types, y, cnt, dsp, types, comm, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Iscatter(x, 1, MPI_INT, y, 1, MPI_INT, 0, comm, NULL), MPI_ERR_ARG);

    /* insignificant arguments are not checked: receive arguments away from the root */
    if (n > 1) {
        int root = 0;
        CHECK_RC(MPI_Gather(x, 1, MPI_INT, me == root ? y : NULL, me == root ? 1 : -5,
                            me == root ? MPI_INT : MPI_DATATYPE_NULL, root, comm),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Scatter(me == root ? y : NULL, me == root ? 1 : -5,
                             me == root ? MPI_INT : MPI_DATATYPE_NULL, x, 1, MPI_INT, root,
                             comm),
                 MPI_SUCCESS);
        /* and the root's send arguments with MPI_IN_PLACE */
        CHECK_RC(MPI_Gather(me == root ? MPI_IN_PLACE : x, me == root ? -1 : 1,
                            me == root ? MPI_DATATYPE_NULL : MPI_INT, y, 1, MPI_INT, root,
                            comm),
                 MPI_SUCCESS);
    }

    /* a signature mismatch: the root expects fewer ints than the others send */
    if (n > 1) {
        int rc = MPI_Gather(x, 4, MPI_INT, y, me == 0 ? 2 : 4, MPI_INT, 0, comm);
        CHECK_RC(rc, me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
        rc = MPI_Igather(x, 4, MPI_INT, y, me == 0 ? 3 : 4, MPI_INT, 0, comm, &req);
        CHECK_RC(rc, MPI_SUCCESS);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK_RC(rc, me == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS);
    }
    MPI_Type_free(&uncommitted);
    /* still usable */
    x[0] = me == 0 ? 42 : 0;
    CHECK_RC(MPI_Bcast(x, 1, MPI_INT, 0, comm), MPI_SUCCESS);
    CHECK(x[0] == 42);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size_of(MPI_COMM_WORLD) <= 8)
        intra(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
