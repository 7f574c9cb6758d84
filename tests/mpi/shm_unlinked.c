/* Shared segments cannot leak: once MPI_Init returns, every shared-memory segment this rank
 * has mapped is already unlinked (a crash from then on leaves nothing in /dev/shm, whatever
 * the launcher), and there is one per rank of the host (each rank receives in its own).
 * A message round then proves the unlinked segments still carry traffic. */
#include "check.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    FILE *maps = fopen("/proc/self/maps", "r");
    CHECK(maps != NULL);
    char line[4096];
    int segments = 0;
    while (fgets(line, sizeof line, maps)) {
        if (!strstr(line, "/dev/shm/metampi."))
            continue;
        segments++;
        if (!strstr(line, "(deleted)")) {
            fprintf(stderr, "rank %d: segment still has a name: %s", rank, line);
            CHECK(!"segment unlinked after MPI_Init");
        }
    }
    fclose(maps);
    /* all ranks of this test run on one host */
    CHECK(segments == (size > 1 ? size : 0));

    int token = rank, from = (rank + size - 1) % size;
    MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, from, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
    CHECK(token == from);
    MPI_Finalize();
    if (rank == 0)
        printf("shm_unlinked: ok (%d ranks, %d segments each)\n", size, segments);
    return 0;
}
