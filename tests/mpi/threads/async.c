/* Asynchronous progress (METAMPI_ASYNC_PROGRESS=1): ranks that compute without calling MPI
 * still serve their peers.
 *
 * 1. Every rank but 0 posts a receive of 4 MiB from rank 0 and joins an MPI_Ibarrier, then
 *    computes for 2 s without any MPI call. Rank 0's MPI_Isend and its MPI_Ibarrier must
 *    complete long before those 2 s are over (rank 0's timestamps). While they compute, the
 *    ranks' progress threads must sleep in the kernel: the process may use hardly more CPU
 *    than the computing thread itself.
 * 2. Passive target: rank 0 locks every other rank's window, puts into it, gets from it and
 *    unlocks, while those ranks compute for 2 s; again well before they are done.
 *
 * Without the progress thread rank 0 waits for the 2 s (the control run: argument "control"
 * only prints the times). */
#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { BYTES = 4 << 20 };
static const double COMPUTE_S = 2.0, PROMPT_S = 1.0;

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double process_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Computes for COMPUTE_S seconds without MPI; returns the CPU seconds the rest of the process
 * (the progress thread) used meanwhile. */
static double compute(void)
{
    double cpu0 = process_cpu(), self0 = now(CLOCK_THREAD_CPUTIME_ID);
    double end = now(CLOCK_MONOTONIC) + COMPUTE_S;
    volatile double x = 1;
    while (now(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    return (process_cpu() - cpu0) - (now(CLOCK_THREAD_CPUTIME_ID) - self0);
}

int main(int argc, char **argv)
{
    int control = argc > 1 && strcmp(argv[1], "control") == 0;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        MPI_Finalize();
        return 0;
    }
    char *buf = malloc(BYTES);
    int *winmem;
    MPI_Win win;
    CHECK_RC(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &winmem, &win), MPI_SUCCESS);
    winmem[0] = -1;
    winmem[1] = 1000 + rank;
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1: a rendezvous transfer and a nonblocking barrier */
    if (rank == 0) {
        MPI_Request *reqs = malloc(sizeof *reqs * (size_t)size);
        memset(buf, 7, BYTES);
        double t0 = now(CLOCK_MONOTONIC);
        for (int r = 1; r < size; r++)
            CHECK_RC(MPI_Isend(buf, BYTES, MPI_BYTE, r, 1, MPI_COMM_WORLD, &reqs[r - 1]),
                     MPI_SUCCESS);
        CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[size - 1]), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&reqs[size - 1], MPI_STATUS_IGNORE), MPI_SUCCESS);
        double t_barrier = now(CLOCK_MONOTONIC) - t0;
        CHECK_RC(MPI_Waitall(size - 1, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        double t_send = now(CLOCK_MONOTONIC) - t0;
        printf("async: Isend of 4 MiB to %d computing rank(s) done after %.3f s, Ibarrier after "
               "%.3f s (they compute %.1f s)\n", size - 1, t_send, t_barrier, COMPUTE_S);
        CHECK(control || (t_send < PROMPT_S && t_barrier < PROMPT_S));
        free(reqs);
    } else {
        MPI_Request reqs[2];
        memset(buf, 0, BYTES);
        CHECK_RC(MPI_Irecv(buf, BYTES, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &reqs[0]), MPI_SUCCESS);
        CHECK_RC(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[1]), MPI_SUCCESS);
        double others = compute();
        CHECK_RC(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        CHECK(buf[0] == 7 && buf[BYTES - 1] == 7);
        printf("async: rank %d: the rest of the process used %.3f s of CPU while it computed "
               "%.1f s\n", rank, others, COMPUTE_S);
        CHECK(control || others < 0.1 * COMPUTE_S);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2: passive target */
    if (rank == 0) {
        double t0 = now(CLOCK_MONOTONIC);
        for (int r = 1; r < size; r++) {
            int v = 500 + r, got = -1;
            CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win), MPI_SUCCESS);
            CHECK_RC(MPI_Put(&v, 1, MPI_INT, r, 0, 1, MPI_INT, win), MPI_SUCCESS);
            CHECK_RC(MPI_Get(&got, 1, MPI_INT, r, 1, 1, MPI_INT, win), MPI_SUCCESS);
            CHECK_RC(MPI_Win_unlock(r, win), MPI_SUCCESS);
            CHECK(got == 1000 + r);
        }
        double t = now(CLOCK_MONOTONIC) - t0;
        printf("async: lock, put, get, unlock at %d computing rank(s) took %.3f s\n", size - 1, t);
        CHECK(control || t < PROMPT_S);
    } else {
        compute();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) {
        CHECK_RC(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win), MPI_SUCCESS);
        CHECK(winmem[0] == 500 + rank);
        CHECK_RC(MPI_Win_unlock(rank, win), MPI_SUCCESS);
    }
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
