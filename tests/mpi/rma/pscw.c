/* Generalized active target: post/start/complete/wait (and test) on a ring, on the whole
 * window, and with a process that only exposes or only accesses. */
#include "../check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &a, &win);
    a[0] = a[1] = a[2] = -1;
    a[3] = 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, gl, gr;
    MPI_Win_get_group(win, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);

    /* ring: my left neighbour writes into me, I write into my right neighbour */
    for (int k = 0; k < 3; k++) {
        MPI_Win_post(gl, 0, win);
        MPI_Win_start(gr, 0, win);
        int v = 100 * k + rank;
        MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        CHECK(a[0] == 100 * k + left);
    }

    /* everyone accumulates into everyone; the exposure ends by MPI_Win_test */
    MPI_Win_post(world, 0, win);
    MPI_Win_start(world, 0, win);
    int one = 1, got = -1;
    for (int t = 0; t < size; t++)
        MPI_Accumulate(&one, 1, MPI_INT, t, 3, 1, MPI_INT, MPI_SUM, win);
    MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    MPI_Win_complete(win);
    CHECK(got == 200 + rank);
    int flag = 0;
    while (!flag)
        MPI_Win_test(win, &flag);
    CHECK(a[3] == size);

    /* rank 0 only exposes, the others only access it */
    if (rank == 0) {
        MPI_Group others;
        MPI_Group_excl(world, 1, &rank, &others);
        MPI_Win_post(others, 0, win);
        MPI_Win_wait(win);
        CHECK(a[3] == size + size - 1);
        MPI_Group_free(&others);
    } else {
        int zero = 0;
        MPI_Group g0;
        MPI_Group_incl(world, 1, &zero, &g0);
        MPI_Win_start(g0, 0, win);
        MPI_Accumulate(&one, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, win);
        MPI_Win_complete(win);
        MPI_Group_free(&g0);
    }

#ifdef METAMPI /* classes, not codes */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Put(&one, 1, MPI_INT, right, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    CHECK_RC(MPI_Win_start(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP);
#endif
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    if (rank == 0)
        printf("rma pscw: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
