#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* mpirun --report's known pattern: in each of ROUNDS rounds (argument, default 3) every rank
 * sends (rank + 1) * 1000 bytes to the next rank and receives from the previous one. */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    char *buf = calloc(1, 100000), *in = calloc(1, 100000);
    for (int i = 0; i < rounds; i++)
        MPI_Sendrecv(buf, (rank + 1) * 1000, MPI_CHAR, (rank + 1) % size, 0, in, 100000,
                     MPI_CHAR, (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    free(buf);
    free(in);
    return 0;
}
