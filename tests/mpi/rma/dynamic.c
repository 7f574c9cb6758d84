/* Dynamic windows: memory attached after creation, addressed by its address
 * (MPI_Get_address), with fence and with locks; attach/detach errors. */
#include "../check.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win win;
    CHECK_RC(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_SUCCESS);
    int *flavor, flag;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC);
    int *mem = calloc(8, sizeof(int));
    MPI_Win_attach(win, mem, 8 * sizeof(int));
    MPI_Aint mine, *addr = malloc(size * sizeof *addr);
    MPI_Get_address(mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Win_fence(0, win);
    MPI_Put(&rank, 1, MPI_INT, right, addr[right] + 2 * sizeof(int), 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    CHECK(mem[2] == left);

    int one = 1, got = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, addr[0] + 7 * sizeof(int), 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&got, 1, MPI_INT, 0, addr[0] + 7 * sizeof(int), 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    CHECK(got == size);

#ifdef METAMPI /* classes, not codes */
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Win_attach(win, mem + 4, sizeof(int)), MPI_ERR_RMA_ATTACH);
    CHECK_RC(MPI_Win_detach(win, mem + 1), MPI_ERR_RMA_ATTACH);
    MPI_Win plain;
    MPI_Win_create(mem, sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &plain);
    MPI_Win_set_errhandler(plain, MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Win_attach(plain, mem + 4, sizeof(int)), MPI_ERR_RMA_FLAVOR);
    MPI_Win_free(&plain);
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_RC(MPI_Win_detach(win, mem), MPI_SUCCESS);
    MPI_Win_free(&win);
    free(mem);
    free(addr);
    if (rank == 0)
        printf("rma dynamic: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
