/*
 * metampi demo: a small real MPI program.
 * Each rank says where it runs; a token travels around the ring of ranks; the ranks compute
 * pi by the midpoint rule, each a slice of the interval, and rank 0 collects the slices.
 */
#include <mpi.h>
#include <math.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    printf("rank %d of %d running on %s\n", rank, size, host);

    /* ring: rank 0 starts a token, every rank adds its rank and passes it on */
    int token = 0;
    if (size > 1) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }

    /* pi = integral of 4/(1+x^2) over [0,1] */
    const long n = 10000000;
    double t0 = MPI_Wtime(), h = 1.0 / (double)n, sum = 0.0;
    for (long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    double part = h * sum;
    if (rank == 0) {
        double pi = part;
        for (int r = 1; r < size; r++) {
            MPI_Status st;
            MPI_Recv(&part, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            pi += part;
        }
        printf("ring token: %d (expected %d)\n", token, size * (size - 1) / 2);
        printf("pi is approximately %.12f, error %.3e, computed by %d ranks in %.3f s\n", pi,
               fabs(pi - M_PI), size, MPI_Wtime() - t0);
    } else {
        MPI_Send(&part, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
