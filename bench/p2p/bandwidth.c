/* Streaming bandwidth from rank 0 to rank 1, OSU method (osu_bw): for each size 0 B, 1 B,
 * 2 B, ... max_bytes, rank 0 posts a window of 64 MPI_Isend and waits for them with
 * MPI_Waitall, rank 1 posts 64 MPI_Irecv and MPI_Waitall, then sends a zero-byte ack back.
 * Warm-up windows first, then timed windows; bandwidth = bytes moved / time (MB = 10^6 B).
 * Unlike osu_bw, the messages of a window use distinct buffer slices (up to 64 MiB in all, then
 * the slices are reused), so the first window of each size can be verified message by message
 * (count, content, no byte past the end); a wrong message aborts the job.
 *
 * Usage: mpirun -n 2 bandwidth [max_bytes [scale]]
 * Rank 0 prints one line per size: "<bytes> <iterations> <MB_per_s> <messages_per_s>". */
#include "common.h"

enum { WINDOW = 64, DATA_TAG = 1, ACK_TAG = 2 };
static const char PROG[] = "bandwidth";
static const long SLICE_BYTES_MAX = 64L << 20;

/* Messages of a window go to slices[i % nslices]; each slice has room for a guard byte. */
struct slices {
    unsigned char *base;
    long stride;
    int count;
};

static struct slices slices_for(unsigned char *base, long bytes)
{
    long stride = bytes + 1;
    long n = SLICE_BYTES_MAX / stride;
    if (n > WINDOW) n = WINDOW;
    if (n < 1) n = 1;
    return (struct slices){base, stride, (int)n};
}

static unsigned char *slice(struct slices s, int i)
{
    return s.base + (long)(i % s.count) * s.stride;
}

/* Statuses of the last window (an array, as osu_bw uses; MPI_STATUSES_IGNORE here makes
 * gcc 12 warn about MPICH's prototype). */
static MPI_Status statuses[WINDOW];

/* One window and its ack. Receives are posted one byte bigger than the message, so the guard
 * byte after each slice catches an overrun. */
static void window(struct slices s, long bytes, int rank)
{
    MPI_Request requests[WINDOW];
    if (rank == 0) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Isend(slice(s, i), (int)bytes, MPI_BYTE, 1, DATA_TAG, MPI_COMM_WORLD,
                      &requests[i]);
        MPI_Waitall(WINDOW, requests, statuses);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (int i = 0; i < WINDOW; i++)
            MPI_Irecv(slice(s, i), (int)bytes + 1, MPI_BYTE, 0, DATA_TAG, MPI_COMM_WORLD,
                      &requests[i]);
        MPI_Waitall(WINDOW, requests, statuses);
        MPI_Send(NULL, 0, MPI_BYTE, 0, ACK_TAG, MPI_COMM_WORLD);
    }
}

/* A window in which slice i carries pattern i (messages that reuse a slice carry the same
 * pattern), checked by rank 1. */
static void verify(struct slices s, long bytes, int rank)
{
    for (int i = 0; i < s.count; i++) {
        if (rank == 0) fill(slice(s, i), bytes, i);
        else poison(slice(s, i), bytes);
    }
    window(s, bytes, rank);
    if (rank == 1)
        for (int i = 0; i < s.count; i++) check(PROG, slice(s, i), bytes, i, &statuses[i]);
}

/* Enough for the slices of every size up to max_bytes. */
static size_t buffer_bytes(long max_bytes)
{
    long most = WINDOW * (max_bytes + 1);
    if (most > SLICE_BYTES_MAX) most = SLICE_BYTES_MAX;
    if (most < max_bytes + 1) most = max_bytes + 1;
    return (size_t)most;
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
    unsigned char *buf = xmalloc(buffer_bytes(max_bytes));
    if (rank == 0) printf("# bytes iterations MB_per_s messages_per_s\n");

    for (long bytes = 0; bytes <= max_bytes; bytes = next_size(bytes)) {
        struct slices s = slices_for(buf, bytes);
        /* 1000 windows up to 16 KiB, then about 1 GiB per size, at least 20 windows. */
        int iterations = iterations_for(bytes * WINDOW, 1024.0 * (1 << 20), 20, 1000, scale);
        verify(s, bytes, rank);
        for (int i = 0; i < iterations / 10 + 2; i++) window(s, bytes, rank);
        double start = MPI_Wtime();
        for (int i = 0; i < iterations; i++) window(s, bytes, rank);
        double elapsed = MPI_Wtime() - start;
        if (rank == 0) {
            double messages = (double)iterations * WINDOW;
            printf("%ld %d %.3f %.0f\n", bytes, iterations, messages * bytes / elapsed / 1e6,
                   messages / elapsed);
            fflush(stdout);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
