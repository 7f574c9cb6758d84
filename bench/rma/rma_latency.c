/* One-sided latency and bandwidth, OSU-style (osu_put_latency -s lock_all ...): rank 0 is the
 * origin, rank 1 the target (which waits in a barrier meanwhile), on a window from
 * MPI_Win_allocate, every operation followed by MPI_Win_flush inside one lock_all epoch.
 * Prints "op bytes microseconds-per-operation" lines; after each put of 64 KiB or more also
 * "copy bytes microseconds": a plain memcpy of the same bytes into the origin's own window
 * memory, the floor any put on one host can reach. Usage: rma_latency [scale]: the
 * iteration counts (20000 below 64 KiB, 1000 from there) times scale, in (0, 1]. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXBYTES (4 << 20)

enum { PUT, GET, ACC, FOP, CAS };
static const char *const names[] = { "put", "get", "acc", "fop", "cas" };

static double run(int op, int bytes, int iters, MPI_Win win, char *buf, char *res)
{
    long one = 1, cmp = 0;
    double t0 = 0;
    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        switch (op) {
        case PUT: MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win); break;
        case GET: MPI_Get(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win); break;
        case ACC:
            MPI_Accumulate(buf, bytes / 8, MPI_LONG, 1, 0, bytes / 8, MPI_LONG, MPI_SUM, win);
            break;
        case FOP: MPI_Fetch_and_op(&one, res, MPI_LONG, 1, 0, MPI_SUM, win); break;
        case CAS: MPI_Compare_and_swap(&one, &cmp, res, MPI_LONG, 1, 0, win); break;
        }
        MPI_Win_flush(1, win);
    }
    return (MPI_Wtime() - t0) / iters * 1e6;
}

static double copy_floor(int bytes, int iters, char *to, const char *from)
{
    double t0 = 0;
    for (int i = -iters / 10; i < iters; i++) {
        if (i == 0)
            t0 = MPI_Wtime();
        memcpy(to, from, (size_t)bytes);
        __asm__ __volatile__("" : : "r"(to) : "memory");   /* keep every copy */
    }
    return (MPI_Wtime() - t0) / iters * 1e6;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    double scale = argc > 1 ? atof(argv[1]) : 1.0;
    if (!(scale > 0 && scale <= 1))
        scale = 1.0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (!rank)
            fprintf(stderr, "rma_latency: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *base, *buf = malloc(MAXBYTES), *res = malloc(64);
    memset(buf, 1, MAXBYTES);
    MPI_Win win;
    MPI_Win_allocate(MAXBYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    static const struct { int op, bytes; } cases[] = {
        { PUT, 8 }, { GET, 8 }, { ACC, 8 }, { FOP, 8 },
        { PUT, 4096 }, { GET, 4096 }, { PUT, 65536 }, { GET, 65536 },
        { PUT, 1 << 20 }, { GET, 1 << 20 }, { ACC, 65536 }, { CAS, 8 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int n = (int)((cases[c].bytes >= 65536 ? 1000 : 20000) * scale) + 10;
        if (rank == 0) {
            MPI_Win_lock_all(0, win);
            double us = run(cases[c].op, cases[c].bytes, n, win, buf, res);
            MPI_Win_unlock_all(win);
            printf("%s %d %.3f\n", names[cases[c].op], cases[c].bytes, us);
            if (cases[c].op == PUT && cases[c].bytes >= 65536)
                printf("copy %d %.3f\n", cases[c].bytes, copy_floor(cases[c].bytes, n, base, buf));
            fflush(stdout);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    free(buf);
    free(res);
    MPI_Finalize();
    return 0;
}
