/* Concurrent probes. With MPI_ANY_SOURCE, MPI_Probe + MPI_Recv is racy between threads (another
 * thread may receive the probed message): MPI_Mprobe + MPI_Mrecv is the correct way, and every
 * thread uses it here on the same communicator — each probed message must be the one received,
 * of the probed size, and every message must arrive exactly once. Then MPI_Probe with a tag per
 * thread (safe: only that thread receives that tag), and MPI_Improbe polling. */
#include "threads.h"

#include <string.h>

enum { PER_THREAD = 30, BIG = 30000 };

static int rank, size, nthreads;
static int *seen; /* [source * nthreads * PER_THREAD + id] */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static int length_of(int id)
{
    return id % 5 == 4 ? BIG : 2 + id % 9;
}

/* Each thread sends PER_THREAD messages to every rank (ids t*PER_THREAD + k), then receives as
 * many from anyone. */
static void send_all(int t, MPI_Request *reqs, int **bufs)
{
    for (int k = 0; k < PER_THREAD; k++) {
        int id = t * PER_THREAD + k, len = length_of(id);
        bufs[k] = malloc((size_t)len * sizeof(int));
        for (int i = 0; i < len; i++)
            bufs[k][i] = id + i;
        bufs[k][0] = id;
        bufs[k][1] = rank;
    }
    for (int d = 0; d < size; d++)
        for (int k = 0; k < PER_THREAD; k++) {
            int id = t * PER_THREAD + k;
            CHECK_RC(MPI_Isend(bufs[k], length_of(id), MPI_INT, d, 7, MPI_COMM_WORLD,
                               &reqs[d * PER_THREAD + k]), MPI_SUCCESS);
        }
}

static void *mprobe_any(void *arg)
{
    int t = (int)(long)arg;
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)(size * PER_THREAD));
    int **bufs = malloc(sizeof *bufs * PER_THREAD);
    send_all(t, reqs, bufs);
    int *in = malloc(BIG * sizeof(int));
    for (int m = 0; m < size * PER_THREAD; m++) {
        MPI_Message msg;
        MPI_Status st;
        int count = -1;
        if (m % 2) {
            CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
        } else {
            int flag = 0;
            while (!flag)
                CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st),
                         MPI_SUCCESS);
        }
        MPI_Get_count(&st, MPI_INT, &count);
        int src = st.MPI_SOURCE;
        MPI_Status st2;
        CHECK_RC(MPI_Mrecv(in, count, MPI_INT, &msg, &st2), MPI_SUCCESS);
        CHECK(msg == MPI_MESSAGE_NULL);
        int id = in[0];
        CHECK(st2.MPI_SOURCE == src && in[1] == src && id >= 0 && id < nthreads * PER_THREAD);
        CHECK(count == length_of(id));
        for (int i = 2; i < count; i++)
            CHECK(in[i] == id + i);
        pthread_mutex_lock(&seen_lock);
        seen[src * nthreads * PER_THREAD + id]++;
        pthread_mutex_unlock(&seen_lock);
    }
    CHECK_RC(MPI_Waitall(size * PER_THREAD, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int k = 0; k < PER_THREAD; k++)
        free(bufs[k]);
    free(bufs);
    free(reqs);
    free(in);
    return NULL;
}

static void *probe_tagged(void *arg)
{
    int t = (int)(long)arg;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int k = 0; k < PER_THREAD; k++) {
        int len = length_of(k);
        int *out = calloc((size_t)len, sizeof(int)), *in = calloc((size_t)len, sizeof(int));
        out[0] = k;
        MPI_Request req;
        CHECK_RC(MPI_Isend(out, len, MPI_INT, next, 100 + t, MPI_COMM_WORLD, &req), MPI_SUCCESS);
        MPI_Status st;
        CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, 100 + t, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(st.MPI_SOURCE == prev && count == len);
        CHECK_RC(MPI_Recv(in, count, MPI_INT, st.MPI_SOURCE, 100 + t, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(in[0] == k);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
        free(out);
        free(in);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = threads_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    seen = calloc((size_t)(size * nthreads * PER_THREAD), sizeof *seen);
    threads_run(nthreads, mprobe_any);
    for (int i = 0; i < size * nthreads * PER_THREAD; i++)
        CHECK(seen[i] == 1);
    MPI_Barrier(MPI_COMM_WORLD);
    threads_run(nthreads, probe_tagged);
    free(seen);
    MPI_Finalize();
    return 0;
}
