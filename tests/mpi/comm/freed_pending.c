/* A request that fails after the program freed its communicator (MPI-3.1 §6.4.3: the free
 * only marks it; pending operations complete normally). The failing request holds the last
 * reference, so completing it destroys the communicator: its error must still be raised on
 * that communicator's error handler (here one that counts and returns), not on
 * MPI_COMM_WORLD's (ERRORS_ARE_FATAL) and without reading the destroyed communicator.
 * A message to self of 2 ints into a receive of 1 is truncated; every completion call. */
#include "../check.h"

static int handler_calls, handler_code;

static void count_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static int error_class(int code)
{
    int cls = -1;
    MPI_Error_class(code, &cls);
    return cls;
}

/* A duplicate with the counting handler, a truncated receive from self on it completed but
 * not yet reported, and the duplicate freed: the receive holds its last reference. */
static void truncated_receive_on_freed_comm(MPI_Errhandler eh, MPI_Request *recv)
{
    static int rbuf, sbuf[2];
    int rank;
    MPI_Comm c;
    MPI_Request send;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(c, eh), MPI_SUCCESS);
    CHECK_RC(MPI_Irecv(&rbuf, 1, MPI_INT, rank, 7, c, recv), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(sbuf, 2, MPI_INT, rank, 7, c, &send), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&send, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    handler_calls = 0;
}

static void expect_handler(int cls)
{
    CHECK(handler_calls == 1);
    CHECK(error_class(handler_code) == cls);
}

int main(int argc, char **argv)
{
    CHECK_RC(MPI_Init(&argc, &argv), MPI_SUCCESS);
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_create_errhandler(count_error, &eh), MPI_SUCCESS);
    MPI_Request r, rs[2];
    MPI_Status st, sts[2];
    int index, flag, outcount, indices[2];

    truncated_receive_on_freed_comm(eh, &r);
    CHECK(error_class(MPI_Wait(&r, &st)) == MPI_ERR_TRUNCATE);
    CHECK(r == MPI_REQUEST_NULL);
    expect_handler(MPI_ERR_TRUNCATE);

    truncated_receive_on_freed_comm(eh, &r);
    do
        flag = 0, MPI_Test(&r, &flag, &st);
    while (!flag && r != MPI_REQUEST_NULL);
    CHECK(r == MPI_REQUEST_NULL);
    expect_handler(MPI_ERR_TRUNCATE);

    truncated_receive_on_freed_comm(eh, &rs[0]);
    rs[1] = MPI_REQUEST_NULL;
    CHECK(error_class(MPI_Waitany(2, rs, &index, &st)) == MPI_ERR_TRUNCATE);
    CHECK(index == 0 && rs[0] == MPI_REQUEST_NULL);
    expect_handler(MPI_ERR_TRUNCATE);

    truncated_receive_on_freed_comm(eh, &rs[0]);
    CHECK(error_class(MPI_Waitall(2, rs, sts)) == MPI_ERR_IN_STATUS);
    CHECK(error_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE);
    expect_handler(MPI_ERR_IN_STATUS);

    truncated_receive_on_freed_comm(eh, &rs[0]);
    CHECK(error_class(MPI_Waitsome(2, rs, &outcount, indices, sts)) == MPI_ERR_IN_STATUS);
    CHECK(outcount == 1 && indices[0] == 0);
    expect_handler(MPI_ERR_IN_STATUS);

    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("freed_pending: ok\n");
    MPI_Finalize();
    return 0;
}
