/* One-sided communication in a job of unlike architectures (tests/hetero): a window on a
 * communicator of both is refused alike on every member (MPI_ERR_UNSUPPORTED_OPERATION: not
 * converted yet; with HETERO_FATAL=1 the default handler reports it); a window among the ranks of one architecture
 * works as in any job (put, get, accumulate, fetch_and_op, compare_and_swap in a ring).
 * EXPECT_ARCHS=1: the job is of two architectures. */
#include "../mpi/check.h"

#include <stdlib.h>

static int big_endian(void)
{
    return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

static void ring(MPI_Comm c)
{
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    long *mem;
    MPI_Win w;
    CHECK_RC(MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, c, &mem, &w),
             MPI_SUCCESS);
    for (int i = 0; i < 8; i++)
        mem[i] = 0;
    int right = (rank + 1) % size;
    long v = ((long)rank << 33) + 5, got = -1, one = 1, old = -1, cmp = 0, repl = 7;
    MPI_Win_fence(0, w);
    MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, w);
    MPI_Accumulate(&one, 1, MPI_LONG, right, 1, 1, MPI_LONG, MPI_SUM, w);
    MPI_Win_fence(0, w);
    MPI_Get(&got, 1, MPI_LONG, right, 0, 1, MPI_LONG, w);
    MPI_Fetch_and_op(&one, &old, MPI_LONG, right, 1, MPI_SUM, w);
    MPI_Compare_and_swap(&repl, &cmp, &cmp, MPI_LONG, right, 2, w);
    MPI_Win_fence(0, w);
    CHECK(got == ((long)rank << 33) + 5 && old == 1 && cmp == 0);
    int left = (rank + size - 1) % size;
    CHECK(mem[0] == ((long)left << 33) + 5 && mem[1] == 2 && mem[2] == 7);
    MPI_Win_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!getenv("HETERO_FATAL")) /* else the default handler's report ends the job */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    long *mem;
    MPI_Win w;
    int rc = MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                              &w);
    if (getenv("EXPECT_ARCHS")) {
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    } else {
        CHECK_RC(rc, MPI_SUCCESS);
        MPI_Win_free(&w);
    }
    MPI_Comm like;
    MPI_Comm_split(MPI_COMM_WORLD, big_endian(), rank, &like);
    ring(like);
    MPI_Comm_free(&like);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("hetero rma: ok\n");
    MPI_Finalize();
    return 0;
}
