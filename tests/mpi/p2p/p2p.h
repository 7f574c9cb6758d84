/* Shared helpers of the point-to-point tests: start-up with the EXPECT_SIZE check, error
 * class assertions that work with any MPI (return codes are codes, not classes), data patterns
 * that depend on sender and size, a barrier made of point-to-point calls only, sleeping and
 * the memory figures of /proc/self/status.
 *
 * The tests use nothing outside the point-to-point chapter besides the environment calls
 * (init, rank, size, error handlers, MPI_Wtime, MPI_Abort), so they build as soon as that
 * chapter is implemented. */
#ifndef METAMPI_TEST_P2P_H
#define METAMPI_TEST_P2P_H

#define _POSIX_C_SOURCE 200809L

#include "../check.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Tag reserved for p2p_barrier(); no test sends on it. Receives with MPI_ANY_TAG must be
 * placed where no barrier message can be on its way to the receiving rank. */
#define P2P_SYNC_TAG 32001

static int p2p_rank = -1, p2p_size = -1;

static inline void p2p_init(int *argc, char ***argv)
{
    CHECK_RC(MPI_Init(argc, argv), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &p2p_rank), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &p2p_size), MPI_SUCCESS);
    const char *e = getenv("EXPECT_SIZE");
    if (e)
        CHECK(p2p_size == atoi(e));
}

static inline void p2p_finish(const char *name)
{
    CHECK_RC(MPI_Finalize(), MPI_SUCCESS);
    if (p2p_rank == 0)
        printf("%s: ok (%d ranks)\n", name, p2p_size);
}

/* Fails unless expr returns an error whose class is cls. */
#define CHECK_ERR(expr, cls)                                                                   \
    do {                                                                                       \
        int rc_ = (expr), class_ = -1;                                                         \
        if (rc_ != MPI_SUCCESS)                                                                \
            MPI_Error_class(rc_, &class_);                                                     \
        if (rc_ == MPI_SUCCESS || class_ != (cls)) {                                           \
            fprintf(stderr, "FAIL rank %d %s:%d: %s returned %d (class %d), expected class %d\n", \
                    check_rank_(), __FILE__, __LINE__, #expr, rc_, class_, (int)(cls));       \
            fflush(stderr);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

static inline int p2p_class(int rc)
{
    int c = -1;
    if (MPI_Error_class(rc, &c) != MPI_SUCCESS)
        return -1;
    return c;
}

/* Byte i of a message identified by seed (mix sender, size, round into it). */
static inline unsigned char p2p_byte(size_t i, unsigned seed)
{
    return (unsigned char)(seed * 131u + (unsigned)i * 7u + (unsigned)(i >> 8) * 3u +
                           (unsigned)(i >> 16) * 5u + (unsigned)(i >> 24));
}

static inline unsigned p2p_seed(int sender, size_t n, int round)
{
    return (unsigned)sender * 2654435761u + (unsigned)n * 40503u + (unsigned)round * 97u + 1u;
}

static inline void p2p_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = p2p_byte(i, seed);
}

/* Index of the first wrong byte, or -1. */
static inline long p2p_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != p2p_byte(i, seed))
            return (long)i;
    return -1;
}

/* Index of the first byte that is not c, or -1. */
static inline long p2p_untouched(const void *buf, size_t n, unsigned char c)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != c)
            return (long)i;
    return -1;
}

/* A barrier of point-to-point calls: everybody reports to rank 0, which then releases all. */
static inline void p2p_barrier(void)
{
    int z = 0;
    if (p2p_rank == 0) {
        for (int i = 1; i < p2p_size; i++)
            CHECK_RC(MPI_Recv(&z, 1, MPI_INT, i, P2P_SYNC_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
        for (int i = 1; i < p2p_size; i++)
            CHECK_RC(MPI_Send(&z, 1, MPI_INT, i, P2P_SYNC_TAG, MPI_COMM_WORLD), MPI_SUCCESS);
    } else {
        CHECK_RC(MPI_Send(&z, 1, MPI_INT, 0, P2P_SYNC_TAG, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_RC(MPI_Recv(&z, 1, MPI_INT, 0, P2P_SYNC_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
    }
}

static inline void p2p_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* A field of /proc/self/status in KiB (VmRSS, VmHWM), or -1. */
static inline long p2p_proc_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long v = -1;
    size_t fl = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, fl) == 0 && line[fl] == ':') {
            v = strtol(line + fl + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

/* Checks that a status describes the message of a receive from MPI_PROC_NULL. */
#define CHECK_PROC_NULL_STATUS(st)                                                             \
    do {                                                                                       \
        int n_ = -1;                                                                           \
        CHECK((st).MPI_SOURCE == MPI_PROC_NULL && (st).MPI_TAG == MPI_ANY_TAG);                \
        CHECK_RC(MPI_Get_count(&(st), MPI_BYTE, &n_), MPI_SUCCESS);                            \
        CHECK(n_ == 0);                                                                        \
    } while (0)

/* The same for a nonblocking or persistent receive from MPI_PROC_NULL, completed by Wait,
 * Test and the like. MPICH 4.0.2 (ch4) deviates from MPI-3.1 3.11 there: it reports source 0
 * and tag 0 (persistent receives: an empty status), so with MPICH only the count is checked. */
#ifdef MPICH
#define CHECK_PROC_NULL_STATUS_NB(st)                                                          \
    do {                                                                                       \
        int n_ = -1;                                                                           \
        CHECK_RC(MPI_Get_count(&(st), MPI_BYTE, &n_), MPI_SUCCESS);                            \
        CHECK(n_ == 0);                                                                        \
    } while (0)
#else
#define CHECK_PROC_NULL_STATUS_NB(st) CHECK_PROC_NULL_STATUS(st)
#endif

/* An empty status (MPI-3.1 3.7.3): source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0, not
 * cancelled. (MPI_ERROR is only checked where the standard says it is set.) */
#define CHECK_EMPTY_STATUS(st)                                                                 \
    do {                                                                                       \
        int n_ = -1, c_ = -1;                                                                  \
        CHECK((st).MPI_SOURCE == MPI_ANY_SOURCE && (st).MPI_TAG == MPI_ANY_TAG);               \
        CHECK_RC(MPI_Get_count(&(st), MPI_BYTE, &n_), MPI_SUCCESS);                            \
        CHECK(n_ == 0);                                                                        \
        CHECK_RC(MPI_Test_cancelled(&(st), &c_), MPI_SUCCESS);                                 \
        CHECK(c_ == 0);                                                                        \
    } while (0)

#endif
