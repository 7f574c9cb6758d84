/*
 * The MPI side of test_tcp.py's Vanish tests: a host disappears (its link is cut) while the
 * ranks wait; the job must end within the peer timeout with one line naming a host.
 *   mode "idle":    every pair exchanges once (the connections are open), rank 0 prints
 *                   READY, then every rank waits in MPI_Recv for a message nobody sends: the
 *                   connections are idle, keepalive finds the cut;
 *   mode "zerowin": the last rank computes (never calls MPI again) while rank 0 streams
 *                   messages at it until its window is full, then keeps waiting to send:
 *                   only rank 0 is inside MPI, and its connection to the last rank waits
 *                   for window probes the cut host no longer answers.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, v = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "idle";
    for (int i = 0; i < size; i++)
        for (int j = i + 1; j < size; j++)
            if (rank == i || rank == j)
                MPI_Sendrecv(&rank, 1, MPI_INT, rank == i ? j : i, 0, &v, 1, MPI_INT,
                             rank == i ? j : i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("READY\n");
        fflush(stdout);
    }
    if (strcmp(mode, "zerowin") == 0) {
        if (rank == size - 1)
            for (;;)
                sleep(1000);
        if (rank == 0) {
            enum { N = 4096, MSG = 32 << 10 };
            char *b = calloc(1, MSG);
            MPI_Request *rq = malloc(N * sizeof *rq);
            for (int i = 0; i < N; i++)
                MPI_Isend(b, MSG, MPI_BYTE, size - 1, 1, MPI_COMM_WORLD, &rq[i]);
            MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
        }
    }
    MPI_Recv(&v, 1, MPI_INT, (rank + 1) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d got a message nobody sent\n", rank);
    MPI_Finalize();
    return 1;
}
