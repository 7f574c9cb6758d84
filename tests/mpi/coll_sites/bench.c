/*
 * Not a test: the time of collectives over several sites, and their WAN messages per call.
 * Run it twice on the same emulated sites, with the site level and without it
 * (METAMPI_COLL_SITES=0), to see what the site level saves:
 *   tests/cluster/run_on_sites.sh --wanemu build/tests/bin/wanemu 2x2x2 build/bin/mpirun \
 *       build/tests/bin/bench_coll_sites
 *
 *   bench_coll_sites [--quick]
 *
 * Per collective and size: a barrier, then `iters` calls; the time per call is the slowest
 * rank's average. WAN messages/bytes: all ranks' sends to other sites during the timed calls,
 * per call. Output: one line per case, "name bytes usec_per_call wan_msgs wan_bytes".
 */
#include "core/wan_stats.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, quick;

static uint64_t wan_msgs(uint64_t *bytes)
{
    uint64_t m, b;
    wan_stats_get(-1, &m, &b);
    *bytes = b;
    return m;
}

typedef void (*call_fn)(void *buf, void *buf2, size_t bytes, MPI_Comm comm);

static void report(const char *name, size_t bytes, call_fn fn, void *a, void *b, MPI_Comm comm)
{
    int iters = bytes >= (1 << 20) ? 5 : bytes >= (64 << 10) ? 20 : 50;
    if (quick)
        iters = iters / 5 > 1 ? iters / 5 : 2;
    fn(a, b, bytes, comm); /* warm-up: connections, shared areas */
    MPI_Barrier(comm);
    uint64_t b0, m0 = wan_msgs(&b0);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        fn(a, b, bytes, comm);
    double t = (MPI_Wtime() - t0) / iters, tmax;
    uint64_t b1, m1 = wan_msgs(&b1), mine[2] = { m1 - m0, b1 - b0 }, sum[2];
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, 0, comm);
    if (rank == 0)
        printf("%-20s %9zu %10.1f %8.1f %12.0f\n", name, bytes, tmax * 1e6,
               (double)sum[0] / iters, (double)sum[1] / iters);
    fflush(stdout);
}

static void c_barrier(void *a, void *b, size_t n, MPI_Comm c)
{
    (void)a, (void)b, (void)n;
    MPI_Barrier(c);
}
static void c_bcast(void *a, void *b, size_t n, MPI_Comm c)
{
    (void)b;
    MPI_Bcast(a, (int)n, MPI_BYTE, 0, c);
}
static void c_reduce(void *a, void *b, size_t n, MPI_Comm c)
{
    MPI_Reduce(a, b, (int)(n / 8), MPI_DOUBLE, MPI_SUM, 0, c);
}
static void c_allreduce(void *a, void *b, size_t n, MPI_Comm c)
{
    MPI_Allreduce(a, b, (int)(n / 8), MPI_DOUBLE, MPI_SUM, c);
}
static void c_allgather(void *a, void *b, size_t n, MPI_Comm c)
{
    MPI_Allgather(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, c);
}
static void c_gather(void *a, void *b, size_t n, MPI_Comm c)
{
    MPI_Gather(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, 0, c);
}
static void c_alltoall(void *a, void *b, size_t n, MPI_Comm c)
{
    MPI_Alltoall(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, c);
}
static void c_neighbor(void *a, void *b, size_t n, MPI_Comm c)
{
    MPI_Neighbor_alltoall(a, (int)n, MPI_BYTE, b, (int)n, MPI_BYTE, c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    size_t max = (size_t)4 << 20;
    char *a = calloc(max * (size_t)size, 1), *b = calloc(max * (size_t)size, 1);
    if (!a || !b)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Comm w = MPI_COMM_WORLD, cart;
    int dims[3] = { 0, 0, 0 }, periods[3] = { 1, 1, 1 };
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(w, 3, dims, periods, 0, &cart);
    if (rank == 0)
        printf("# %d ranks; name bytes usec/call wan-messages/call wan-bytes/call\n", size);
    report("barrier", 0, c_barrier, a, b, w);
    static const size_t sizes[] = { 8, 65536, 1 << 20, 4 << 20 };
    for (int i = 0; i < 4; i++)
        report("bcast", sizes[i], c_bcast, a, b, w);
    for (int i = 0; i < 4; i++)
        report("allreduce", sizes[i], c_allreduce, a, b, w);
    for (int i = 0; i < 3; i++)
        report("reduce", sizes[i], c_reduce, a, b, w);
    static const size_t blocks[] = { 8, 16384, 262144 };
    for (int i = 0; i < 3; i++)
        report("allgather", blocks[i], c_allgather, a, b, w);
    for (int i = 0; i < 3; i++)
        report("gather", blocks[i], c_gather, a, b, w);
    for (int i = 0; i < 3; i++)
        report("alltoall", blocks[i], c_alltoall, a, b, w);
    for (int i = 0; i < 3; i++)
        report("neighbor_alltoall", blocks[i], c_neighbor, a, b, cart);
    MPI_Comm_free(&cart);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
