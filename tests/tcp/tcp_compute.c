/*
 * Compute phases: ranks that stay outside MPI for a while (argv[1] seconds) in the middle of
 * communication, the normal case in science codes. No connection may be lost and no timer
 * may end the job because a peer was away computing.
 *
 * Rank k talks to rank k + size/2 (so every pair crosses the two halves: two virtual or
 * emulated hosts, or two sites), in one of three scenarios, k mod 3:
 *   0  the sender computes right after its first (eager) message, which opened the
 *      connection: the receiver, waiting in MPI_Recv, accepts it while the sender is away;
 *   1  the receiver computes while the sender streams argv[2] MiB (default 8) of eager
 *      messages at it: the receiver's window stays full for the whole phase;
 *   2  the receiver computes before its first receive: the sender's connection waits in the
 *      receiver's accept queue, the sender waits in MPI_Recv for the answer.
 * Then every rank checks every byte, and an MPI_Allreduce over all ranks ends the run.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { MSG = 32 << 10 };

static void compute(int seconds)
{
    sleep((unsigned)seconds);  /* no MPI call: as a computation, from the library's view */
}

static void fill(unsigned char *b, int n, int seed)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 7 + seed);
}

static int check(const unsigned char *b, int n, int seed, int rank, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 7 + seed)) {
            fprintf(stderr, "rank %d: %s: byte %d of %d is wrong\n", rank, what, i, n);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int seconds = argc > 1 ? atoi(argv[1]) : 12;
    int mib = argc > 2 ? atoi(argv[2]) : 8;
    int half = size / 2, bad = 0;
    int sender = rank < half, peer = sender ? rank + half : rank - half;
    int k = sender ? rank : rank - half;
    unsigned char *b = malloc(MSG);
    if (half == 0 || rank >= 2 * half) {
        /* a lone rank (1 rank, or the last of an odd count): nothing to pair */
    } else if (k % 3 == 0) {
        int v[2] = { 1000 + k, 0 };
        if (sender) {
            MPI_Send(v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            compute(seconds);
            v[0]++;
            MPI_Send(v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
        } else {
            MPI_Recv(v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(v + 1, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad |= v[0] != 1000 + k || v[1] != 1001 + k;
        }
    } else if (k % 3 == 1) {
        int n = mib * (1 << 20) / MSG;
        int hello = 0;
        /* one exchange first: the connection is open before the receiver leaves */
        if (sender) {
            MPI_Send(&hello, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
            MPI_Recv(&hello, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            unsigned char *all = malloc((size_t)n * MSG);
            MPI_Request *rq = malloc((size_t)n * sizeof *rq);
            for (int i = 0; i < n; i++) {
                fill(all + (size_t)i * MSG, MSG, i + k);
                MPI_Isend(all + (size_t)i * MSG, MSG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rq[i]);
            }
            MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
            free(all);
            free(rq);
        } else {
            MPI_Recv(&hello, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&hello, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
            compute(seconds);
            for (int i = 0; i < n && !bad; i++) {
                MPI_Recv(b, MSG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad |= check(b, MSG, i + k, rank, "a message sent while it computed");
            }
        }
    } else {
        if (sender) {
            fill(b, MSG, 5 + k);
            MPI_Send(b, MSG, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
            MPI_Recv(b, MSG, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad |= check(b, MSG, 6 + k, rank, "the answer");
        } else {
            compute(seconds);
            MPI_Recv(b, MSG, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            bad |= check(b, MSG, 5 + k, rank, "the message that waited");
            fill(b, MSG, 6 + k);
            MPI_Send(b, MSG, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
        }
    }
    free(b);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf(any ? "compute phases: WRONG DATA\n" : "compute phases: ok (%d s)\n", seconds);
    MPI_Finalize();
    return any;
}
