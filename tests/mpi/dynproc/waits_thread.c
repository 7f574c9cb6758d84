/* The waits of process creation let the process's other threads into MPI
 * (MPI_THREAD_MULTIPLE): MPI_Comm_accept waits for the connection by polling mpirun, and
 * MPI_Comm_join for the other end's line on its socket; what they wait for may need another
 * thread's MPI call first.
 *  1. Rank 0 accepts (a thread) and sends the port's name (its main thread, once the accept
 *     has begun); rank 1 receives it and connects.
 *  2. Ranks 0 and 1 connect a loopback TCP socket; rank 0 joins over it (a thread) and its
 *     main thread then sends rank 1 the word that rank 1 waits for before it joins.
 * Each pair exchanges a word over the new inter-communicator and disconnects; other ranks
 * only take part in the barriers. A watchdog turns a deadlock into a failure in seconds. */
#include "../check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static char port[MPI_MAX_PORT_NAME];
static int join_fd = -1;
static MPI_Comm accepted = MPI_COMM_NULL;
static volatile int finished;

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void *watchdog(void *arg)
{
    (void)arg;
    for (int i = 0; i < 150 && !finished; i++)
        sleep_ms(100);
    if (!finished) {
        fprintf(stderr, "FAIL: deadlock (MPI_Comm_accept or MPI_Comm_join kept the other "
                "threads out of MPI)\n");
        fflush(stderr);
        _exit(1);
    }
    return NULL;
}

static void *acceptor(void *arg)
{
    (void)arg;
    CHECK_RC(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &accepted), MPI_SUCCESS);
    return NULL;
}

static void *joiner(void *arg)
{
    (void)arg;
    CHECK_RC(MPI_Comm_join(join_fd, &accepted), MPI_SUCCESS);
    return NULL;
}

/* Ranks 0 and 1: a connected loopback socket (the listener's port travels by MPI_Send). */
static int connected_socket(int rank)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), tcp_port = 0;
    CHECK(fd >= 0);
    if (rank == 0) {
        CHECK(bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0 &&
              getsockname(fd, (struct sockaddr *)&a, &len) == 0);
        tcp_port = ntohs(a.sin_port);
        CHECK_RC(MPI_Send(&tcp_port, 1, MPI_INT, 1, 6, MPI_COMM_WORLD), MPI_SUCCESS);
        int c = accept(fd, NULL, NULL);
        CHECK(c >= 0);
        close(fd);
        return c;
    }
    CHECK_RC(MPI_Recv(&tcp_port, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    a.sin_port = htons((uint16_t)tcp_port);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    return fd;
}

static void exchange(MPI_Comm inter, int word)
{
    int got = -1;
    CHECK_RC(MPI_Sendrecv(&word, 1, MPI_INT, 0, 7, &got, 1, MPI_INT, 0, 7, inter,
                          MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(got == 1 - word);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pthread_t dog;
    CHECK(pthread_create(&dog, NULL, watchdog, NULL) == 0);
    if (size >= 2 && rank == 0) {
        CHECK_RC(MPI_Open_port(MPI_INFO_NULL, port), MPI_SUCCESS);
        pthread_t t;
        CHECK(pthread_create(&t, NULL, acceptor, NULL) == 0);
        sleep_ms(100); /* the acceptor is waiting for the connection by now */
        CHECK_RC(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 5, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK(pthread_join(t, NULL) == 0);
        exchange(accepted, 0);
        CHECK_RC(MPI_Comm_disconnect(&accepted), MPI_SUCCESS);
        CHECK_RC(MPI_Close_port(port), MPI_SUCCESS);
    } else if (rank == 1) {
        CHECK_RC(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 5, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE), MPI_SUCCESS);
        MPI_Comm inter;
        CHECK_RC(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_SUCCESS);
        exchange(inter, 1);
        CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (size >= 2 && rank <= 1) {
        join_fd = connected_socket(rank);
        int go = 1;
        if (rank == 0) {
            pthread_t t;
            CHECK(pthread_create(&t, NULL, joiner, NULL) == 0);
            sleep_ms(100); /* the joiner waits for rank 1's line by now */
            CHECK_RC(MPI_Send(&go, 1, MPI_INT, 1, 8, MPI_COMM_WORLD), MPI_SUCCESS);
            CHECK(pthread_join(t, NULL) == 0);
        } else {
            CHECK_RC(MPI_Recv(&go, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
            CHECK_RC(MPI_Comm_join(join_fd, &accepted), MPI_SUCCESS);
        }
        exchange(accepted, rank);
        CHECK_RC(MPI_Comm_disconnect(&accepted), MPI_SUCCESS);
        close(join_fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    finished = 1;
    CHECK(pthread_join(dog, NULL) == 0);
    MPI_Finalize();
    return 0;
}
