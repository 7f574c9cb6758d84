/*
 * A blocking collective across sites does not spin while it waits for the WAN
 * (docs/collectives.md, "Waiting for the WAN"): run with METAMPI_SPIN_US long (1 s), so that
 * an ordinary wait spins through the whole test, and the sites of METAMPI_VIRTUAL_SITES.
 *
 * The last rank (the last site) enters each collective DELAY_MS late. Rank 0 (the first site)
 * measures how long its own thread is runnable inside the call (on a CPU or in the run queue:
 * the same for a spinning wait whatever else the machine runs): MPI_Allreduce (a far wait: it
 * sleeps after one idle pass, so it is runnable for a small part of the delay) against
 * MPI_Iallreduce + MPI_Wait (a nonblocking form keeps the ordinary spin: runnable for nearly
 * all of it). The same pair for MPI_Barrier / MPI_Ibarrier. Every result is checked too.
 *
 * Argument "spin" (run with METAMPI_WAN_SPIN_US as long as METAMPI_SPIN_US): the blocking
 * calls must then spin like the nonblocking ones, so the program fails where the hint is
 * taken away, which shows the check can fail.
 */
#include "../check.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

enum { DELAY_MS = 400 };

static int rank, size;

/* Seconds this thread has been runnable: on a CPU or waiting in the run queue for one
 * (/proc/thread-self/schedstat: the first two numbers, in ns). A spinning wait is runnable
 * all the time whatever the load; a sleeping one is not. -1 where the kernel does not say. */
static double thread_runnable(void)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long cpu, queued;
    int n = f ? fscanf(f, "%llu %llu", &cpu, &queued) : 0;
    if (f)
        fclose(f);
    return n == 2 ? (double)(cpu + queued) * 1e-9 : -1;
}

/* Seconds rank 0's thread is runnable in one call (kind: 0 allreduce, 1 iallreduce + wait,
 * 2 barrier, 3 ibarrier + wait) while the last rank comes DELAY_MS late; rank 0's answer on
 * every rank. */
static double cpu_in_call(int kind)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        struct timespec d = { 0, DELAY_MS * 1000000L };
        nanosleep(&d, NULL);
    }
    int in = rank + 1, out = 0;
    MPI_Request req;
    double t0 = thread_runnable();
    switch (kind) {
    case 0: CHECK(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS); break;
    case 1:
        CHECK(MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) ==
              MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        break;
    case 2: CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS); break;
    default:
        CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    }
    double cpu = thread_runnable() - t0;
    if (kind < 2)
        CHECK(out == size * (size + 1) / 2);
    MPI_Bcast(&cpu, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return cpu;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int expect_spin = argc > 1 && strcmp(argv[1], "spin") == 0;
    if (thread_runnable() < 0) {
        if (rank == 0)
            printf("skipped: no /proc/thread-self/schedstat\n");
        MPI_Finalize();
        return 0;
    }
    cpu_in_call(0); /* warm-up: connections, shared areas */
    static const char *const names[] = { "MPI_Allreduce", "MPI_Barrier" };
    for (int k = 0; k < 2; k++) {
        double far = cpu_in_call(2 * k), spin = cpu_in_call(2 * k + 1);
        if (rank == 0)
            printf("%s: runnable %.1f ms of the %d ms it waited for the last site; the I-form + "
                   "MPI_Wait %.1f ms\n", names[k], far * 1e3, DELAY_MS, spin * 1e3);
        /* a sleeping wait is runnable for a small part of the delay (the run queue of a loaded
         * machine included), a spinning one for nearly all of it */
        int slept = far < DELAY_MS * 0.25e-3 && spin > DELAY_MS * 0.5e-3;
        if (slept == expect_spin && rank == 0)
            fprintf(stderr, "%s %s while it waited for the WAN\n", names[k],
                    expect_spin ? "did not spin" : "spun");
        CHECK(slept != expect_spin);
    }
    MPI_Finalize();
    return 0;
}
