/* Generalized requests (MPI-3.1 §12.2): the callbacks are called at the points the standard
 * names, with every completion call; their errors come back as the standard says (the code
 * itself from the single-request calls and MPI_Cancel, MPI_ERR_IN_STATUS with the code in
 * the status from the multiple-completion calls); misuse fails with MPI_ERR_REQUEST or
 * MPI_ERR_ARG; a rank waiting for a request another thread completes sleeps instead of
 * spinning. */
#include "../check.h"

#include <mpi.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

typedef struct ctx {
    int queries, frees, cancels, last_complete;
    int query_err, free_err, cancel_err;
    int source, tag, count;
} ctx_t;

static int query_fn(void *extra, MPI_Status *status)
{
    ctx_t *c = extra;
    c->queries++;
    CHECK(status->MPI_SOURCE == MPI_ANY_SOURCE && status->MPI_TAG == MPI_ANY_TAG);
    status->MPI_SOURCE = c->source;
    status->MPI_TAG = c->tag;
    MPI_Status_set_elements(status, MPI_INT, c->count);
    MPI_Status_set_cancelled(status, 0);
    return c->query_err;
}

static int free_fn(void *extra)
{
    ctx_t *c = extra;
    c->frees++;
    return c->free_err;
}

static int cancel_fn(void *extra, int complete)
{
    ctx_t *c = extra;
    c->cancels++;
    c->last_complete = complete;
    return c->cancel_err;
}

static MPI_Request start(ctx_t *c, int source, int tag)
{
    *c = (ctx_t){ 0 };
    c->source = source;
    c->tag = tag;
    c->count = 3;
    MPI_Request r;
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, c, &r), MPI_SUCCESS);
    CHECK(r != MPI_REQUEST_NULL);
    return r;
}

