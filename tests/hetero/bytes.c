/* Byte-like traffic between ranks of unlike architectures (tests/hetero): MPI_BYTE and
 * MPI_CHAR point-to-point in a ring at eager and rendezvous sizes, then collectives of bytes.
 * Bytes mean the same on every architecture, so this needs no conversion: it checks that
 * everything below the datatype level (frames, transports, gateways) works between
 * big- and little-endian ranks. */
#include "../mpi/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* EXPECT_ARCHS=1: the first and the last rank differ in architecture, so typed data
 * between them, and typed collectives on a communicator of both, are refused with
 * MPI_ERR_TYPE until conversion exists, and bytes still pass afterwards. With HETERO_FATAL=1 the refusal goes to the default handler instead, whose
 * report (checked by the test) names both ranks' architectures. */
static void typed_refusal(int rank, int size)
{
    if (!getenv("EXPECT_ARCHS") || size < 2)
        return;
    int fatal = getenv("HETERO_FATAL") != NULL;
    int v[4] = { 1, 2, 3, 4 }, w[4], cls = 0;
    if (!fatal) {
        /* a collective of ints on a communicator of both architectures: every member refuses */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Error_class(MPI_Allreduce(v, w, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), &cls);
        CHECK(cls == MPI_ERR_TYPE);
        MPI_Error_class(MPI_Bcast(v, 4, MPI_INT, 0, MPI_COMM_WORLD), &cls);
        CHECK(cls == MPI_ERR_TYPE);
    }
    if (rank != 0 && rank != size - 1) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        return;
    }
    int rc = rank == 0 ? MPI_Send(v, 4, MPI_INT, size - 1, 9, MPI_COMM_WORLD)
                       : MPI_Recv(v, 4, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
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
    typed_refusal(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    if (rank == 0)
        printf("hetero bytes: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
