/* CHECK(cond, fmt, ...): on failure, names the rank (a variable `rank` in scope), prints the
 * message and aborts the job. */
#ifndef TEST_RMA_CHECK_H
#define TEST_RMA_CHECK_H

#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "rank %d: ", rank);                                            \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
        }                                                                                  \
    } while (0)

#endif
