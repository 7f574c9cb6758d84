/* Messages beyond 2 GiB, at np 2 only: rank 0 sends rank 1 2^31 - 1 MPI_BYTEs (MPI_Send /
 * MPI_Recv), then 300 000 000 MPI_DOUBLEs = 2.4 GB (MPI_Isend / MPI_Irecv). Contents are
 * checked at sampled positions (both ends, around every 2^k, and pseudo-random ones); the
 * status gives the count, MPI_Get_elements_x the element count, and MPI_Get_count in bytes
 * of the 2.4 GB message is MPI_UNDEFINED (does not fit an int). Peak memory: 4.8 GB for the
 * two processes together. */
#include "p2p.h"

#include <limits.h>

enum { T_L = 190, NSAMPLES = 4000 };

static size_t samples[NSAMPLES + 200];
static int nsamples;

static void make_samples(size_t n)
{
    nsamples = 0;
    samples[nsamples++] = 0;
    samples[nsamples++] = n - 1;
    for (size_t p = 1; p < n; p *= 2) {
        samples[nsamples++] = p - 1;
        samples[nsamples++] = p;
        if (p + 1 < n)
            samples[nsamples++] = p + 1;
    }
    unsigned long long x = 88172645463325252ull;
    while (nsamples < NSAMPLES) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        samples[nsamples++] = (size_t)(x % n);
    }
}

static unsigned char byte_at(size_t i) { return (unsigned char)((i * 2654435761u) >> 11 | 1); }

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank;
    CHECK(p2p_size == 2);
    MPI_Status st;
    int count;
    MPI_Count nx;

    /* 2^31 - 1 bytes */
    size_t n = INT_MAX;
    unsigned char *b = malloc(n);
    CHECK(b);
    make_samples(n);
    if (rank == 0) {
        memset(b, 0x5a, n);
        for (int i = 0; i < nsamples; i++)
            b[samples[i]] = byte_at(samples[i]);
        CHECK_RC(MPI_Send(b, INT_MAX, MPI_BYTE, 1, T_L, MPI_COMM_WORLD), MPI_SUCCESS);
    } else {
        memset(b, 0, n);
        CHECK_RC(MPI_Recv(b, INT_MAX, MPI_BYTE, 0, T_L, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == INT_MAX);
        CHECK_RC(MPI_Get_elements_x(&st, MPI_BYTE, &nx), MPI_SUCCESS);
        CHECK(nx == INT_MAX);
        for (int i = 0; i < nsamples; i++)
            CHECK(b[samples[i]] == byte_at(samples[i]));
        /* and a few stretches of the filler in between */
        for (size_t i = 1000000; i < n; i += 400000000)
            for (size_t j = i; j < i + 1000; j++)
                CHECK(b[j] == 0x5a || b[j] == byte_at(j));
    }
    free(b);

    /* 300 000 000 doubles, 2.4 GB */
    const int nd = 300000000;
    double *d = malloc(sizeof(double) * (size_t)nd);
    CHECK(d);
    make_samples((size_t)nd);
    MPI_Request rq;
    if (rank == 0) {
        memset(d, 0, sizeof(double) * (size_t)nd);
        for (int i = 0; i < nsamples; i++)
            d[samples[i]] = (double)samples[i] + 0.25;
        CHECK_RC(MPI_Isend(d, nd, MPI_DOUBLE, 1, T_L, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
        memset(d, 0xff, sizeof(double) * (size_t)nd);
        CHECK_RC(MPI_Irecv(d, nd, MPI_DOUBLE, 0, T_L, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == T_L);
        CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &count), MPI_SUCCESS);
        CHECK(count == nd);
        CHECK_RC(MPI_Get_elements_x(&st, MPI_DOUBLE, &nx), MPI_SUCCESS);
        CHECK(nx == nd);
        CHECK_RC(MPI_Get_elements_x(&st, MPI_BYTE, &nx), MPI_SUCCESS);
        CHECK(nx == (MPI_Count)nd * 8);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == MPI_UNDEFINED);
        for (int i = 0; i < nsamples; i++)
            CHECK(d[samples[i]] == (double)samples[i] + 0.25);
        for (size_t i = 1000; i < (size_t)nd; i += 50000000)
            for (size_t j = i; j < i + 100; j++)
                CHECK(d[j] == 0.0 || d[j] == (double)j + 0.25);
    }
    free(d);
    p2p_finish("large");
    return 0;
}
