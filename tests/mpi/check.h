/* Assertions for MPI test programs: a failed check names rank, file and line, then aborts the
 * job so the launcher reports it and the test fails. */
#ifndef METAMPI_TEST_CHECK_H
#define METAMPI_TEST_CHECK_H

#include <mpi.h>
#include <stdio.h>

static inline int check_rank_(void)
{
    int init = 0, fin = 0, r = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL rank %d %s:%d: %s\n", check_rank_(), __FILE__, __LINE__,    \
                    #cond);                                                                    \
            fflush(stderr);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

#define CHECK_RC(expr, expected)                                                               \
    do {                                                                                       \
        int rc_ = (expr);                                                                      \
        if (rc_ != (expected)) {                                                               \
            fprintf(stderr, "FAIL rank %d %s:%d: %s returned %d, expected %d\n",               \
                    check_rank_(), __FILE__, __LINE__, #expr, rc_, (int)(expected));           \
            fflush(stderr);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

#endif
