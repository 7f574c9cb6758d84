/* Programs that use MPI wrongly, one way per mode (argv[1]); the driver (misuse_test.py)
 * checks that each is reported clearly and ends the job. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank = 0, size = 1, v = 0;
    if (strcmp(mode, "before-init") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "bad-send") == 0) {
        /* the last rank sends to a rank that does not exist; the others wait for ever */
        if (rank == size - 1)
            MPI_Send(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "truncate") == 0) {
        int big[2] = {1, 2};
        /* rank 0 sends to itself; the others wait */
        if (rank == 0) {
            MPI_Send(big, 2, MPI_INT, 0, 3, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(mode, "init-twice") == 0) {
        MPI_Init(&argc, &argv);
    } else if (strcmp(mode, "after-finalize") == 0) {
        MPI_Finalize();
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        return 0;
    }
    MPI_Finalize();
    printf("misuse: mode '%s' was not caught\n", mode);
    return 0;
}
