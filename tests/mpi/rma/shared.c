/* Shared-memory windows: MPI_Win_allocate_shared over each host's processes, direct loads
 * and stores through MPI_Win_shared_query, contiguous parts, MPI operations into the segment;
 * a communicator spanning hosts is refused (MPI_ERR_RMA_SHARED). */
#include "../check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, wsize, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);

    int *mine;
    MPI_Win win;
    /* rank 1 contributes nothing */
    MPI_Aint bytes = rank == 1 ? 0 : (MPI_Aint)(rank + 2) * sizeof(int);
    CHECK_RC(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, node, &mine, &win),
             MPI_SUCCESS);
    int *flavor, flag;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(*flavor == MPI_WIN_FLAVOR_SHARED);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < rank + 2 && rank != 1; i++)
        mine[i] = 1000 * rank + i;
    MPI_Win_sync(win);
    MPI_Barrier(node);
    MPI_Win_sync(win);
    /* every part by direct load, contiguous after rank 0's */
    int *first;
    MPI_Aint qsize;
    int unit;
    MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &unit, &first);
    CHECK(qsize == (MPI_Aint)(2 * sizeof(int)) && unit == (int)sizeof(int));
    int *expect = first;
    for (int r = 0; r < size; r++) {
        int *p;
        MPI_Win_shared_query(win, r, &qsize, &unit, &p);
        if (r == 1) {
            CHECK(qsize == 0);
            continue;
        }
        CHECK(p == expect && qsize == (MPI_Aint)((r + 2) * sizeof(int)));
        for (int i = 0; i < r + 2; i++)
            CHECK(p[i] == 1000 * r + i);
        expect = p + r + 2;
    }
    MPI_Win_unlock_all(win);
    /* an MPI operation lands in the segment too */
    MPI_Win_fence(0, win);
    int v = 77;
    if (rank == size - 1)
        MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(first[1] == 77);
    MPI_Win_free(&win);

    /* across hosts: refused */
    int hosts_differ = size != wsize;
    MPI_Win w2;
    int *b2;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Win_allocate_shared(sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b2, &w2);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(hosts_differ ? cls == MPI_ERR_RMA_SHARED : rc == MPI_SUCCESS);
    if (rc == MPI_SUCCESS)
        MPI_Win_free(&w2);
    MPI_Comm_free(&node);
    if (wrank == 0)
        printf("rma shared: OK on %d ranks\n", wsize);
    MPI_Finalize();
    return 0;
}
