/* A window the program never frees: MPI_Finalize frees it as MPI_Win_free would, still
 * serving it meanwhile. Rank 0 goes straight to MPI_Finalize; the others lock it later (after
 * a pause), so rank 0 must still apply their operations while it finalizes. */
#include "../check.h"

#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, *a, v = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Win win;
    MPI_Win_allocate(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
    if (rank > 0) {
        nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }
    CHECK_RC(MPI_Finalize(), MPI_SUCCESS);
    if (rank == 0)
        printf("rma leftover: OK\n");
    return 0;
}
