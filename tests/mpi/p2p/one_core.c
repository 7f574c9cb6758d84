/*
 * Ranks that share one CPU must not spin for their full budget while the peer they wait for
 * needs that CPU. Run under `taskset -c 0 mpirun --bind-to none -n 2` (and on virtual hosts,
 * over TCP): 5000 round trips must take well under the time a 2 ms spin per message would
 * (20 s); the limit here (5 s) leaves room for a loaded machine and the sanitizers.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { ROUNDS = 5000 };
    char c = 0;
    double t0 = MPI_Wtime();
    for (int i = 0; i < ROUNDS && size > 1; i++) {
        if (rank == 0) {
            MPI_Send(&c, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&c, 1, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&c, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&c, 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    double took = MPI_Wtime() - t0;
    int rc = 0;
    if (rank == 0 && took > 5.0) {
        fprintf(stderr, "one_core: %d round trips took %.1f s (spinning against the peer?)\n",
                ROUNDS, took);
        rc = 1;
    }
    MPI_Finalize();
    return rc;
}
