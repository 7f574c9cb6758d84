/* The window a test program works on: from MPI_Win_allocate, or, when the program's first
 * argument is "create", MPI_Win_create over memory the program allocated itself (on one
 * host that is direct access by cross-memory attach, not to the window's own segment). */
#ifndef TEST_RMA_WINDOW_H
#define TEST_RMA_WINDOW_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static inline int test_window_created(int argc, char **argv)
{
    return argc > 1 && strcmp(argv[1], "create") == 0;
}

static inline void *test_window(int argc, char **argv, MPI_Aint bytes, int unit, MPI_Win *win)
{
    void *base;
    if (test_window_created(argc, argv)) {
        base = calloc(1, bytes > 0 ? (size_t)bytes : 1);
        MPI_Win_create(base, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, win);
    } else {
        MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
    }
    return base;
}

static inline void test_window_free(int argc, char **argv, MPI_Win *win, void *base)
{
    MPI_Win_free(win);
    if (test_window_created(argc, argv))
        free(base);
}

#endif
