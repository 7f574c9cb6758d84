/* Shared by latency.c and bandwidth.c: message sizes, iteration counts, the data pattern and
 * its check. Plain C11 and MPI-3.1 calls only, so the programs build with any MPI. */
#ifndef BENCH_P2P_COMMON_H
#define BENCH_P2P_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_MAX_BYTES = 4 << 20, POISON = 0xA5 };

/* Sizes 0, 1, 2, 4, ... max_bytes: the next size after `bytes`. */
static inline long next_size(long bytes)
{
    return bytes == 0 ? 1 : bytes * 2;
}

/* Iterations that move about `budget` bytes, clamped to [lo, hi]. */
static inline int iterations_for(long bytes, double budget, int lo, int hi, double scale)
{
    double n = bytes ? budget / (double)bytes : hi;
    if (n > hi) n = hi;
    if (n < lo) n = lo;
    n *= scale;
    return n < 1 ? 1 : (int)n;
}

/* Command line shared by both programs: [max_bytes [scale]]; scale (0, 1] shrinks every
 * iteration count (the runner's --quick). */
static inline void parse_args(int argc, char **argv, long *max_bytes, double *scale)
{
    *max_bytes = argc > 1 ? atol(argv[1]) : DEFAULT_MAX_BYTES;
    *scale = argc > 2 ? atof(argv[2]) : 1.0;
    if (*max_bytes < 0 || *scale <= 0 || *scale > 1) {
        fprintf(stderr, "usage: %s [max_bytes [scale in (0,1]]]\n", argv[0]);
        exit(2);
    }
}

static inline void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* A pattern that differs per size and per message (seed), so a stale or misrouted message
 * does not pass the check. */
static inline unsigned char pattern_byte(long i, long bytes, int seed)
{
    return (unsigned char)(i * 131 + bytes * 7 + seed * 31 + 1);
}

static inline void fill(unsigned char *buf, long bytes, int seed)
{
    for (long i = 0; i < bytes; i++) buf[i] = pattern_byte(i, bytes, seed);
}

/* buf must hold bytes + 1: the byte after the message is a guard that must stay POISON. */
static inline void poison(unsigned char *buf, long bytes)
{
    memset(buf, POISON, (size_t)bytes + 1);
}

/* Checks a received message (count, content, guard byte); on a mismatch, says what is wrong
 * and aborts the job: a fast wrong transport is not a result. */
static inline void check(const char *prog, const unsigned char *buf, long bytes, int seed,
                  const MPI_Status *status)
{
    int rank, count;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_count(status, MPI_BYTE, &count);
    const char *what = NULL;
    long at = -1;
    if (count != bytes) {
        what = "wrong count";
    } else if (buf[bytes] != POISON) {
        what = "byte written past the end of the message";
        at = bytes;
    } else {
        for (long i = 0; i < bytes && !what; i++)
            if (buf[i] != pattern_byte(i, bytes, seed)) what = "wrong data", at = i;
    }
    if (what) {
        fprintf(stderr, "%s: rank %d: %ld-byte message #%d: %s (count %d, offset %ld)\n",
                prog, rank, bytes, seed, what, count, at);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Both programs need exactly two ranks. */
static inline int require_two_ranks(const char *prog)
{
    int size, rank;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "%s: needs exactly 2 ranks, got %d\n", prog, size);
        return 0;
    }
    return 1;
}

#endif
