/* Active target with MPI_Win_fence: put, get, accumulate (predefined ops, MPI_REPLACE,
 * MAXLOC on a pair type), get_accumulate, fetch_and_op (MPI_NO_OP too), compare_and_swap,
 * with derived datatypes at the origin, the target or both. */
#include "../check.h"
#include "window.h"

#include <stdlib.h>

#define N 64 /* ints in each window */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a;
    MPI_Win win;
    a = test_window(argc, argv, N * sizeof(int), sizeof(int), &win);
    for (int i = 0; i < N; i++)
        a[i] = -1;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* put: everyone writes its rank into slot `rank` of every target */
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++)
        MPI_Put(&rank, 1, MPI_INT, t, rank, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int r = 0; r < size; r++)
        CHECK(a[r] == r);

    /* get the right neighbour's slots (they equal ours) */
    int got[N];
    MPI_Get(got, size, MPI_INT, right, 0, size, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int r = 0; r < size; r++)
        CHECK(got[r] == r);

    /* accumulate: SUM into slot 20 everywhere, MAX into 21, REPLACE by the left neighbour's
     * rank into 22 (one writer) */
    a[20] = 0;
    a[21] = 0;
    MPI_Win_fence(0, win);
    int mine = rank + 1;
    for (int t = 0; t < size; t++) {
        MPI_Accumulate(&mine, 1, MPI_INT, t, 20, 1, MPI_INT, MPI_SUM, win);
        MPI_Accumulate(&mine, 1, MPI_INT, t, 21, 1, MPI_INT, MPI_MAX, win);
    }
    MPI_Accumulate(&rank, 1, MPI_INT, right, 22, 1, MPI_INT, MPI_REPLACE, win);
    MPI_Win_fence(0, win);
    CHECK(a[20] == size * (size + 1) / 2);
    CHECK(a[21] == size);
    CHECK(a[22] == left);

    /* derived datatypes: a strided origin into a contiguous target, a contiguous origin into a
     * strided target, and an indexed accumulate on both sides */
    MPI_Datatype stride2, idx;
    MPI_Type_vector(4, 1, 2, MPI_INT, &stride2);
    MPI_Type_commit(&stride2);
    int bl[3] = { 1, 2, 1 }, dp[3] = { 0, 3, 7 };
    MPI_Type_indexed(3, bl, dp, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    int src[8];
    for (int i = 0; i < 8; i++)
        src[i] = 100 * rank + i;
    for (int i = 30; i < N; i++)
        a[i] = 0;
    MPI_Win_fence(0, win);
    MPI_Put(src, 1, stride2, right, 30, 4, MPI_INT, win);     /* src 0,2,4,6 -> 30..33 */
    MPI_Put(src, 4, MPI_INT, right, 40, 1, stride2, win);     /* src 0..3 -> 40,42,44,46 */
    MPI_Accumulate(src, 1, idx, right, 50, 1, idx, MPI_SUM, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++) {
        CHECK(a[30 + i] == 100 * left + 2 * i);
        CHECK(a[40 + 2 * i] == 100 * left + i);
        CHECK(a[41 + 2 * i] == 0);
    }
    CHECK(a[50] == 100 * left && a[53] == 100 * left + 3 && a[54] == 100 * left + 4);
    CHECK(a[57] == 100 * left + 7 && a[51] == 0 && a[55] == 0);
    /* get with a strided target into a strided origin */
    int back[8] = { 0 };
    MPI_Get(back, 1, stride2, right, 40, 1, stride2, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++)
        CHECK(back[2 * i] == 100 * rank + i && back[2 * i + 1] == 0);

    /* get_accumulate and fetch_and_op on rank 0's counter: every rank fetches a distinct
     * value */
    if (rank == 0)
        a[1] = 0, a[2] = -1;
    MPI_Win_fence(0, win);
    int one = 1, old = -5, fetched = -5;
    MPI_Get_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int sum;
    MPI_Allreduce(&old, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size * (size - 1) / 2);
    MPI_Fetch_and_op(NULL, &fetched, MPI_INT, 0, 1, MPI_NO_OP, win);
    MPI_Win_fence(0, win);
    CHECK(fetched == size);
    MPI_Fetch_and_op(&one, &fetched, MPI_INT, 0, 1, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(fetched >= size && fetched < 2 * size);

    /* compare_and_swap: exactly one rank replaces -1 */
    int expect = -1, result = -7;
    MPI_Compare_and_swap(&rank, &expect, &result, MPI_INT, 0, 2, win);
    MPI_Win_fence(0, win);
    int winners, won = result == -1;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1);
    if (rank == 0)
        CHECK(a[2] >= 0 && a[2] < size);

    /* MAXLOC on MPI_2INT: the largest value wins with its rank */
    MPI_Win_fence(0, win);
    int pair[2] = { rank % 3, rank };
    if (rank == 0)
        a[60] = -1, a[61] = -1;
    MPI_Win_fence(0, win);
    MPI_Accumulate(pair, 1, MPI_2INT, 0, 60, 1, MPI_2INT, MPI_MAXLOC, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0) {
        int best = size >= 3 ? 2 : size - 1;
        CHECK(a[60] == best && a[61] == best);
    }

    /* a large put (beyond any eager limit) with a derived origin type */
    int big = 1 << 18;
    int *bigsrc = malloc(2 * big * sizeof(int)), *bigwin;
    MPI_Win bw;
    bigwin = test_window(argc, argv, big * sizeof(int), sizeof(int), &bw);
    for (int i = 0; i < 2 * big; i++)
        bigsrc[i] = i;
    MPI_Datatype every2;
    MPI_Type_vector(big, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    MPI_Win_fence(0, bw);
    MPI_Put(bigsrc, 1, every2, right, 0, big, MPI_INT, bw);
    MPI_Win_fence(0, bw);
    for (int i = 0; i < big; i++)
        CHECK(bigwin[i] == 2 * i);
    MPI_Get(bigsrc, big, MPI_INT, left, 0, big, MPI_INT, bw);
    MPI_Win_fence(0, bw);
    for (int i = 0; i < big; i++)
        CHECK(bigsrc[i] == 2 * i);
    test_window_free(argc, argv, &bw, bigwin);
    free(bigsrc);
    MPI_Type_free(&every2);

    MPI_Type_free(&stride2);
    MPI_Type_free(&idx);
    test_window_free(argc, argv, &win, a);
    if (rank == 0)
        printf("rma fence: OK on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
