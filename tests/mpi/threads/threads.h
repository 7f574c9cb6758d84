/* Shared by the MPI_THREAD_MULTIPLE tests: start MPI with MULTIPLE, run a body in N threads
 * (argv[1], default 4), join them. */
#ifndef METAMPI_TEST_THREADS_H
#define METAMPI_TEST_THREADS_H

#include "../check.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static inline int threads_init(int *argc, char ***argv)
{
    int provided = -1;
    CHECK_RC(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    int n = *argc > 1 ? atoi((*argv)[1]) : 4;
    CHECK(n >= 1 && n <= 64);
    return n;
}

/* Runs body(i) in threads i = 0..n-1 and waits for them all. */
static inline void threads_run(int n, void *(*body)(void *))
{
    pthread_t t[64];
    for (long i = 0; i < n; i++)
        CHECK(pthread_create(&t[i], NULL, body, (void *)i) == 0);
    for (int i = 0; i < n; i++)
        CHECK(pthread_join(t[i], NULL) == 0);
}

static inline double threads_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
