/*
 * Not a test: latency of barrier, broadcast, reduce and allreduce (MPI_FLOAT sums, like the
 * OSU benchmarks) on MPI_COMM_WORLD, 4 B to 1 MiB. Built twice from this source:
 *   bench_coll_shm (METAMPI_INTERNAL): metampi's shared-memory algorithms called directly
 *     (coll/shm/shm.h), as the collectives call them for a communicator on one host;
 *   any MPI: `mpicc bench.c` against Open MPI or MPICH, for comparison.
 * Output: one line per collective and size: average and worst iteration in microseconds
 * (the slowest rank's average; iterations shrink with the size).
 * Usage: bench [max_bytes] [iterations at small sizes] [only this collective] [from bytes]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef METAMPI_INTERNAL
#include "coll/shm/shm.h"
#include "core/comm.h"
#include "core/op.h"
#include "core/progress.h"
#include "datatype/dtype.h"

static comm_t *world;

static int run(icoll_sched_t *s, int rc)
{
    if (rc == COLL_DECLINED) {
        icoll_sched_discard(s);
        return 0;
    }
    return icoll_sched_run(s) == MPI_SUCCESS;
}
static icoll_sched_t *begin(void)
{
    return icoll_sched_new_op(world, COMM_BLOCKING, COMM_OP_INTERNAL);
}
static int barrier(void)
{
    icoll_sched_t *s = begin();
    return run(s, coll_shm_barrier(s, world));
}
static int bcast(void *buf, int bytes)
{
    icoll_sched_t *s = begin();
    return run(s, coll_shm_bcast(s, world, buf, (size_t)bytes, 0));
}
static int reduce(const float *in, float *out, int n)
{
    icoll_sched_t *s = begin();
    return run(s, coll_shm_reduce(s, world, in, out, (size_t)n, dtype_lookup(MPI_FLOAT),
                                  op_lookup(MPI_SUM), 0));
}
static int allreduce(const float *in, float *out, int n)
{
    icoll_sched_t *s = begin();
    return run(s, coll_shm_allreduce(s, world, in, out, (size_t)n, dtype_lookup(MPI_FLOAT),
                                     op_lookup(MPI_SUM)));
}
#else
static int barrier(void)
{
    return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS;
}
static int bcast(void *buf, int bytes)
{
    return MPI_Bcast(buf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS;
}
static int reduce(const float *in, float *out, int n)
{
    return MPI_Reduce(in, out, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD) == MPI_SUCCESS;
}
static int allreduce(const float *in, float *out, int n)
{
    return MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
}
#endif

static int rank, size;

/* The slowest rank's numbers at rank 0 (point-to-point only: metampi's own collectives are
 * what is measured). */
static void report(const char *what, int bytes, double sum, double worst, int iters)
{
    double mine[2] = { sum / iters, worst }, avg_max = mine[0], worst_max = mine[1];
    if (rank != 0)
        MPI_Send(mine, 2, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
    for (int r = 1; rank == 0 && r < size; r++) {
        double v[2];
        MPI_Recv(v, 2, MPI_DOUBLE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        avg_max = v[0] > avg_max ? v[0] : avg_max;
        worst_max = v[1] > worst_max ? v[1] : worst_max;
    }
    if (rank == 0)
        printf("%-10s %8d %10.2f %10.1f\n", what, bytes, avg_max * 1e6, worst_max * 1e6);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifdef METAMPI_INTERNAL
    world = comm_lookup(MPI_COMM_WORLD);
    barrier(); /* the first call sets the area up */
#endif
    int maxb = argc > 1 ? atoi(argv[1]) : 1 << 20, small_iters = argc > 2 ? atoi(argv[2]) : 10000;
    float *in = malloc((size_t)maxb), *out = malloc((size_t)maxb);
    memset(in, 1, (size_t)maxb);
    memset(out, 0, (size_t)maxb);
    if (rank == 0)
        printf("%-10s %8s %10s %10s\n", "# op", "bytes", "avg_us", "worst_us");
    static const char *names[] = { "barrier", "bcast", "reduce", "allreduce" };
    const char *only = argc > 3 ? argv[3] : NULL;
    int minb = argc > 4 ? atoi(argv[4]) : 4;
    for (int kind = 0; kind < 4; kind++) {
        if (only && strcmp(only, names[kind]))
            continue;
        for (int bytes = minb; bytes <= maxb; bytes *= 2) {
            if (kind == 0 && bytes > minb)
                break;
            int iters = bytes <= 8192 ? small_iters : small_iters / (bytes / 8192) + 20;
            int warm = iters / 10 + 5;
            double sum = 0, worst = 0;
            for (int i = -warm; i < iters; i++) {
                double t = MPI_Wtime();
                int ok = kind == 0   ? barrier()
                         : kind == 1 ? bcast(in, bytes)
                         : kind == 2 ? reduce(in, out, bytes / 4)
                                     : allreduce(in, out, bytes / 4);
                t = MPI_Wtime() - t;
                if (!ok) {
                    fprintf(stderr, "rank %d: collective %d of %d bytes failed or declined\n",
                            rank, kind, bytes);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                if (i >= 0) {
                    sum += t;
                    worst = t > worst ? t : worst;
                }
            }
            report(names[kind], kind == 0 ? 0 : bytes, sum, worst, iters);
        }
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
