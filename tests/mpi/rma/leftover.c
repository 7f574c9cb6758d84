/* A window the program never frees: MPI_Finalize frees it (after a passive-target epoch
 * whose replies travelled on its context) and the job ends cleanly. */
#include "../check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, *a, v = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;
    MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
    MPI_Win_lock_all(0, win);
    MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    CHECK_RC(MPI_Finalize(), MPI_SUCCESS);
    if (rank == 0)
        printf("rma leftover: OK\n");
    return 0;
}
