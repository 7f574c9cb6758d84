/*
 * The MPI side of test_forge.py: three ranks over TCP (METAMPI_VIRTUAL_HOSTS=3: one host
 * each; =2: ranks 0 and 1 share a host). Ranks 0 and 1 exchange messages of every protocol's
 * size; then rank 0 holds live operations of every kind a reply can name — a synchronous
 * rendezvous send and a synchronous eager send to rank 1 (waiting for FIN/CTS and ACK) and a
 * receive from rank 1 — announces READY and keeps calling MPI_Test until a line on its stdin
 * says go, while the test connects to it as another rank and sends forged frames. Rank 2
 * talks to rank 0 only after go, so the test can claim to be rank 2. Then everything
 * completes, every byte is checked, and rank 0 prints DONE: a job a forged frame disturbed
 * without ending it fails here.
 */
#include <mpi.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BIG = 1 << 20, TAG_GO = 78, TAG_HELD = 77, TAG_RNDV = 79, TAG_SYNC = 80 };

static void check(const unsigned char *b, int n, int salt, int rank, const char *what)
{
    for (int i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 31 + salt)) {
            fprintf(stderr, "rank %d: byte %d of %d wrong in %s\n", rank, i, n, what);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
}

static void fill(unsigned char *b, int n, int salt)
{
    for (int i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 31 + salt);
}

static void exchange(int rank, int peer, int salt)
{
    static const int sizes[] = { 0, 1, 100, 8192, 40000, 300000 };
    for (int k = 0; k < (int)(sizeof sizes / sizeof *sizes); k++) {
        int n = sizes[k];
        unsigned char *b = malloc((size_t)n + 1);
        if (rank < peer) {
            fill(b, n, salt + k);
            MPI_Send(b, n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
            MPI_Recv(b, n, MPI_BYTE, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, n, MPI_BYTE, peer, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, n, MPI_BYTE, peer, k, MPI_COMM_WORLD);
        }
        check(b, n, salt + k, rank, "an exchange");
        free(b);
    }
}

/* The attacker holds the ranks' key (a rank of the job, or anyone who read a rank's
 * environment): rank 0 hands it to the test in FORGE_KEY_FILE before MPI_Init takes it out of
 * the environment. */
static void leak_key(void)
{
    const char *file = getenv("FORGE_KEY_FILE"), *key = getenv("METAMPI_RANK_KEY"),
               *rank = getenv("PMI_RANK");
    if (!file || !key || !rank || strcmp(rank, "0") != 0)
        return;
    FILE *f = fopen(file, "w");
    if (f) {
        fputs(key, f);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    leak_key();
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        fprintf(stderr, "forge_victim needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *big = malloc(BIG), small[64];
    char go = 'g', held = 0;
    if (rank == 0) {
        exchange(0, 1, 0);
        MPI_Request rq[3];
        fill(big, BIG, 7);
        fill(small, sizeof small, 9);
        MPI_Issend(big, BIG, MPI_BYTE, 1, TAG_RNDV, MPI_COMM_WORLD, &rq[0]);
        MPI_Issend(small, sizeof small, MPI_BYTE, 1, TAG_SYNC, MPI_COMM_WORLD, &rq[1]);
        MPI_Irecv(&held, 1, MPI_CHAR, 1, TAG_HELD, MPI_COMM_WORLD, &rq[2]);
        printf("READY\n");
        fflush(stdout);
        struct pollfd in = { .fd = 0, .events = POLLIN };
        int flag = 0;
        while (poll(&in, 1, 1) == 0) {
            MPI_Testall(3, rq, &flag, MPI_STATUSES_IGNORE);
            if (flag)
                break;
        }
        if (flag) {
            fprintf(stderr, "rank 0: operations completed that nobody completed\n");
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        MPI_Send(&go, 1, MPI_CHAR, 1, TAG_GO, MPI_COMM_WORLD);
        MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
        if (held != 'h') {
            fprintf(stderr, "rank 0: received a message nobody sent\n");
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        MPI_Send(&go, 1, MPI_CHAR, 2, TAG_GO, MPI_COMM_WORLD);
        exchange(0, 2, 1);
    } else if (rank == 1) {
        exchange(1, 0, 0);
        MPI_Recv(&go, 1, MPI_CHAR, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(big, BIG, MPI_BYTE, 0, TAG_RNDV, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(big, BIG, 7, 1, "the synchronous rendezvous message");
        MPI_Recv(small, sizeof small, MPI_BYTE, 0, TAG_SYNC, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(small, sizeof small, 9, 1, "the synchronous eager message");
        held = 'h';
        MPI_Send(&held, 1, MPI_CHAR, 0, TAG_HELD, MPI_COMM_WORLD);
        exchange(1, 2, 2);
    } else {
        MPI_Recv(&go, 1, MPI_CHAR, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        exchange(2, 0, 1);
        exchange(2, 1, 2);
    }
    free(big);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("DONE\n");
    MPI_Finalize();
    return 0;
}
