/*
 * A known plaintext for the WAN security tests: rank 0 sends the last rank (at the other
 * site) 4 KiB messages made of a marker string and the round number, for SECONDS (argv[1]);
 * the last rank checks every byte and sends each message back, which rank 0 checks too. Prints
 * "secret running" after the first round trip and "secret ok ROUNDS" at the end; a wrong
 * byte ends the job with "wrong byte".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARKER "metampi-known-plaintext:"
enum { LEN = 4096 };

static void fill(unsigned char *b, int round)
{
    char head[64];
    int h = snprintf(head, sizeof head, MARKER "%08d:", round);
    for (int i = 0; i < LEN; i++)
        b[i] = (unsigned char)head[i % h];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 1;
    unsigned char buf[LEN], want[LEN];
    int peer = rank == 0 ? size - 1 : 0, go = 1, rounds = 0;
    double start = MPI_Wtime();
    if (rank == 0 || rank == size - 1) {
        for (; go; rounds++) {
            fill(want, rounds);
            if (rank == 0) {
                go = MPI_Wtime() - start < seconds;
                MPI_Send(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
                MPI_Send(want, LEN, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
                MPI_Recv(buf, LEN, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&go, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Recv(buf, LEN, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, LEN, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
            }
            if (memcmp(buf, want, LEN) != 0) {
                fprintf(stderr, "rank %d: wrong byte in round %d\n", rank, rounds);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            if (rank == 0 && rounds == 0) {
                printf("secret running\n");
                fflush(stdout);
            }
        }
    }
    if (rank == 0)
        printf("secret ok %d\n", rounds);
    MPI_Finalize();
    return 0;
}
