/*
 * Windows of messages through the gateways, as a streaming-bandwidth benchmark sends them:
 * rank 0 posts WINDOW nonblocking sends of SIZE bytes to the last rank (at another site),
 * which posts as many receives, checks every message and answers with a zero-byte ack;
 * WINDOWS times for each size. A window fills the WAN stream's socket, so its last frames
 * wait in the gateway's open batch for the stream to drain: if nothing but a timer sent that
 * batch, every window would wait for the timer. Rank 0 prints
 * "window ok SIZE SECONDS" per size.
 *   gw_window [WINDOWS [SIZE ...]]     (default 60 windows of 8 KiB and 16 KiB)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64 };

static unsigned char pattern(int window, int msg, size_t i)
{
    return (unsigned char)(window * 31 + msg * 7 + (int)i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int windows = argc > 1 ? atoi(argv[1]) : 60, last = size - 1;
    const char *defaults[] = { "8192", "16384" };
    int nsizes = argc > 2 ? argc - 2 : 2;
    MPI_Request req[WINDOW];
    for (int k = 0; k < nsizes; k++) {
        size_t n = (size_t)atol(argc > 2 ? argv[2 + k] : defaults[k]);
        unsigned char *buf = malloc(n * WINDOW);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int w = 0; w < windows && (rank == 0 || rank == last); w++) {
            for (int m = 0; m < WINDOW; m++) {
                unsigned char *b = buf + (size_t)m * n;
                if (rank == 0) {
                    for (size_t i = 0; i < n; i++)
                        b[i] = pattern(w, m, i);
                    MPI_Isend(b, (int)n, MPI_BYTE, last, m, MPI_COMM_WORLD, &req[m]);
                } else {
                    MPI_Irecv(b, (int)n, MPI_BYTE, 0, m, MPI_COMM_WORLD, &req[m]);
                }
            }
            MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
            if (rank == 0) {
                MPI_Recv(NULL, 0, MPI_BYTE, last, WINDOW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                continue;
            }
            for (int m = 0; m < WINDOW; m++)
                for (size_t i = 0; i < n; i++)
                    if (buf[(size_t)m * n + i] != pattern(w, m, i)) {
                        fprintf(stderr, "window %d, message %d: wrong byte %zu\n", w, m, i);
                        MPI_Abort(MPI_COMM_WORLD, 3);
                    }
            MPI_Send(NULL, 0, MPI_BYTE, 0, WINDOW, MPI_COMM_WORLD);
        }
        if (rank == 0)
            printf("window ok %zu %.3f\n", n, MPI_Wtime() - t0);
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
