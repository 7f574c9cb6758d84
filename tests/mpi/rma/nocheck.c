/* MPI_MODE_NOCHECK: lock epochs that take no lock at the target (each origin is the only one
 * addressing its target, or all hold shared access and only accumulate), whose unlock must
 * still complete every operation at the target; then the same ranks take real locks on the
 * same window, which must find no lock left behind. */
#include "check.h"

#include <mpi.h>
#include <stdio.h>


enum { N = 64, ROUNDS = 20 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *base;
    MPI_Win win;
    MPI_Win_allocate((N + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i <= N; i++)
        base[i] = 0;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* one origin per target: exclusive access without asking */
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    long v[N];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            v[i] = (long)rank * 1000000 + r * 1000 + i;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, MPI_MODE_NOCHECK, win);
        MPI_Put(v, N, MPI_LONG, next, 0, N, MPI_LONG, win);
        MPI_Win_unlock(next, win);   /* complete at the target when it returns */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        for (int i = 0; i < N; i++)
            CHECK(base[i] == (long)prev * 1000000 + r * 1000 + i,
                  "round %d: element %d is %ld after rank %d's NOCHECK epoch", r, i, base[i],
                  prev);
        MPI_Win_unlock(rank, win);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* every rank adds to every target's counter under lock_all(NOCHECK) */
    long one = 1;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    for (int r = 0; r < ROUNDS; r++) {
        for (int t = 0; t < size; t++)
            MPI_Accumulate(&one, 1, MPI_LONG, t, N, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush_all(win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    CHECK(base[N] == (long)size * ROUNDS, "the counter is %ld, not %ld", base[N],
          (long)size * ROUNDS);
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* real locks after them: none was left taken */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_LONG, 0, N, 1, MPI_LONG, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(base[N] == (long)size * (ROUNDS + 1), "the counter is %ld after the exclusive "
              "locks, not %ld", base[N], (long)size * (ROUNDS + 1));
        MPI_Win_unlock(0, win);
        printf("nocheck: ok at %d ranks\n", size);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
