/* Passive target while the target stays away from MPI: rank 0 computes for AWAY_S seconds
 * without any MPI call while every other rank locks it, puts, accumulates, fetches and
 * unlocks. On one host (direct access) these epochs need nothing of rank 0 and must finish
 * long before it comes back; the emulation without a progress thread would wait for it.
 * Argument "create": the window is MPI_Win_create's (cross-memory attach). */
#include "../check.h"
#include "window.h"

#include <time.h>

#define AWAY_S 3.0

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *a;
    MPI_Win win;
    a = test_window(argc, argv, (size + 1) * (MPI_Aint)sizeof(long), sizeof(long), &win);
    for (int i = 0; i <= size; i++)
        a[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        /* away: a compute phase with no MPI call at all */
        volatile double x = 0;
        for (double t0 = now(); now() - t0 < AWAY_S;)
            x += 1.0;
    } else {
        double t0 = now();
        long mine = 100 + rank, one = 1, prev = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&mine, 1, MPI_LONG, 0, rank, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Fetch_and_op(&one, &prev, MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_unlock(0, win);
        double took = now() - t0;
        CHECK(prev >= 0 && prev < size - 1);
        if (took > AWAY_S / 2)
            fprintf(stderr, "rank %d: the epochs on rank 0 took %.2f s while it computed\n",
                    rank, took);
        CHECK(took < AWAY_S / 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(a[0] == size - 1);
        for (int r = 1; r < size; r++)
            CHECK(a[r] == 100 + r);
        MPI_Win_unlock(0, win);
    }
    test_window_free(argc, argv, &win, a);
    if (rank == 0)
        printf("rma away: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
