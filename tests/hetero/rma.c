/* One-sided communication between ranks of unlike architectures (tests/hetero): every rank
 * does put, get, accumulate, get_accumulate, fetch_and_op and compare_and_swap on its right
 * neighbour's window (run with the neighbours of unlike architecture), in fences and in a
 * passive-target epoch, with longs, doubles and ints, contiguous and strided at the origin
 * and at the target;
 * the target converts what the origin sends, the origin what the target returns; and a
 * target datatype of two basic types (tests/hetero/rma_struct.c has more). Run on one
 * architecture it checks the same. */
#include "../mpi/check.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum { N = 6 };

typedef struct cell {
    long l[N];
    double d[N];
    int i[N];
    long counter, cas;
} cell_t;

static long lval(int r, int k) { return ((long)(r + 1) << 35) - 3 * k; }
static double dval(int r, int k) { return r * 1.5 - k / 4.0; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cell_t *mem;
    MPI_Win w;
    CHECK_RC(MPI_Win_allocate(sizeof *mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w),
             MPI_SUCCESS);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    *mem = (cell_t){ .counter = 100, .cas = -1 };
    MPI_Barrier(MPI_COMM_WORLD); /* stored before any neighbour's operation */
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    long lv[2 * N], lgot[N], old = 0, one = 1, cmp = -1, swap = rank, was = 0;
    double dv[N], dgot[N];
    int iv[N];
    for (int k = 0; k < N; k++) {
        lv[2 * k] = lval(rank, k), lv[2 * k + 1] = -7;
        dv[k] = dval(rank, k);
        iv[k] = rank * 10 + k;
    }
    MPI_Datatype every2;
    MPI_Type_vector(N, 1, 2, MPI_LONG, &every2);
    MPI_Type_commit(&every2);
    /* fence epoch: puts (the longs strided at the origin), accumulates */
    MPI_Win_fence(0, w);
    CHECK_RC(MPI_Put(lv, 1, every2, right, offsetof(cell_t, l), N, MPI_LONG, w), MPI_SUCCESS);
    CHECK_RC(MPI_Put(dv, N, MPI_DOUBLE, right, offsetof(cell_t, d), N, MPI_DOUBLE, w),
             MPI_SUCCESS);
    CHECK_RC(MPI_Accumulate(iv, N, MPI_INT, right, offsetof(cell_t, i), N, MPI_INT, MPI_SUM, w),
             MPI_SUCCESS);
    CHECK_RC(MPI_Accumulate(&one, 1, MPI_LONG, right, offsetof(cell_t, counter), 1, MPI_LONG,
                            MPI_SUM, w), MPI_SUCCESS);
    MPI_Win_fence(0, w);
    for (int k = 0; k < N; k++)
        CHECK(mem->l[k] == lval(left, k) && mem->d[k] == dval(left, k) &&
              mem->i[k] == left * 10 + k);
    CHECK(mem->counter == 101);
    MPI_Barrier(MPI_COMM_WORLD); /* read before the next epoch's operations change it */
    /* gets, fetch_and_op, compare_and_swap, get_accumulate */
    CHECK_RC(MPI_Get(lgot, N, MPI_LONG, right, offsetof(cell_t, l), N, MPI_LONG, w),
             MPI_SUCCESS);
    CHECK_RC(MPI_Get(dgot, N, MPI_DOUBLE, right, offsetof(cell_t, d), N, MPI_DOUBLE, w),
             MPI_SUCCESS);
    CHECK_RC(MPI_Fetch_and_op(&one, &old, MPI_LONG, right, offsetof(cell_t, counter), MPI_SUM,
                              w), MPI_SUCCESS);
    CHECK_RC(MPI_Compare_and_swap(&swap, &cmp, &was, MPI_LONG, right, offsetof(cell_t, cas), w),
             MPI_SUCCESS);
    MPI_Win_fence(0, w);
    for (int k = 0; k < N; k++)
        CHECK(lgot[k] == lval(rank, k) && dgot[k] == dval(rank, k));
    CHECK(old == 101 && was == -1 && mem->cas == left && mem->counter == 102);
    MPI_Barrier(MPI_COMM_WORLD);
    /* passive target: get_accumulate of doubles (sum), read back */
    double add[N], before[N];
    for (int k = 0; k < N; k++)
        add[k] = 0.5 * k;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w);
    CHECK_RC(MPI_Get_accumulate(add, N, MPI_DOUBLE, before, N, MPI_DOUBLE, right,
                                offsetof(cell_t, d), N, MPI_DOUBLE, MPI_SUM, w), MPI_SUCCESS);
    MPI_Win_unlock(right, w);
    for (int k = 0; k < N; k++)
        CHECK(before[k] == dval(rank, k));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    for (int k = 0; k < N; k++)
        CHECK(mem->d[k] == dval(left, k) + 0.5 * k);
    MPI_Win_unlock(rank, w);
    /* strided target datatypes of one basic type: put, accumulate, get */
    MPI_Datatype dstride, istride;
    MPI_Type_vector(N / 2, 1, 2, MPI_DOUBLE, &dstride);
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &istride);
    MPI_Type_commit(&dstride);
    MPI_Type_commit(&istride);
    double dput[N / 2], dback[N / 2];
    int iadd[N / 2];
    for (int k = 0; k < N / 2; k++)
        dput[k] = -dval(rank, k) - 1, iadd[k] = 1000 * (rank + 1) + k;
    MPI_Win_fence(0, w);
    CHECK_RC(MPI_Put(dput, N / 2, MPI_DOUBLE, right, offsetof(cell_t, d), 1, dstride, w),
             MPI_SUCCESS);
    CHECK_RC(MPI_Accumulate(iadd, N / 2, MPI_INT, right, offsetof(cell_t, i), 1, istride,
                            MPI_SUM, w), MPI_SUCCESS);
    MPI_Win_fence(0, w);
    for (int k = 0; k < N; k++) {
        int j = k / 2;
        CHECK(mem->d[k] == (k % 2 ? dval(left, k) + 0.5 * k : -dval(left, j) - 1));
        CHECK(mem->i[k] == left * 10 + k + (k % 2 ? 0 : 1000 * (left + 1) + j));
    }
    CHECK_RC(MPI_Get(dback, N / 2, MPI_DOUBLE, right, offsetof(cell_t, d), 1, dstride, w),
             MPI_SUCCESS);
    MPI_Win_fence(0, w);
    for (int k = 0; k < N / 2; k++)
        CHECK(dback[k] == -dval(rank, k) - 1);
    /* an indexed target datatype (its layout's blocks node), and a vector of vectors (nested
     * nodes: l[0], l[2] and l[3], l[5]) of longs */
    MPI_Datatype idx, pairs, nested;
    int where[3] = { 5, 0, 3 };
    MPI_Type_create_indexed_block(3, 1, where, MPI_LONG, &idx);
    MPI_Type_vector(2, 1, 2, MPI_LONG, &pairs);
    MPI_Type_create_hvector(2, 1, 3 * sizeof(long), pairs, &nested);
    MPI_Type_commit(&idx);
    MPI_Type_commit(&nested);
    long lput[3] = { lval(rank, 7), lval(rank, 8), lval(rank, 9) }, lnest[4];
    MPI_Win_fence(0, w);
    CHECK_RC(MPI_Put(lput, 3, MPI_LONG, right, offsetof(cell_t, l), 1, idx, w), MPI_SUCCESS);
    MPI_Win_fence(0, w);
    CHECK(mem->l[5] == lval(left, 7) && mem->l[0] == lval(left, 8) &&
          mem->l[3] == lval(left, 9));
    CHECK_RC(MPI_Get(lnest, 4, MPI_LONG, right, offsetof(cell_t, l), 1, nested, w),
             MPI_SUCCESS);
    MPI_Win_fence(0, w);
    CHECK(lnest[0] == lval(rank, 8) && lnest[1] == lval(rank, 2) &&
          lnest[2] == lval(rank, 9) && lnest[3] == lval(rank, 7));
    MPI_Type_free(&idx);
    MPI_Type_free(&pairs);
    MPI_Type_free(&nested);
    MPI_Type_free(&dstride);
    MPI_Type_free(&istride);
    /* a target datatype of two basic types: converted between unlike ranks too */
    MPI_Datatype li;
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { 0, sizeof(long) };
    MPI_Datatype ty[2] = { MPI_LONG, MPI_INT };
    MPI_Type_create_struct(2, bl, disp, ty, &li);
    MPI_Type_commit(&li);
    struct { long l; int i; } pair = { 1, 2 };
    MPI_Win_fence(0, w);
    pair.l += (long)rank << 36, pair.i += rank;
    CHECK_RC(MPI_Put(&pair, 1, li, right, offsetof(cell_t, l), 1, li, w), MPI_SUCCESS);
    MPI_Win_fence(0, w);
    int at8;
    memcpy(&at8, (char *)mem->l + sizeof(long), sizeof at8);
    CHECK(mem->l[0] == 1 + ((long)left << 36) && at8 == 2 + left);
    MPI_Type_free(&li);
    MPI_Type_free(&every2);
    MPI_Win_free(&w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("hetero rma: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
