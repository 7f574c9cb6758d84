/* MPI_Comm_join (MPI-3.1 §10.5.4): pairs of ranks (0-1, 2-3, ...) connect a TCP socket on the
 * loopback (the listener's port travels by MPI_Send), then join over it and exchange a word
 * over the new inter-communicator; a socket whose other end is not an MPI process fails with
 * an error, not a hang. */
#include "../check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0 &&
          getsockname(fd, (struct sockaddr *)&a, &len) == 0);
    *port = ntohs(a.sin_port);
    return fd;
}

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    return fd;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank + 1 < size || rank % 2 == 1) {
        int fd, port;
        if (rank % 2 == 0) {
            int l = listener(&port);
            MPI_Send(&port, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD);
            fd = accept(l, NULL, NULL);
            close(l);
        } else {
            MPI_Recv(&port, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fd = connect_to(port);
        }
        CHECK(fd >= 0);
        MPI_Comm inter;
        CHECK_RC(MPI_Comm_join(fd, &inter), MPI_SUCCESS);
        close(fd);
        int rsize = 0, word = rank, got = -1;
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(rsize == 1);
        MPI_Sendrecv(&word, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        CHECK(got == (rank % 2 == 0 ? rank + 1 : rank - 1));
        CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    }
    /* the other end is not an MPI process: it writes garbage and closes */
    if (rank == 0) {
        int sv[2];
        CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
        CHECK(write(sv[1], "hello\n", 6) == 6);
        close(sv[1]);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Comm inter = MPI_COMM_WORLD;
        CHECK(MPI_Comm_join(sv[0], &inter) != MPI_SUCCESS && inter == MPI_COMM_NULL);
        close(sv[0]);
    }
    MPI_Finalize();
    return 0;
}
