/*
 * A third rank connects to a rank whose only TCP connection is read directly (the transport's
 * one-connection mode, docs/tcp-transport.md "Small messages": epoll only every 16 passes).
 * Run with 3 ranks on 3 hosts (virtual or emulated), so every pair talks TCP and connections
 * open on their first frame:
 *   1. ranks 0 and 1 ping-pong until rank 0 reads its one connection directly; rank 2 stays
 *      outside MPI meanwhile, then sends to rank 0 (its first frame: a new connection);
 *   2. rank 0 keeps ping-ponging with rank 1 (busy, never waiting) with a receive from rank
 *      2 posted, and tests it each round trip: it must complete (the listener is polled);
 *   3. rank 0 answers rank 2, and both sides check the data;
 *   4. rank 1 (whose only connection is to rank 0) waits in a blocking receive from rank 2,
 *      which connects to it for the first time while rank 1 sleeps in the kernel.
 * A rank that never sees the newcomer fails after DEADLINE_S with a line saying where.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { WARM_ROUNDS = 2000, TAG_PING = 1, TAG_LATE = 2, TAG_ANSWER = 3, TAG_STOP = 4,
       TAG_SECOND = 5, LATE_N = 1000 };
static const double DEADLINE_S = 10.0;

static void fail(int rank, const char *what)
{
    fprintf(stderr, "tcp_latecomer: rank %d: %s\n", rank, what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(const int *v, int n, int seed, int rank, const char *what)
{
    for (int i = 0; i < n; i++)
        if (v[i] != seed + i) fail(rank, what);
}

/* Rank 0: ping-pong with rank 1 until the receive from rank 2 completes. */
static void rank0(void)
{
    int one = 0, late[LATE_N];
    for (int i = 0; i < WARM_ROUNDS; i++) {
        MPI_Send(&one, 1, MPI_INT, 1, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv(&one, 1, MPI_INT, 1, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Request r;
    MPI_Irecv(late, LATE_N, MPI_INT, 2, TAG_LATE, MPI_COMM_WORLD, &r);
    double start = MPI_Wtime();
    int done = 0;
    while (!done) {
        MPI_Send(&one, 1, MPI_INT, 1, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv(&one, 1, MPI_INT, 1, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
        if (!done && MPI_Wtime() - start > DEADLINE_S)
            fail(0, "the message of rank 2 (a new connection) never arrived while rank 0 "
                    "was busy with its only connection");
    }
    check(late, LATE_N, 100, 0, "wrong data from rank 2");
    MPI_Send(&one, 1, MPI_INT, 1, TAG_STOP, MPI_COMM_WORLD);
    for (int i = 0; i < LATE_N; i++) late[i] = 200 + i;
    MPI_Send(late, LATE_N, MPI_INT, 2, TAG_ANSWER, MPI_COMM_WORLD);
}

/* Rank 1: echoes rank 0 until told to stop, then waits for rank 2 in a blocking receive. */
static void rank1(void)
{
    int v, second[LATE_N];
    MPI_Status st;
    for (;;) {
        MPI_Recv(&v, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP) break;
        MPI_Send(&v, 1, MPI_INT, 0, TAG_PING, MPI_COMM_WORLD);
    }
    MPI_Recv(second, LATE_N, MPI_INT, 2, TAG_SECOND, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(second, LATE_N, 300, 1, "wrong data from rank 2 (second newcomer)");
}

/* Rank 2: away, then the newcomer; after the answer, away again before rank 1's message. */
static void rank2(void)
{
    int late[LATE_N];
    usleep(300 * 1000);  /* outside MPI: rank 0 is in its one-connection mode by then */
    for (int i = 0; i < LATE_N; i++) late[i] = 100 + i;
    MPI_Send(late, LATE_N, MPI_INT, 0, TAG_LATE, MPI_COMM_WORLD);
    MPI_Recv(late, LATE_N, MPI_INT, 0, TAG_ANSWER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(late, LATE_N, 200, 2, "wrong answer from rank 0");
    usleep(300 * 1000);  /* rank 1 sleeps in its blocking receive meanwhile */
    for (int i = 0; i < LATE_N; i++) late[i] = 300 + i;
    MPI_Send(late, LATE_N, MPI_INT, 1, TAG_SECOND, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "tcp_latecomer: needs 3 ranks, got %d\n", size);
        MPI_Finalize();
        return 2;
    }
    if (rank == 0) rank0();
    else if (rank == 1) rank1();
    else rank2();
    MPI_Finalize();
    if (rank == 0) printf("tcp_latecomer: ok\n");
    return 0;
}
