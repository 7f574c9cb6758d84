/* Traffic between ranks of unlike architectures (tests/hetero): MPI_BYTE and MPI_CHAR
 * point-to-point in a ring at eager and rendezvous sizes, then collectives of bytes (bytes
 * mean the same on every architecture: this checks that everything below the datatype level,
 * frames, transports, gateways, works between big- and little-endian ranks); then typed data,
 * which the receiver converts. */
#include "../mpi/check.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* EXPECT_ARCHS=1: the first and the last rank differ in architecture. Typed point-to-point
 * data between them is converted by the receiver (values, not bytes, arrive: ints, longs,
 * doubles, long doubles, a struct and a strided vector, eager and rendezvous sizes, both
 * ways), and so are collectives of a derived type on a communicator of both. */
typedef struct rec {
    int i;
    double d;
    long l;
    char c[3];
    long double ld;
} rec_t;

static MPI_Datatype rec_type(void)
{
    int bl[5] = { 1, 1, 1, 3, 1 };
    MPI_Aint disp[5] = { offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, l),
                         offsetof(rec_t, c), offsetof(rec_t, ld) };
    MPI_Datatype types[5] = { MPI_INT, MPI_DOUBLE, MPI_LONG, MPI_CHAR, MPI_LONG_DOUBLE }, t, r;
    MPI_Type_create_struct(5, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(rec_t), &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

/* n values of each kind from `from` to `to`, checked at `to` */
static void typed_values(int rank, int from, int to, int n)
{
    if (rank != from && rank != to)
        return;
    int *iv = malloc((size_t)n * sizeof *iv);
    long *lv = malloc((size_t)n * sizeof *lv);
    double *dv = malloc(2 * (size_t)n * sizeof *dv);
    rec_t *rv = calloc((size_t)n, sizeof *rv);
    CHECK(iv && lv && dv && rv);
    MPI_Datatype rt = rec_type(), every2;
    MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &every2);
    MPI_Type_commit(&every2);
    if (rank == from) {
        for (int k = 0; k < n; k++) {
            iv[k] = -(k % 2000) * 1000003;
            lv[k] = (long)k * 300000000007L - 5;
            dv[2 * k] = k * 0.25 - 3.5;
            dv[2 * k + 1] = -1;
            rv[k] = (rec_t){ k, k / 3.0, -((long)k << 33), { 'a', 'b', (char)k }, k * 0.125L };
        }
        MPI_Send(iv, n, MPI_INT, to, 1, MPI_COMM_WORLD);
        MPI_Send(lv, n, MPI_LONG, to, 2, MPI_COMM_WORLD);
        MPI_Send(dv, 1, every2, to, 3, MPI_COMM_WORLD);
        MPI_Send(rv, n, rt, to, 4, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        int count = -1;
        MPI_Recv(iv, n, MPI_INT, from, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n);
        MPI_Recv(lv, n, MPI_LONG, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(dv, n, MPI_DOUBLE, from, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(rv, n, rt, from, 4, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, rt, &count);
        CHECK(count == n);
        for (int k = 0; k < n; k++) {
            CHECK(iv[k] == -(k % 2000) * 1000003);
            CHECK(lv[k] == (long)k * 300000000007L - 5);
            CHECK(dv[k] == k * 0.25 - 3.5);
            CHECK(rv[k].i == k && rv[k].d == k / 3.0 && rv[k].l == -((long)k << 33));
            CHECK(rv[k].c[0] == 'a' && rv[k].c[2] == (char)k && rv[k].ld == k * 0.125L);
        }
    }
    MPI_Type_free(&rt);
    MPI_Type_free(&every2);
    free(iv);
    free(lv);
    free(dv);
    free(rv);
}

static void typed_data(int rank, int size)
{
    if (!getenv("EXPECT_ARCHS") || size < 2)
        return;
    for (int n = 1; n <= 20000; n *= 141) {   /* 1, 141, 19881: eager and rendezvous */
        typed_values(rank, 0, size - 1, n);
        typed_values(rank, size - 1, 0, n);
    }
    /* collectives of a derived datatype on a communicator of both architectures: values
     * arrive (tests/hetero/colls_derived.c has every collective) */
    int v[4] = { 1, 2, 3 * rank, -4 }, w[4];
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    CHECK_RC(MPI_Allreduce(v, w, 2, pair, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(w[0] == size && w[1] == 2 * size && w[2] == 3 * size * (size - 1) / 2 &&
          w[3] == -4 * size);
    CHECK_RC(MPI_Bcast(v, 2, pair, size - 1, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(v[2] == 3 * (size - 1) && v[3] == -4);
    MPI_Type_free(&pair);
}

static unsigned char pattern(size_t i, int seed)
{
    return (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

static void ring(int rank, int size, size_t n, MPI_Datatype type)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *out = malloc(n + 1), *in = malloc(n + 1);
    CHECK(out && in);
    for (size_t i = 0; i < n; i++)
        out[i] = pattern(i, rank);
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv(out, (int)n, type, right, 7, in, (int)n, type, left, 7,
                          MPI_COMM_WORLD, &st), MPI_SUCCESS);
    int count = -1;
    MPI_Get_count(&st, type, &count);
    CHECK(count == (int)n && st.MPI_SOURCE == left);
    for (size_t i = 0; i < n; i++)
        CHECK(in[i] == pattern(i, left));
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t sizes[] = { 0, 1, 100, 8000, 70000, 1 << 20 };
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        ring(rank, size, sizes[k], MPI_BYTE);
        ring(rank, size, sizes[k], MPI_CHAR);
    }
    /* collectives of bytes: every algorithm moves them unchanged */
    enum { N = 5000 };
    unsigned char *buf = malloc((size_t)N * (size_t)size);
    CHECK(buf);
    for (int root = 0; root < size; root++) {
        for (size_t i = 0; i < N; i++)
            buf[i] = rank == root ? pattern(i, root) : 0;
        MPI_Bcast(buf, N, MPI_BYTE, root, MPI_COMM_WORLD);
        for (size_t i = 0; i < N; i++)
            CHECK(buf[i] == pattern(i, root));
    }
    unsigned char mine[N];
    for (size_t i = 0; i < N; i++)
        mine[i] = pattern(i, rank + 1);
    MPI_Allgather(mine, N, MPI_BYTE, buf, N, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (size_t i = 0; i < N; i++)
            CHECK(buf[(size_t)r * N + i] == pattern(i, r + 1));
    /* communicators made by unlike ranks together (context ids agreed between them) */
    MPI_Comm dup, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(dup, rank % 2, size - rank, &half);
    int hsize, hrank;
    MPI_Comm_size(half, &hsize);
    MPI_Comm_rank(half, &hrank);
    CHECK(hsize == (size + 1 - rank % 2) / 2 && hrank == hsize - 1 - rank / 2);
    for (size_t i = 0; i < N; i++)
        buf[i] = hrank == 0 ? pattern(i, rank) : 0;
    MPI_Bcast(buf, N, MPI_BYTE, 0, half);
    int leader = rank % 2 + 2 * (hsize - 1);
    for (size_t i = 0; i < N; i++)
        CHECK(buf[i] == pattern(i, leader));
    MPI_Bcast(buf, N, MPI_BYTE, size - 1, dup);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);
    typed_data(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    if (rank == 0)
        printf("hetero bytes: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
