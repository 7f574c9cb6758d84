/* Passive target: exclusive and shared locks, lock_all, flush / flush_all / flush_local /
 * flush_local_all, MPI_Win_sync, and a stress test of accumulate atomicity: every rank adds
 * into one counter under lock_all, with fetch_and_op and plain accumulates mixed. */
#include "../check.h"
#include "window.h"

#define ROUNDS 200

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *a;
    MPI_Win win;
    a = test_window(argc, argv, 8 * sizeof(long), sizeof(long), &win);
    for (int i = 0; i < 8; i++)
        a[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    /* exclusive locks: a read-modify-write of slot 0 at rank 0 by get + put is safe */
    for (int k = 0; k < 5; k++) {
        long v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        v++;
        MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        CHECK(a[0] == 5 * size);
        MPI_Win_unlock(0, win);
    }

    /* atomicity: all ranks add into rank (size-1)'s slot 1 concurrently */
    int last = size - 1;
    MPI_Win_lock_all(0, win);
    long one = 1, prev, seen_max = -1;
    for (int k = 0; k < ROUNDS; k++) {
        if (k % 2) {
            MPI_Accumulate(&one, 1, MPI_LONG, last, 1, 1, MPI_LONG, MPI_SUM, win);
        } else {
            MPI_Fetch_and_op(&one, &prev, MPI_LONG, last, 1, MPI_SUM, win);
            MPI_Win_flush_local(last, win);
            CHECK(prev > seen_max); /* this origin's own operations are ordered */
            seen_max = prev;
        }
        if (k % 50 == 0)
            MPI_Win_flush_all(win);
    }
    MPI_Win_flush_local_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == last) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, last, 0, win);
        MPI_Win_sync(win);
        CHECK(a[1] == (long)ROUNDS * size);
        MPI_Win_unlock(last, win);
    }

    /* shared locks held by everyone at once on rank 0, each writing its own slot */
    long mine = 1000 + rank;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    if (rank < 6)
        MPI_Put(&mine, 1, MPI_LONG, 0, 2 + rank, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size && r < 6; r++)
            CHECK(a[2 + r] == 1000 + r);

    /* a lock on MPI_PROC_NULL does nothing */
    CHECK_RC(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win), MPI_SUCCESS);
    CHECK_RC(MPI_Win_unlock(MPI_PROC_NULL, win), MPI_SUCCESS);
    test_window_free(argc, argv, &win, a);
    if (rank == 0)
        printf("rma passive: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
