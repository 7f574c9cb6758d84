/* Shared by the threads family (latency_mt.c, msgrate_mt.c, overlap.c): the clock, the data
 * pattern and its check, a start barrier for threads. Plain C11, POSIX threads and MPI-3.1
 * calls only, so the programs build with any MPI. */
#ifndef BENCH_THREADS_MT_COMMON_H
#define BENCH_THREADS_MT_COMMON_H

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_THREADS = 64, POISON = 0xA5 };

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline void die(const char *prog, const char *what)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "%s: rank %d: %s\n", prog, rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline void *xmalloc(const char *prog, size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die(prog, "out of memory");
    return p;
}

/* A pattern per size and per sender (seed), so a misrouted message does not pass. */
static inline unsigned char pattern_byte(long i, long bytes, int seed)
{
    return (unsigned char)(i * 131 + bytes * 7 + seed * 31 + 1);
}

static inline void fill(unsigned char *buf, long bytes, int seed)
{
    for (long i = 0; i < bytes; i++)
        buf[i] = pattern_byte(i, bytes, seed);
}

/* buf holds bytes + 1: the byte after the message is a guard that must stay POISON. Aborts
 * the job on a wrong count, content or guard: a fast wrong result is not a result. */
static inline void check(const char *prog, const unsigned char *buf, long bytes, int seed,
                  const MPI_Status *status)
{
    int count;
    MPI_Get_count(status, MPI_BYTE, &count);
    if (count != bytes)
        die(prog, "wrong count");
    for (long i = 0; i < bytes; i++)
        if (buf[i] != pattern_byte(i, bytes, seed))
            die(prog, "wrong content");
    if (buf[bytes] != POISON)
        die(prog, "a byte past the message was written");
}

/* MPI_Init_thread at `required`; aborts (with the level obtained) if less is provided. */
static inline void init_thread_level(int *argc, char ***argv, int required, const char *prog)
{
    int provided;
    MPI_Init_thread(argc, argv, required, &provided);
    if (provided < required) {
        char what[96];
        snprintf(what, sizeof what, "MPI_Init_thread provided level %d, needs %d", provided,
                 required);
        die(prog, what);
    }
}

/* The two-rank programs' start: MPI_THREAD_MULTIPLE, 2 ranks, THREADS (1..MAX_THREADS) and an
 * optional scale in (0,1] from the command line; a wrong use ends the job with the usage. */
static inline void start_two_ranks(int *argc, char ***argv, const char *prog, int max_threads,
                                   int *rank, int *threads, double *scale)
{
    int size;
    init_thread_level(argc, argv, MPI_THREAD_MULTIPLE, prog);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    *threads = *argc > 1 ? atoi((*argv)[1]) : 1;
    *scale = *argc > 2 ? atof((*argv)[2]) : 1.0;
    if (size != 2 || *threads < 1 || *threads > max_threads || *scale <= 0 || *scale > 1) {
        if (*rank == 0)
            fprintf(stderr, "usage: mpirun -n 2 %s THREADS(1..%d) [scale in (0,1]]\n", prog,
                    max_threads);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

#endif
