/*
 * The MPI side of test_tcp.py: two ranks on different hosts (over TCP) exchange messages of
 * every protocol's size, announce READY and wait for a line on rank 0's stdin while the test
 * attacks their listening sockets, then exchange again and check every byte: a job that an
 * attack disturbed fails here.
 *   mode "attack": as above;
 *   mode "die":    rank 1 kills itself (SIGKILL) while rank 0 waits for its message;
 *   mode "plain":  one exchange, then MPI_Finalize.
 */
#include <mpi.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void exchange(int rank, int round)
{
    static const int sizes[] = { 0, 1, 100, 8192, 40000, 300000, 3 << 20 };
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k];
        unsigned char *b = malloc((size_t)n + 1);
        if (rank == 0) {
            for (int i = 0; i < n; i++)
                b[i] = (unsigned char)(i * 31 + round + (int)k);
            MPI_Send(b, n, MPI_BYTE, 1, (int)k, MPI_COMM_WORLD);
            MPI_Recv(b, n, MPI_BYTE, 1, (int)k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, n, MPI_BYTE, 0, (int)k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, n, MPI_BYTE, 0, (int)k, MPI_COMM_WORLD);
        }
        for (int i = 0; i < n; i++)
            if (b[i] != (unsigned char)(i * 31 + round + (int)k)) {
                fprintf(stderr, "rank %d: byte %d of %d wrong in round %d\n", rank, i, n, round);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        free(b);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "attack";
    if (size != 2) {
        fprintf(stderr, "tcp_victim needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    exchange(rank, 0);
    if (strcmp(mode, "plain") == 0) {
        MPI_Finalize();
        return 0;
    }
    if (strcmp(mode, "die") == 0) {
        if (rank == 1) {
            printf("DYING\n");
            fflush(stdout);
            usleep(200 * 1000);
            raise(SIGKILL);
        }
        char c;
        MPI_Recv(&c, 1, MPI_CHAR, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 0 got a message from a dead rank\n");
        return 1;
    }
    /* Attack time: rank 1 waits in MPI_Recv, rank 0 keeps calling MPI_Test (a rank makes
     * progress, and so accepts connections, only inside MPI calls) until its stdin says go. */
    MPI_Barrier(MPI_COMM_WORLD);
    char go = 0;
    if (rank == 0) {
        MPI_Request rq;
        int flag = 0;
        MPI_Irecv(&go, 1, MPI_CHAR, 1, 77, MPI_COMM_WORLD, &rq);
        printf("READY\n");
        fflush(stdout);
        struct pollfd in = { .fd = 0, .events = POLLIN };
        while (poll(&in, 1, 1) == 0)
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        if (flag)
            MPI_Abort(MPI_COMM_WORLD, 5); /* nobody sent that */
        MPI_Send(&go, 1, MPI_CHAR, 1, 78, MPI_COMM_WORLD);
        MPI_Recv(&go, 1, MPI_CHAR, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&go, 1, MPI_CHAR, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&go, 1, MPI_CHAR, 0, 77, MPI_COMM_WORLD);
        MPI_Send(&go, 1, MPI_CHAR, 0, 77, MPI_COMM_WORLD);
    }
    exchange(rank, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("DONE\n");
    MPI_Finalize();
    return 0;
}
