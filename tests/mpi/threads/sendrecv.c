/* Concurrent blocking point-to-point on one communicator: every thread of every rank sends to
 * and receives from the ring neighbours, eager and rendezvous sizes, first with a tag per
 * thread (each message must reach the thread of its tag), then with MPI_ANY_TAG (any thread
 * may get any of the messages: what is checked is that every message arrives exactly once). */
#include "threads.h"

#include <string.h>

enum { ROUNDS = 40, BIG = 40000 /* above every transport's eager limit but TCP's */ };

static int rank, size, nthreads;
static int received[64 * ROUNDS];
static pthread_mutex_t received_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t bytes_of(int round)
{
    return round % 4 == 3 ? BIG * sizeof(int) : (size_t)(round % 7) * sizeof(int);
}

static void fill(int *buf, size_t n, int from, int id)
{
    for (size_t i = 0; i < n / sizeof(int); i++)
        buf[i] = from * 1000003 + id * 31 + (int)i;
}

static void *tagged(void *arg)
{
    int t = (int)(long)arg;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *out = malloc(BIG * sizeof(int)), *in = malloc(BIG * sizeof(int)), *want = malloc(BIG * sizeof(int));
    for (int r = 0; r < ROUNDS; r++) {
        size_t n = bytes_of(r);
        int id = t * ROUNDS + r;
        fill(out, n, rank, id);
        MPI_Request req;
        CHECK_RC(MPI_Isend(out, (int)(n / sizeof(int)), MPI_INT, next, t, MPI_COMM_WORLD, &req),
                 MPI_SUCCESS);
        MPI_Status st;
        CHECK_RC(MPI_Recv(in, BIG, MPI_INT, prev, t, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(st.MPI_TAG == t && st.MPI_SOURCE == prev && (size_t)count == n / sizeof(int));
        fill(want, n, prev, id);
        CHECK(memcmp(in, want, n) == 0);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    free(out);
    free(in);
    free(want);
    return NULL;
}

/* Blocking MPI_Send both ways would need a matching receive posted by some thread first:
 * each thread sends with MPI_Send to next and receives MPI_ANY_TAG from prev. */
static void *any_tag(void *arg)
{
    int t = (int)(long)arg;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *buf = malloc(BIG * sizeof(int));
    for (int r = 0; r < ROUNDS; r++) {
        int id = t * ROUNDS + r;
        int msg[2] = { id, rank };
        MPI_Request req;
        CHECK_RC(MPI_Issend(msg, 2, MPI_INT, next, id, MPI_COMM_WORLD, &req), MPI_SUCCESS);
        MPI_Status st;
        CHECK_RC(MPI_Recv(buf, BIG, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK(st.MPI_TAG == buf[0] && buf[1] == prev && buf[0] >= 0 && buf[0] < nthreads * ROUNDS);
        pthread_mutex_lock(&received_lock);
        received[buf[0]]++;
        pthread_mutex_unlock(&received_lock);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = threads_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    threads_run(nthreads, tagged);
    MPI_Barrier(MPI_COMM_WORLD);
    threads_run(nthreads, any_tag);
    for (int i = 0; i < nthreads * ROUNDS; i++)
        CHECK(received[i] == 1);
    MPI_Finalize();
    return 0;
}
