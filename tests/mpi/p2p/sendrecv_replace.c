/* MPI_Sendrecv and MPI_Sendrecv_replace: ring shifts both ways with different send and
 * receive sizes and types, wildcards on the receive side, with itself (np 1 and explicitly),
 * MPI_PROC_NULL on either side (a non-periodic shift), sizes up to 2 MiB, a receive buffer
 * larger than the message, MPI_STATUS_IGNORE. */
#include "p2p.h"

enum { T_S = 100, T_R = 101, BIG = 2 << 20 };
static const int sizes[] = {0, 1, 64, 4097, 65536, 1 << 20, BIG};
#define NS 7

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, count;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *sb = malloc(BIG), *rb = malloc(BIG + 16);
    CHECK(sb && rb);
    MPI_Status st;

    for (int k = 0; k < NS; k++) {
        int n = sizes[k];
        /* shift right: send n bytes, receive into a larger buffer */
        p2p_fill(sb, (size_t)n, p2p_seed(rank, (size_t)n, k));
        memset(rb, 0xee, (size_t)n + 16);
        CHECK_RC(MPI_Sendrecv(sb, n, MPI_BYTE, right, T_S, rb, n + 16, MPI_BYTE, left, T_S,
                              MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_S);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == n && p2p_verify(rb, (size_t)n, p2p_seed(left, (size_t)n, k)) == -1);
        CHECK(p2p_untouched(rb + n, 16, 0xee) == -1);

        /* shift left, receiving from MPI_ANY_SOURCE (not MPI_ANY_TAG: the left neighbour's
         * next T_S may be there already), a different tag and size each way: rank r sends
         * n/(r+1) bytes */
        int mine = n / (rank + 1), theirs = n / (right + 1);
        p2p_fill(sb, (size_t)mine, p2p_seed(rank, (size_t)mine, k));
        CHECK_RC(MPI_Sendrecv(sb, mine, MPI_BYTE, left, T_R, rb, BIG, MPI_BYTE, MPI_ANY_SOURCE,
                              T_R, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK(st.MPI_SOURCE == right && st.MPI_TAG == T_R);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == theirs);
        CHECK(p2p_verify(rb, (size_t)theirs, p2p_seed(right, (size_t)theirs, k)) == -1);

        /* Sendrecv_replace around the ring, in doubles where the size allows */
        int nd = n / 8;
        double *d = (double *)(void *)sb;
        for (int i = 0; i < nd; i++)
            d[i] = rank * 1e6 + i + k;
        CHECK_RC(MPI_Sendrecv_replace(d, nd, MPI_DOUBLE, right, T_S, left, T_S, MPI_COMM_WORLD,
                                      &st), MPI_SUCCESS);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_S);
        CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &count), MPI_SUCCESS);
        CHECK(count == nd);
        for (int i = 0; i < nd; i++)
            CHECK(d[i] == left * 1e6 + i + k);
    }

    /* with itself */
    int a[3] = {1, 2, 3}, b[3] = {0, 0, 0};
    CHECK_RC(MPI_Sendrecv(a, 3, MPI_INT, rank, 7, b, 3, MPI_INT, rank, 7, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    CHECK(b[0] == 1 && b[2] == 3 && st.MPI_SOURCE == rank);
    p2p_fill(sb, BIG, 99);
    CHECK_RC(MPI_Sendrecv_replace(sb, BIG, MPI_BYTE, rank, 8, rank, 8, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(p2p_verify(sb, BIG, 99) == -1);
    /* on MPI_COMM_SELF, where nothing else is in flight: full wildcards */
    CHECK_RC(MPI_Sendrecv(a, 3, MPI_INT, 0, 9, b, 3, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                          MPI_COMM_SELF, &st), MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 9 && b[1] == 2);

    /* non-periodic shift: the first rank receives from MPI_PROC_NULL, the last sends to it */
    int to = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
    int from = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int x = rank, y = -7;
    CHECK_RC(MPI_Sendrecv(&x, 1, MPI_INT, to, 10, &y, 1, MPI_INT, from, 10, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    if (from == MPI_PROC_NULL) {
        CHECK(y == -7);
        CHECK_PROC_NULL_STATUS(st);
    } else {
        CHECK(y == rank - 1 && st.MPI_SOURCE == from);
    }
    x = rank;
    CHECK_RC(MPI_Sendrecv_replace(&x, 1, MPI_INT, from, 11, to, 11, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    if (to == MPI_PROC_NULL) {
        CHECK(x == rank); /* untouched */
        CHECK_PROC_NULL_STATUS(st);
    } else {
        CHECK(x == rank + 1 && st.MPI_SOURCE == to && st.MPI_TAG == 11);
    }
    CHECK_RC(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);

    free(sb);
    free(rb);
    p2p_finish("sendrecv_replace");
    return 0;
}
