/* Ping-pong latency between ranks 0 and 1, OSU method (osu_latency): for each size 0 B,
 * 1 B, 2 B, ... max_bytes, warm-up round trips, then timed round trips of MPI_Send/MPI_Recv;
 * latency is half the mean round trip. Every size is first verified in both directions
 * (count, content, no byte past the end); a wrong message aborts the job.
 *
 * Usage: mpirun -n 2 latency [max_bytes [scale]]
 * Rank 0 prints one line per size: "<bytes> <iterations> <latency_us>". */
#include "common.h"

enum { TAG = 1 };
static const char PROG[] = "latency";

static void round_trips(const unsigned char *sbuf, unsigned char *rbuf, long bytes, int rank,
                        int iterations)
{
    int peer = 1 - rank;
    for (int i = 0; i < iterations; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
        }
    }
}

/* One round trip with distinct patterns each way, checked on arrival. */
static void verify(unsigned char *sbuf, unsigned char *rbuf, long bytes, int rank)
{
    MPI_Status status;
    int peer = 1 - rank;
    fill(sbuf, bytes, rank);          /* rank 0 sends seed 0, rank 1 answers with seed 1 */
    poison(rbuf, bytes);
    if (rank == 0) MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
    MPI_Recv(rbuf, (int)bytes + 1, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &status);
    check(PROG, rbuf, bytes, peer, &status);
    if (rank == 1) MPI_Send(sbuf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    long max_bytes;
    double scale;
    int rank;
    MPI_Init(&argc, &argv);
    parse_args(argc, argv, &max_bytes, &scale);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!require_two_ranks(PROG)) {
        MPI_Finalize();
        return 1;
    }
    unsigned char *sbuf = xmalloc((size_t)max_bytes + 1), *rbuf = xmalloc((size_t)max_bytes + 1);
    if (rank == 0) printf("# bytes iterations latency_us\n");

    for (long bytes = 0; bytes <= max_bytes; bytes = next_size(bytes)) {
        /* 10000 round trips up to 16 KiB, then about 256 MiB each way, at least 100. */
        int iterations = iterations_for(bytes, 256.0 * (1 << 20), 100, 10000, scale);
        verify(sbuf, rbuf, bytes, rank);
        round_trips(sbuf, rbuf, bytes, rank, iterations / 10 + 1);   /* warm-up */
        double start = MPI_Wtime();
        round_trips(sbuf, rbuf, bytes, rank, iterations);
        double elapsed = MPI_Wtime() - start;
        if (rank == 0) {
            printf("%ld %d %.4f\n", bytes, iterations, elapsed / iterations / 2 * 1e6);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
