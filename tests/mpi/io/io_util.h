/* Helpers of the I/O tests: a temporary directory made by rank 0 and known to every rank,
 * removed with its contents at the end. */
#ifndef METAMPI_TEST_IO_UTIL_H
#define METAMPI_TEST_IO_UTIL_H

#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char io_dir[256];

static void io_dir_make(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const char *tmp = getenv("TMPDIR");
        snprintf(io_dir, sizeof io_dir, "%s/metampi-io-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        CHECK(mkdtemp(io_dir) != NULL);
    }
    MPI_Bcast(io_dir, sizeof io_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
}

/* dst = io_dir/name */
static const char *io_path(char *dst, size_t n, const char *name)
{
    snprintf(dst, n, "%s/%s", io_dir, name);
    return dst;
}

static void io_dir_remove(void)
{
    int rank;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", io_dir);
        CHECK(system(cmd) == 0);
    }
}

#endif
