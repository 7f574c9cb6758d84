/*
 * An MPI program for the gateway scenarios: rank 0 and the last rank (at different sites)
 * exchange messages of 1 B to 1 MiB, checked, until SECONDS have passed (argv[1]; the last
 * rank learns when from rank 0), then everyone finalizes. Prints "loop ok ROUNDS" at rank 0
 * and "loop running" once the first round trip is done (the scenario's cue).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 1;
    int peer = rank == 0 ? size - 1 : 0, rounds = 0;
    size_t max = 1 << 20;
    unsigned char *buf = malloc(max);
    if (rank == 0 || rank == size - 1) {
        double start = MPI_Wtime();
        for (int go = 1; go; rounds++) {
            size_t n = (size_t)1 << (rounds % 21);
            if (rank == 0) {
                go = MPI_Wtime() - start < seconds;
                MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
                for (size_t i = 0; i < n; i++)
                    buf[i] = (unsigned char)(i * 7 + (size_t)rounds);
                MPI_Send(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(buf, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
            }
            for (size_t i = 0; i < n; i++)
                if (buf[i] != (unsigned char)(i * 7 + (size_t)rounds)) {
                    fprintf(stderr, "rank %d: wrong byte %zu in round %d\n", rank, i, rounds);
                    MPI_Abort(MPI_COMM_WORLD, 3);
                }
            if (rank == 0 && rounds == 0) {
                printf("loop running\n");
                fflush(stdout);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("loop ok %d\n", rounds);
    free(buf);
    MPI_Finalize();
    return 0;
}
