/* Message rate of P pairs of ranks at once, OSU method (osu_mbw_mr): with 2P ranks, rank i
 * < P sends to rank i + P. For each size 1 B, 2 B, ... max_bytes, every sender posts a window
 * of 64 MPI_Isend and waits for them with MPI_Waitall, every receiver posts 64 MPI_Irecv,
 * MPI_Waitall, then sends a zero-byte ack; 10 warm-up windows, timed by rank 0 to choose how
 * many windows fill about half a second (at least 20, at most 100000: an MPI that is slow with
 * more ranks than cores still ends in seconds), then the timed windows between two barriers.
 * Rate = messages of all pairs / rank 0's time (messages per second).
 * The messages of a window go to distinct slices of the receive buffer and the first window of
 * every size is verified message by message (count, content, no byte past the end); a wrong
 * message aborts the job.
 *
 * Usage: mpirun -n 2P msgrate [max_bytes [scale]]   (max_bytes defaults to 64)
 * Rank 0 prints one line per size: "<bytes> <windows> <messages_per_s>". */
#include "common.h"

enum { WINDOW = 64, DATA_TAG = 1, ACK_TAG = 2, DEFAULT_MAX = 64, WARMUP = 10 };
static const double BUDGET_S = 0.5;
static const char PROG[] = "msgrate";

static MPI_Status statuses[WINDOW];

/* Slice i of a window starts at base + i * (bytes + 1): room for the guard byte. */
static unsigned char *slice(unsigned char *base, long bytes, int i)
{
    return base + (long)i * (bytes + 1);
}

static void window(unsigned char *buf, long bytes, int peer, int sender)
{
    MPI_Request requests[WINDOW];
    if (sender) {
        for (int i = 0; i < WINDOW; i++)
            MPI_Isend(slice(buf, bytes, i), (int)bytes, MPI_BYTE, peer, DATA_TAG,
                      MPI_COMM_WORLD, &requests[i]);
        MPI_Waitall(WINDOW, requests, statuses);
        MPI_Recv(NULL, 0, MPI_BYTE, peer, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (int i = 0; i < WINDOW; i++)
            MPI_Irecv(slice(buf, bytes, i), (int)bytes + 1, MPI_BYTE, peer, DATA_TAG,
                      MPI_COMM_WORLD, &requests[i]);
        MPI_Waitall(WINDOW, requests, statuses);
        MPI_Send(NULL, 0, MPI_BYTE, peer, ACK_TAG, MPI_COMM_WORLD);
    }
}

/* A window in which message i carries pattern i + the pair's number, checked on arrival. */
static void verify(unsigned char *buf, long bytes, int peer, int sender, int pair)
{
    for (int i = 0; i < WINDOW; i++) {
        if (sender) fill(slice(buf, bytes, i), bytes, i + pair);
        else poison(slice(buf, bytes, i), bytes);
    }
    window(buf, bytes, peer, sender);
    if (!sender)
        for (int i = 0; i < WINDOW; i++)
            check(PROG, slice(buf, bytes, i), bytes, i + pair, &statuses[i]);
}

int main(int argc, char **argv)
{
    long max_bytes;
    double scale;
    int rank, size;
    MPI_Init(&argc, &argv);
    parse_args(argc, argv, &max_bytes, &scale);
    if (argc < 2) max_bytes = DEFAULT_MAX;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size % 2) {
        if (rank == 0) fprintf(stderr, "%s: needs an even number of ranks, got %d\n", PROG, size);
        MPI_Finalize();
        return 1;
    }
    int pairs = size / 2, sender = rank < pairs;
    int peer = sender ? rank + pairs : rank - pairs, pair = sender ? rank : peer;
    unsigned char *buf = xmalloc((size_t)WINDOW * (size_t)(max_bytes + 1));
    if (rank == 0) printf("# %d pairs; bytes windows messages_per_s\n", pairs);

    for (long bytes = 1; bytes <= max_bytes; bytes *= 2) {
        verify(buf, bytes, peer, sender, pair);
        MPI_Barrier(MPI_COMM_WORLD);
        double warm = MPI_Wtime();
        for (int i = 0; i < WARMUP; i++) window(buf, bytes, peer, sender);
        double per_window = (MPI_Wtime() - warm) / WARMUP;
        int windows = iterations_for(1, per_window > 0 ? BUDGET_S / per_window : 1e9, 20, 100000,
                                     scale);
        MPI_Bcast(&windows, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double start = MPI_Wtime();
        for (int i = 0; i < windows; i++) window(buf, bytes, peer, sender);
        MPI_Barrier(MPI_COMM_WORLD);
        double elapsed = MPI_Wtime() - start;
        if (rank == 0) {
            printf("%ld %d %.0f\n", bytes, windows, (double)pairs * windows * WINDOW / elapsed);
            fflush(stdout);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
