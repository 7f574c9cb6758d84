/*
 * The MPI side of test_tcp.py's flood tests: every rank on a host of its own
 * (METAMPI_VIRTUAL_HOSTS = size), so every pair talks over TCP. Rank 0 prints READY right
 * after MPI_Init (every rank listens by then) and nothing is connected yet; the test floods
 * every rank's listening sockets with idle connections and writes a line to rank 0's stdin,
 * while the other ranks wait in MPI_Recv (inside MPI: they accept). Then rank 0 tells the
 * others to go and every pair exchanges messages of every protocol's size, each over a
 * connection opened during the flood, and checks every byte. Prints DONE at the end.
 */
#include <mpi.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int exchange(int rank, int peer)
{
    static const int sizes[] = { 1, 8192, 40000, 300000, 3 << 20 };
    int bad = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k];
        unsigned char *out = malloc((size_t)n), *in = malloc((size_t)n);
        for (int i = 0; i < n; i++)
            out[i] = (unsigned char)(i * 13 + rank + (int)k);
        MPI_Sendrecv(out, n, MPI_BYTE, peer, (int)k, in, n, MPI_BYTE, peer, (int)k,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n && !bad; i++)
            if (in[i] != (unsigned char)(i * 13 + peer + (int)k)) {
                fprintf(stderr, "rank %d: byte %d of %d from rank %d wrong\n", rank, i, n, peer);
                bad = 1;
            }
        free(out);
        free(in);
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, go = 1, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        printf("READY\n");
        fflush(stdout);
        /* wait for the test's line; MPI_Iprobe keeps this rank inside MPI now and then */
        struct pollfd in = { .fd = 0, .events = POLLIN };
        int flag;
        while (poll(&in, 1, 10) == 0)
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        for (int r = 1; r < size; r++)
            MPI_Send(&go, 1, MPI_INT, r, 99, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* every pair, in one global order (no cycle of waits) */
    for (int i = 0; i < size; i++)
        for (int j = i + 1; j < size; j++)
            if (rank == i || rank == j)
                bad |= exchange(rank, rank == i ? j : i);
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "WRONG\n" : "DONE\n");
    MPI_Finalize();
    return any;
}
