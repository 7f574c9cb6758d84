/* Requests shared between threads: producer threads start receives and sends and publish
 * their requests; one consumer thread completes them with MPI_Waitany and MPI_Testsome while
 * the producers go on. Then generalized requests: a thread waiting in MPI_Wait on one must be
 * woken promptly when another thread calls MPI_Grequest_complete (measured; the old bound was
 * the progress engine's 250 ms sleep). */
#include "threads.h"

#include <unistd.h>

enum { PER_PRODUCER = 40, MAX_REQS = 64 * PER_PRODUCER * 2 };

static int rank, size, nproducers;
static MPI_Request reqs[MAX_REQS];
static int recvbuf[MAX_REQS], sendbuf[MAX_REQS];
static int published; /* reqs[0..published) are set */
static pthread_mutex_t pub_lock = PTHREAD_MUTEX_INITIALIZER;

static void *producer(void *arg)
{
    int t = (int)(long)arg;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int k = 0; k < PER_PRODUCER; k++) {
        int id = t * PER_PRODUCER + k;
        MPI_Request r[2];
        sendbuf[id] = id * 10 + rank;
        CHECK_RC(MPI_Irecv(&recvbuf[id], 1, MPI_INT, prev, id, MPI_COMM_WORLD, &r[0]),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Isend(&sendbuf[id], 1, MPI_INT, next, id, MPI_COMM_WORLD, &r[1]),
                 MPI_SUCCESS);
        pthread_mutex_lock(&pub_lock);
        reqs[published++] = r[0];
        reqs[published++] = r[1];
        pthread_mutex_unlock(&pub_lock);
        if (k % 8 == 0)
            usleep(100);
    }
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    int total = nproducers * PER_PRODUCER * 2, completed = 0, use_testsome = 0;
    int idx[MAX_REQS];
    while (completed < total) {
        pthread_mutex_lock(&pub_lock);
        int n = published;
        pthread_mutex_unlock(&pub_lock);
        if (n == 0 || completed == n) { /* everything published so far is done */
            usleep(50);
            continue;
        }
        /* the handles this thread reads are written by producers before they published them
         * under pub_lock; a completed one becomes MPI_REQUEST_NULL, which this thread alone
         * writes */
        if (use_testsome ^= 1) {
            int outcount;
            CHECK_RC(MPI_Testsome(n, reqs, &outcount, idx, MPI_STATUSES_IGNORE), MPI_SUCCESS);
            CHECK(outcount != MPI_UNDEFINED);
            completed += outcount;
        } else {
            int i;
            CHECK_RC(MPI_Waitany(n, reqs, &i, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK(i != MPI_UNDEFINED);
            completed++;
        }
    }
    return NULL;
}

static double completed_at;
static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int greq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static void *completer(void *arg)
{
    MPI_Request r = *(MPI_Request *)arg;
    usleep(300000); /* the waiter is asleep by now (its spin is 2 ms at most) */
    completed_at = threads_now();
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = threads_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nproducers = n > 1 ? n - 1 : 1;
    pthread_t c;
    CHECK(pthread_create(&c, NULL, consumer, NULL) == 0);
    threads_run(nproducers, producer);
    CHECK(pthread_join(c, NULL) == 0);
    for (int id = 0; id < nproducers * PER_PRODUCER; id++)
        CHECK(recvbuf[id] == id * 10 + (rank + size - 1) % size);

    double worst = 0;
    for (int i = 0; i < 3; i++) {
        MPI_Request r;
        CHECK_RC(MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, &r), MPI_SUCCESS);
        pthread_t t;
        CHECK(pthread_create(&t, NULL, completer, &r) == 0);
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
        double delay = threads_now() - completed_at;
        CHECK(pthread_join(t, NULL) == 0);
        if (delay > worst)
            worst = delay;
    }
    if (rank == 0)
        printf("generalized request: waiter woken %.3f ms after MPI_Grequest_complete (worst of 3)\n",
               worst * 1e3);
    CHECK(worst < 0.1); /* the poll timeout was 250 ms */
    MPI_Finalize();
    return 0;
}
