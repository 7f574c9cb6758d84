/* The profiling interface: a tool defines MPI_Comm_rank and MPI_Send, counts the calls and
 * forwards to PMPI_. The application's calls must reach the tool; the library's own work
 * (MPI_Init, MPI_Finalize) must not call the MPI_ names. */
#include "check.h"

static int rank_calls, send_calls;

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    rank_calls++;
    return PMPI_Comm_rank(comm, rank);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    send_calls++;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(rank_calls == 0 && send_calls == 0);
    int rank, v = 42;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(rank_calls == 1);
    MPI_Send(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
    CHECK(send_calls == 1);
    PMPI_Send(&v, 1, MPI_INT, rank, 1, MPI_COMM_WORLD); /* straight to the library */
    CHECK(send_calls == 1);
    MPI_Recv(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&v, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    if (rank_calls != 1 || send_calls != 1) {
        fprintf(stderr, "FAIL: the library called an interposed MPI_ function itself\n");
        return 1;
    }
    return 0;
}
