/* A mix, all threads at once: ring exchanges with a tag per thread (eager and rendezvous),
 * MPI_Sendrecv with MPI_ANY_SOURCE received through MPI_Mprobe, collectives on the thread's
 * own duplicate, nonblocking collectives completed with MPI_Test loops, MPI_Iprobe polling and
 * communicators created and freed — each thread in its own order, so that every pair of these
 * runs concurrently somewhere. */
#include "threads.h"

#include <string.h>

enum { ITERS = 60, BIG = 20000 };

static int rank, size;
static MPI_Comm comms[64];

static void ring(int t, int len)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *out = calloc((size_t)len, sizeof(int)), *in = calloc((size_t)len, sizeof(int));
    for (int i = 0; i < len; i++)
        out[i] = rank * 7 + t + i;
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv(out, len, MPI_INT, next, t, in, len, MPI_INT, prev, t, MPI_COMM_WORLD,
                          &st), MPI_SUCCESS);
    for (int i = 0; i < len; i++)
        CHECK(in[i] == prev * 7 + t + i);
    free(out);
    free(in);
}

static void mprobe_exchange(int t)
{
    int next = (rank + 1) % size, v = rank, got = -1;
    MPI_Request req;
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, next, 500 + t, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    MPI_Message msg;
    MPI_Status st;
    CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, 500 + t, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Mrecv(&got, 1, MPI_INT, &msg, &st), MPI_SUCCESS);
    CHECK(got == (rank + size - 1) % size && st.MPI_SOURCE == got);
    int done = 0;
    while (!done) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 9999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag);
        CHECK_RC(MPI_Test(&req, &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
}

static void collectives(int t, int it)
{
    MPI_Comm c = comms[t];
    int v = it, sum;
    CHECK_RC(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    CHECK(sum == it * size);
    MPI_Request req;
    int b = rank == 0 ? it + t : -1, flag = 0;
    CHECK_RC(MPI_Ibcast(&b, 1, MPI_INT, 0, c, &req), MPI_SUCCESS);
    while (!flag)
        CHECK_RC(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(b == it + t);
}

static void create_free(int t)
{
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(comms[t], &d), MPI_SUCCESS);
    CHECK_RC(MPI_Barrier(d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
}

static void *mix(void *arg)
{
    int t = (int)(long)arg;
    for (int it = 0; it < ITERS; it++) {
        switch ((it + t) % 5) {
        case 0: ring(t, 1 + it % 13); break;
        case 1: ring(t, BIG); break;
        case 2: mprobe_exchange(t); break;
        case 3: collectives(t, it); break;
        case 4: create_free(t); break;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int n = threads_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < n; t++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]), MPI_SUCCESS);
    threads_run(n, mix);
    for (int t = 0; t < n; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
