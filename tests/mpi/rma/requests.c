/* Request-based operations (Rput, Rget, Raccumulate, Rget_accumulate) in passive-target
 * epochs, completed with MPI_Wait / MPI_Waitall / MPI_Test, or freed before completion;
 * a cancelled one completes as usual; refused outside passive-target epochs. */
#include "../check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a;
    MPI_Win win;
    MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
    for (int i = 0; i < 16; i++)
        a[i] = 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request rq[4];

    /* outside a passive-target epoch: MPI_ERR_RMA_SYNC, even after a fence (MPI-3.1 §11.3.5) */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, win);
#ifdef METAMPI /* MPICH does not check it */
    CHECK_RC(MPI_Rput(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win, &rq[0]), MPI_ERR_RMA_SYNC);
#endif
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    int vals[2] = { rank, 10 * rank };
    MPI_Rput(vals, 2, MPI_INT, right, 0, 2, MPI_INT, win, &rq[0]);
    int one = 1;
    MPI_Raccumulate(&one, 1, MPI_INT, 0, 5, 1, MPI_INT, MPI_SUM, win, &rq[1]);
    MPI_Rput(vals, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win, &rq[2]);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    CHECK(rq[0] == MPI_REQUEST_NULL && rq[2] == MPI_REQUEST_NULL);
    MPI_Win_flush_all(win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(a[0] == left && a[1] == 10 * left);

    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    int got[2] = { -1, -1 }, old = -1, flag = 0;
    MPI_Rget(got, 2, MPI_INT, right, 0, 2, MPI_INT, win, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    CHECK(got[0] == rank && got[1] == 10 * rank);
    MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, right, 6, 1, MPI_INT, MPI_SUM, win,
                        &rq[1]);
    while (!flag)
        MPI_Test(&rq[1], &flag, MPI_STATUS_IGNORE);
    CHECK(old == 0);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(a[6] == 1);

    /* MPI_Request_free on an active request (MPI-3.1 §3.7.3): the operation still happens;
     * MPI_Cancel cannot withdraw a started one, which then completes uncancelled */
    MPI_Win_lock_all(0, win);
    int seven = 7;
    MPI_Rput(&seven, 1, MPI_INT, right, 7, 1, MPI_INT, win, &rq[0]);
    CHECK_RC(MPI_Request_free(&rq[0]), MPI_SUCCESS);
    CHECK(rq[0] == MPI_REQUEST_NULL);
    MPI_Win_flush(right, win);
    int back = -1, cancelled = 1;
    MPI_Status st;
    MPI_Rget(&back, 1, MPI_INT, right, 7, 1, MPI_INT, win, &rq[0]);
    CHECK_RC(MPI_Cancel(&rq[0]), MPI_SUCCESS);
    MPI_Wait(&rq[0], &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(!cancelled && back == 7);
    MPI_Rput(&seven, 1, MPI_INT, right, 8, 1, MPI_INT, win, &rq[0]);
    MPI_Win_flush(right, win); /* completes the request; freeing it now releases it */
    CHECK_RC(MPI_Request_free(&rq[0]), MPI_SUCCESS);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(a[7] == 7 && a[8] == 7);
    if (rank == 0)
        CHECK(a[5] == size);
    MPI_Win_free(&win);
    if (rank == 0)
        printf("rma requests: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
