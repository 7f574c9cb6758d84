/* Fence epochs without a barrier (rma/win.h, "Fence epochs"): a member that leaves a fence
 * early may address a member still inside it, which must not let the next epoch's access
 * overtake this epoch's.
 *
 * 1. Third-party order: each rank puts a large block (rendezvous) to rank r+1, fence, then
 *    gets from rank r+2 the block rank r+1 put there, and checks it is this iteration's. One
 *    rank per iteration arrives late at the first fence, so the others' gets may reach the
 *    target of its put while that put still arrives (between hosts, where the put needs its
 *    origin inside MPI); a get applied before it reads the previous iteration's block.
 * 2. MPI_MODE_NOPRECEDE: a fence that exchanges nothing, then puts and a fence of 0.
 * 3. MPI_MODE_NOPRECEDE after this process issued an operation: MPI_ERR_RMA_SYNC, and the
 *    window still works (a fence of 0 completes the operation).
 * 4. A passive-target epoch right after a fence of MPI_MODE_NOSUCCEED, to a target that
 *    leaves that fence late: the lock waits for it, the put lands. */
#include "check.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>


enum { BLOCK = 256 * 1024, ITERS = 12 };   /* ints: 1 MiB, above every eager limit */

static int rank, size;

static void sleep_ms(int ms)
{
    struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

static int pattern(int who, int iter, int i)
{
    return (who * 7919 + iter * 104729 + i) & 0x7fffffff;
}

static void third_party(void)
{
    int *base, *mine = malloc(BLOCK * sizeof(int)), *got = malloc(BLOCK * sizeof(int));
    MPI_Win win;
    MPI_Win_allocate(BLOCK * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    CHECK(mine && got, "out of memory");
    int next = (rank + 1) % size, after = (rank + 2) % size, prev = (rank - 1 + size) % size;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < BLOCK; i++)
            mine[i] = pattern(rank, it, i);
        MPI_Put(mine, BLOCK, MPI_INT, next, 0, BLOCK, MPI_INT, win);
        if (it % size == rank)
            sleep_ms(30);
        MPI_Win_fence(0, win);
        MPI_Get(got, BLOCK, MPI_INT, after, 0, BLOCK, MPI_INT, win);
        MPI_Win_fence(0, win);
        /* rank `after` holds what its predecessor (rank + 1) put */
        int from = (after - 1 + size) % size;
        for (int i = 0; i < BLOCK; i++)
            CHECK(got[i] == pattern(from, it, i),
                  "iteration %d: the get from rank %d read element %d = %d, not rank %d's "
                  "put of this epoch (%d)", it, after, i, got[i], from, pattern(from, it, i));
        for (int i = 0; i < BLOCK; i++)
            CHECK(base[i] == pattern(prev, it, i), "iteration %d: element %d of my window "
                  "is %d, not rank %d's put (%d)", it, i, base[i], prev, pattern(prev, it, i));
        MPI_Win_fence(0, win);   /* my reads of base end before the next epoch's puts */
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
    free(mine);
    free(got);
}

static void noprecede(void)
{
    int *base;
    MPI_Win win;
    MPI_Win_allocate(size * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    for (int i = 0; i < size; i++)
        base[i] = -1;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = 0; t < size; t++)
        MPI_Put(&rank, 1, MPI_INT, t, rank, 1, MPI_INT, win);
    /* the puts must be completed by a fence of 0: NOPRECEDE is refused, and changes nothing */
    int rc = MPI_Win_fence(MPI_MODE_NOPRECEDE, win), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RMA_SYNC, "MPI_Win_fence(MPI_MODE_NOPRECEDE) after %d puts returned "
          "class %d, not MPI_ERR_RMA_SYNC", size, cls);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS, "the fence after the refusal failed");
    for (int i = 0; i < size; i++)
        CHECK(base[i] == i, "element %d is %d after the fence", i, base[i]);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    MPI_Win_free(&win);
}

static void passive_after_fence(void)
{
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = -1;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(&rank, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
    if (rank == size - 1)
        sleep_ms(30);   /* the target of rank 0's lock below leaves the fence last */
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    int expect = (rank - 1 + size) % size;
    CHECK(*base == expect, "after the fence my element is %d, not %d", *base, expect);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int v = 4242;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, size - 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, size - 1, 0, 1, MPI_INT, win);
        MPI_Win_unlock(size - 1, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
        CHECK(*base == 4242, "the locked put of rank 0 left %d", *base);
        MPI_Win_unlock(rank, win);
    }
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    third_party();
    noprecede();
    passive_after_fence();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("epochs: ok at %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
