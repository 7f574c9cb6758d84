/* Ping-pong between ranks 0 and 1 over message sizes 1 B ... max_bytes (powers of 4).
 * Uses only MPI_Send, MPI_Recv and MPI_Wtime, so it runs on any MPI, metampi included.
 *
 * Usage: mpirun -n 2 pingpong [max_bytes]
 * Rank 0 prints one line per size: "<bytes> <iterations> <latency_us> <bandwidth_MBps>",
 * where latency is half the mean round-trip time and bandwidth is bytes / latency
 * (MB = 10^6 bytes). Every size is verified: the message that comes back must be the one
 * sent, otherwise the program exits 1 (a fast wrong transport is not a result). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG = 7, DEFAULT_MAX_BYTES = 4 << 20 };

/* Large messages take longer, so iterations shrink with size; at least 20 keep the mean stable. */
static int iterations_for(long bytes)
{
    long n = (64L << 20) / bytes;
    if (n > 2000) n = 2000;
    if (n < 20) n = 20;
    return (int)n;
}

static void exchange(char *sbuf, char *rbuf, int bytes, int rank, int iterations)
{
    for (int i = 0; i < iterations; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, bytes, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, bytes, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, bytes, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(rbuf, bytes, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long max_bytes = argc > 1 ? atol(argv[1]) : DEFAULT_MAX_BYTES;
    if (size != 2 || max_bytes < 1) {
        if (rank == 0) fprintf(stderr, "pingpong: needs exactly 2 ranks and max_bytes >= 1\n");
        MPI_Finalize();
        return 1;
    }

    char *sbuf = malloc((size_t)max_bytes), *rbuf = malloc((size_t)max_bytes);
    if (!sbuf || !rbuf) MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < max_bytes; i++) sbuf[i] = (char)(i * 131 + 7);

    int status = 0;
    for (long bytes = 1; bytes <= max_bytes; bytes *= 4) {
        int iterations = iterations_for(bytes);
        memset(rbuf, 0, (size_t)bytes);
        exchange(sbuf, rbuf, (int)bytes, rank, iterations / 10 + 1); /* warm-up */
        double start = MPI_Wtime();
        exchange(sbuf, rbuf, (int)bytes, rank, iterations);
        double elapsed = MPI_Wtime() - start;
        if (rank == 0) {
            if (memcmp(sbuf, rbuf, (size_t)bytes) != 0) {
                fprintf(stderr, "pingpong: corrupted %ld-byte message\n", bytes);
                status = 1;
            }
            double latency = elapsed / iterations / 2;
            printf("%ld %d %.3f %.2f\n", bytes, iterations, latency * 1e6, bytes / latency / 1e6);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return status;
}
