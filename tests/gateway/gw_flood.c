/*
 * Flow control through the gateways: rank 0 sends COUNT eager messages (and then a few large
 * ones) to the last rank, at another site, which computes (sleeps) for SECONDS before it
 * receives any of them: far more than every buffer on the path holds, so the gateways must
 * stop reading (and the sender's library hold its sends) without failing the link, and
 * everything arrives, in order, once the receiver calls MPI again.
 *   gw_flood [SECONDS [COUNT]]      prints "flood ok" at the receiver
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SMALL = 60000, LARGE = 3 << 20, NLARGE = 8 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int seconds = argc > 1 ? atoi(argv[1]) : 8, count = argc > 2 ? atoi(argv[2]) : 1000;
    unsigned char *buf = malloc(LARGE);
    int last = size - 1;
    if (rank == 0) {
        MPI_Request *req = malloc((size_t)(count + NLARGE) * sizeof *req);
        unsigned char *small = malloc((size_t)count * SMALL);
        for (int i = 0; i < count; i++) {
            memset(small + (size_t)i * SMALL, i & 0xff, SMALL);
            MPI_Isend(small + (size_t)i * SMALL, SMALL, MPI_BYTE, last, i, MPI_COMM_WORLD, &req[i]);
        }
        memset(buf, 0x5a, LARGE);
        for (int i = 0; i < NLARGE; i++)
            MPI_Isend(buf, LARGE, MPI_BYTE, last, count + i, MPI_COMM_WORLD, &req[count + i]);
        MPI_Waitall(count + NLARGE, req, MPI_STATUSES_IGNORE);
        free(req);
        free(small);
    } else if (rank == last) {
        sleep((unsigned)seconds); /* outside MPI: nothing is read meanwhile */
        for (int i = 0; i < count + NLARGE; i++) {
            int n = i < count ? SMALL : LARGE;
            MPI_Recv(buf, n, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            unsigned char want = i < count ? (unsigned char)(i & 0xff) : 0x5a;
            if (buf[0] != want || buf[n - 1] != want) {
                fprintf(stderr, "message %d: wrong data\n", i);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        printf("flood ok\n");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
