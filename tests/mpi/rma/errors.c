/* Error paths of the one-sided calls, with MPI_ERRORS_RETURN on the window: each returns its
 * class and the window stays usable. */
#include "../check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int buf[4] = { 0 }, v = 1, r;
    MPI_Win win;
    CHECK_RC(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win),
             MPI_SUCCESS);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    /* bad window handles */
    CHECK_RC(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, 12345), MPI_ERR_WIN);
    /* creation arguments */
    MPI_Win bad;
    CHECK_RC(MPI_Win_create(buf, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bad), MPI_ERR_SIZE);
    CHECK_RC(MPI_Win_create(buf, 4, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &bad), MPI_ERR_DISP);
    CHECK_RC(MPI_Alloc_mem(-1, MPI_INFO_NULL, &bad), MPI_ERR_SIZE);

    /* wrong epoch: no fence, no lock yet */
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_lock(99, 0, 0, win), MPI_ERR_LOCKTYPE);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_SUCCESS);
    CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    /* out of range: the window has 4 ints */
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    CHECK_RC(MPI_Get(buf, 2, MPI_INT, 0, 3, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    /* bad rank, types, ops */
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    CHECK_RC(MPI_Put(&v, 1, MPI_DATATYPE_NULL, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    CHECK_RC(MPI_Put(&v, 2, MPI_SHORT, 0, 0, 2, MPI_INT, win), MPI_ERR_TYPE);
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 4, MPI_BYTE, MPI_SUM, win), MPI_ERR_TYPE);
    CHECK_RC(MPI_Accumulate(&v, 1, MPI_FLOAT, 0, 0, 1, MPI_FLOAT, MPI_BAND, win), MPI_ERR_OP);
    CHECK_RC(MPI_Put(&v, -1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    /* to MPI_PROC_NULL: nothing happens */
    CHECK_RC(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 99, 1, MPI_INT, win), MPI_SUCCESS);
    /* the window is still usable */
    CHECK_RC(MPI_Fetch_and_op(&v, &r, MPI_INT, 0, 0, MPI_SUM, win), MPI_SUCCESS);
    CHECK_RC(MPI_Win_unlock(0, win), MPI_SUCCESS);
    CHECK_RC(MPI_Win_free(&win), MPI_SUCCESS);
    CHECK_RC(MPI_Win_free(&win), MPI_ERR_WIN);
    if (rank == 0)
        printf("rma errors: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