static void test_and_wait(void)
{
    ctx_t c;
    MPI_Request r = start(&c, 3, 7);
    int flag = 1;
    MPI_Status st;
    CHECK_RC(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
    CHECK(!flag && c.queries == 0 && c.frees == 0);
    CHECK_RC(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
    CHECK(!flag && c.queries == 0);
    CHECK_RC(MPI_Cancel(&r), MPI_SUCCESS);
    CHECK(c.cancels == 1 && c.last_complete == 0);
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    CHECK_RC(MPI_Cancel(&r), MPI_SUCCESS);
    CHECK(c.cancels == 2 && c.last_complete == 1);
    /* get_status queries, frees nothing */
    CHECK_RC(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
    CHECK(flag && c.queries == 1 && c.frees == 0 && st.MPI_SOURCE == 3 && st.MPI_TAG == 7);
    st.MPI_ERROR = -5; /* single completions leave MPI_ERROR alone */
    CHECK_RC(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
    CHECK(flag && r == MPI_REQUEST_NULL && c.queries == 2 && c.frees == 1);
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 7 && st.MPI_ERROR == -5);
    int count, cancelled;
    MPI_Get_count(&st, MPI_INT, &count);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(count == 3 && !cancelled);

    r = start(&c, 1, 2);
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS); /* query_fn still runs */
    CHECK(r == MPI_REQUEST_NULL && c.queries == 1 && c.frees == 1);
}

/* Generalized requests mixed with point-to-point ones in the any/some/all calls. */
static void multiple(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out = rank, in = -1;
    ctx_t c[2];
    MPI_Request reqs[4];
    reqs[0] = start(&c[0], 10, 11);
    reqs[1] = start(&c[1], 20, 21);
    MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &reqs[3]);
    MPI_Status sts[4];
    int flag = 1, index = -1, outcount = -1, indices[4];

    CHECK_RC(MPI_Testall(4, reqs, &flag, sts), MPI_SUCCESS);
    CHECK(!flag && c[0].queries == 0);
    CHECK_RC(MPI_Testany(2, reqs, &index, &flag, &sts[0]), MPI_SUCCESS);
    CHECK(!flag && index == MPI_UNDEFINED);
    CHECK_RC(MPI_Grequest_complete(reqs[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Testany(2, reqs, &index, &flag, &sts[0]), MPI_SUCCESS);
    CHECK(flag && index == 1 && reqs[1] == MPI_REQUEST_NULL);
    CHECK(c[1].queries == 1 && c[1].frees == 1 && sts[0].MPI_SOURCE == 20);
    CHECK_RC(MPI_Grequest_complete(reqs[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(4, reqs, sts), MPI_SUCCESS);
    CHECK(c[0].queries == 1 && c[0].frees == 1 && in == left);
    CHECK(sts[0].MPI_SOURCE == 10 && sts[0].MPI_TAG == 11 && sts[2].MPI_SOURCE == left);
    CHECK(sts[1].MPI_SOURCE == MPI_ANY_SOURCE); /* null by then: an empty status */

    reqs[0] = start(&c[0], 30, 31);
    reqs[1] = start(&c[1], 40, 41);
    CHECK_RC(MPI_Testsome(2, reqs, &outcount, indices, sts), MPI_SUCCESS);
    CHECK(outcount == 0);
    CHECK_RC(MPI_Grequest_complete(reqs[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitsome(2, reqs, &outcount, indices, sts), MPI_SUCCESS);
    CHECK(outcount == 1 && indices[0] == 1 && sts[0].MPI_TAG == 41 && c[1].frees == 1);
    CHECK_RC(MPI_Grequest_complete(reqs[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitany(2, reqs, &index, &sts[0]), MPI_SUCCESS);
    CHECK(index == 0 && sts[0].MPI_TAG == 31 && c[0].frees == 1);
}

/* MPI_Request_free: at once on a complete request, at MPI_Grequest_complete otherwise. */
static void request_free(void)
{
    ctx_t c;
    MPI_Request r = start(&c, 0, 0), keep = r;
    CHECK_RC(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL && c.frees == 0);
    CHECK_RC(MPI_Grequest_complete(keep), MPI_SUCCESS);
    CHECK(c.frees == 1 && c.queries == 0);

    r = start(&c, 0, 0);
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    CHECK_RC(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL && c.frees == 1 && c.queries == 0);

    /* NULL callbacks do nothing: the status stays empty */
    CHECK_RC(MPI_Grequest_start(NULL, NULL, NULL, NULL, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    MPI_Status st;
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG);
}

/* The callbacks' errors, and misuse. */
static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ctx_t c, d;
    MPI_Request r = start(&c, 0, 0);
    c.query_err = MPI_ERR_BUFFER;
    MPI_Grequest_complete(r);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
    CHECK(r == MPI_REQUEST_NULL && c.frees == 1); /* the request is gone all the same */

    r = start(&c, 0, 0);
    c.free_err = MPI_ERR_OTHER;
    MPI_Grequest_complete(r);
    int flag = 0;
    CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
    CHECK(flag && r == MPI_REQUEST_NULL);

    r = start(&c, 0, 0);
    c.cancel_err = MPI_ERR_PENDING;
    CHECK_RC(MPI_Cancel(&r), MPI_ERR_PENDING);
    c.query_err = MPI_ERR_TAG;
    MPI_Grequest_complete(r);
    MPI_Status st;
    CHECK_RC(MPI_Request_get_status(r, &flag, &st), MPI_ERR_TAG);
    c.query_err = MPI_SUCCESS;
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);

    MPI_Request reqs[2] = { start(&c, 1, 1), start(&d, 2, 2) };
    d.query_err = MPI_ERR_BUFFER;
    MPI_Grequest_complete(reqs[0]);
    MPI_Grequest_complete(reqs[1]);
    MPI_Status sts[2];
    CHECK_RC(MPI_Waitall(2, reqs, sts), MPI_ERR_IN_STATUS);
    CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[1].MPI_ERROR == MPI_ERR_BUFFER);
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL && d.frees == 1);

    reqs[0] = start(&c, 1, 1);
    c.free_err = MPI_ERR_ARG;
    MPI_Grequest_complete(reqs[0]);
    int outcount, indices[1];
    CHECK_RC(MPI_Testsome(1, reqs, &outcount, indices, sts), MPI_ERR_IN_STATUS);
    CHECK(outcount == 1 && sts[0].MPI_ERROR == MPI_ERR_ARG);

    /* misuse */
    CHECK_RC(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &c, NULL), MPI_ERR_ARG);
    CHECK_RC(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    CHECK_RC(MPI_Grequest_complete((MPI_Request)12345), MPI_ERR_REQUEST);
    int buf;
    MPI_Irecv(&buf, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &r);
    CHECK_RC(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    MPI_Cancel(&r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    r = start(&c, 0, 0);
    MPI_Request stale = r;
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    CHECK_RC(MPI_Grequest_complete(r), MPI_ERR_REQUEST); /* twice */
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Grequest_complete(stale), MPI_ERR_REQUEST); /* freed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *complete_later(void *arg)
{
    usleep(300 * 1000);
    MPI_Grequest_complete(*(MPI_Request *)arg);
    return NULL;
}

/* The usual use: another thread does the work and completes the request while this one
 * waits in MPI_Wait, which must sleep (the request has no transport to poll) and return. */
static void completed_by_thread(void)
{
    ctx_t c;
    MPI_Request r = start(&c, 5, 6), shared = r;
    pthread_t t;
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
    CHECK(pthread_create(&t, NULL, complete_later, &shared) == 0);
    MPI_Status st;
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    wall = seconds(CLOCK_MONOTONIC) - wall;
    cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    pthread_join(t, NULL);
    CHECK(st.MPI_SOURCE == 5 && c.frees == 1);
    if (cpu > 0.5 * wall) {
        fprintf(stderr, "MPI_Wait spun: %.3f s of CPU in %.3f s\n", cpu, wall);
        CHECK(cpu <= 0.5 * wall);
    }
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_and_wait();
    multiple(rank, size);
    request_free();
    errors();
    completed_by_thread();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
