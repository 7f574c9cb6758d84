/* Unified model (MPI-3.1 §11.4): a put becomes visible at the target without a further RMA
 * call at the origin. Rank 0 puts a flag into rank 1 inside lock_all and then only waits in
 * MPI_Recv; rank 1 polls its window (MPI_Win_sync) until the flag arrives, then sends. Under
 * the emulation the put is a gathered record: it must leave while rank 0 waits in MPI_Recv,
 * not wait for a flush that never comes. */
#include "../check.h"

#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    volatile long *flag;
    MPI_Win win;
    MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, (void *)&flag,
                     &win);
    *flag = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (size >= 2 && rank == 0) {
        long one = 1;
        int ack = 0;
        MPI_Win_lock_all(0, win);
        MPI_Put(&one, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
        MPI_Recv(&ack, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(ack == 1);
        MPI_Win_unlock_all(win);
    } else if (size >= 2 && rank == 1) {
        time_t t0 = time(NULL);
        while (*flag != 1 && time(NULL) - t0 < 10)
            MPI_Win_sync(win);
        CHECK(*flag == 1);
        int ack = 1;
        MPI_Send(&ack, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    if (rank == 0)
        printf("rma eventually: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
