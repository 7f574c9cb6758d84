/* Blocking Send/Recv: rings, every pair, wildcards, order, sizes, self, MPI_PROC_NULL,
 * MPI_Get_count, messages that arrive before their receive is posted. */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 8));
}

static int same(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 131u + i * 7u + (i >> 8)))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, count;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* ring with growing sizes, 0 bytes to 4 MiB */
    static const size_t sizes[] = {0, 1, 7, 64, 1000, 4096, 65536, 262147, 1 << 20, 4 << 20};
    unsigned char *sbuf = malloc(4 << 20), *rbuf = malloc(4 << 20);
    CHECK(sbuf && rbuf);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        fill(sbuf, n, (unsigned)(rank * 100 + k));
        memset(rbuf, 0xee, n + 1 < (4u << 20) ? n + 1 : n);
        if (rank % 2 == 0) {
            MPI_Send(sbuf, (int)n, MPI_BYTE, right, (int)k, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)n, MPI_BYTE, left, (int)k, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(rbuf, (int)n, MPI_BYTE, left, (int)k, MPI_COMM_WORLD, &st);
            MPI_Send(sbuf, (int)n, MPI_BYTE, right, (int)k, MPI_COMM_WORLD);
        }
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == (int)k);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == (int)n);
        CHECK(same(rbuf, n, (unsigned)(left * 100 + k)));
    }

    /* every rank sends to every rank (itself included) before receiving anything: all of it
     * is buffered as unexpected messages; received from MPI_ANY_SOURCE and checked by status.
     * (Not MPI_ANY_TAG: a faster rank's messages of the next phase could match it.) */
    for (int d = 0; d < size; d++) {
        int64_t v[3] = {rank, d, (int64_t)rank * 1000 + d};
        MPI_Send(v, 3, MPI_INT64_T, d, 100, MPI_COMM_WORLD);
    }
    int seen = 0;
    for (int i = 0; i < size; i++) {
        int64_t v[3];
        MPI_Recv(v, 3, MPI_INT64_T, MPI_ANY_SOURCE, 100, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 100 && v[0] == st.MPI_SOURCE && v[1] == rank);
        CHECK(v[2] == (int64_t)st.MPI_SOURCE * 1000 + rank);
        CHECK(!(seen & (1 << st.MPI_SOURCE)));
        seen |= 1 << st.MPI_SOURCE;
    }

    /* non-overtaking: messages from one sender with one tag arrive in the order sent, also
     * when received with MPI_ANY_SOURCE and mixed sizes */
    enum { N = 200 };
    if (rank != 0) {
        for (int i = 0; i < N; i++) {
            int len = (i % 5 == 0) ? 20000 : 1;
            int *m = calloc((size_t)len, sizeof *m);
            m[0] = i;
            MPI_Send(m, len, MPI_INT, 0, 5, MPI_COMM_WORLD);
            free(m);
        }
    } else {
        int *next = calloc((size_t)size, sizeof *next);
        int *m = malloc(20000 * sizeof *m);
        for (int i = 0; i < N * (size - 1); i++) {
            MPI_Recv(m, 20000, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
            CHECK(m[0] == next[st.MPI_SOURCE]);
            MPI_Get_count(&st, MPI_INT, &count);
            CHECK(count == (m[0] % 5 == 0 ? 20000 : 1));
            next[st.MPI_SOURCE]++;
        }
        free(next);
        free(m);
    }

    /* a specific tag is matched past earlier messages with other tags; MPI_ANY_TAG then takes
     * the oldest remaining one (rank 1 sends nothing else to rank 0 from here on) */
    if (size > 1 && rank == 1) {
        int a = 1, b = 2, c = 3;
        MPI_Send(&a, 1, MPI_INT, 0, 61, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, 0, 62, MPI_COMM_WORLD);
        MPI_Send(&c, 1, MPI_INT, 0, 63, MPI_COMM_WORLD);
    } else if (size > 1 && rank == 0) {
        int a = 0, b = 0, c = 0;
        MPI_Recv(&b, 1, MPI_INT, 1, 62, MPI_COMM_WORLD, &st);
        MPI_Recv(&a, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 61);
        MPI_Recv(&c, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_TAG == 63 && st.MPI_SOURCE == 1);
        CHECK(a == 1 && b == 2 && c == 3);
    }

    /* MPI_COMM_SELF is a separate context: a message on WORLD does not match on SELF */
    double x = 3.5, y = 0;
    MPI_Send(&x, 1, MPI_DOUBLE, rank, 77, MPI_COMM_WORLD);
    MPI_Send(&x, 1, MPI_DOUBLE, 0, 77, MPI_COMM_SELF);
    MPI_Recv(&y, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 77, MPI_COMM_SELF, &st);
    CHECK(y == 3.5 && st.MPI_SOURCE == 0);
    y = 0;
    MPI_Recv(&y, 1, MPI_DOUBLE, rank, 77, MPI_COMM_WORLD, &st);
    CHECK(y == 3.5 && st.MPI_SOURCE == rank);

    /* MPI_PROC_NULL */
    CHECK_RC(MPI_Send(&x, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    st.MPI_SOURCE = 5;
    CHECK_RC(MPI_Recv(&y, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 0);

    /* MPI_Get_count of a size that is no multiple of the type: MPI_UNDEFINED */
    char three[3] = {1, 2, 3};
    MPI_Send(three, 3, MPI_CHAR, rank, 8, MPI_COMM_WORLD);
    MPI_Recv(rbuf, 8, MPI_CHAR, rank, 8, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_SHORT, &count);
    CHECK(count == MPI_UNDEFINED);
    MPI_Get_count(&st, MPI_CHAR, &count);
    CHECK(count == 3);

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    if (rank == 0)
        printf("sendrecv: ok (%d ranks)\n", size);
    return 0;
}
