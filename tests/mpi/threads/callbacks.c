/* The program's callbacks run without the library's lock. The deadlock this guards against
 * (mpi4py's callbacks take the Python GIL): a callback the library calls takes a lock of the
 * program's own (app_lock) that another thread holds while that thread calls MPI. Were the
 * library to hold its lock across the callback, neither thread could go on. Each case below
 * makes exactly that happen once: a holder thread takes app_lock, waits until the callback
 * has started, calls MPI, and only then lets app_lock go. Covered: user reduction ops
 * (MPI_Reduce_local, MPI_Allreduce, MPI_Iallreduce), a communicator's error handler, the
 * query/free/cancel functions of a generalized request, attribute copy/delete functions,
 * the extent and conversion functions of a data representation (MPI_Register_datarep).
 * A case that deadlocks is named by a watchdog, which ends the rank.
 *
 * Then the library's state while its lock is let go inside a collective: threads run
 * blocking and nonblocking allreduces with a slow user op on a communicator each, so that
 * one thread's op runs while others advance theirs (a schedule advanced by two threads at
 * once, or freed under the other, would give wrong sums or crash under ASan). */
#include "threads.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

enum { WATCHDOG_S = 15, ITERATIONS = 20, COUNT = 8 };

static int rank, size;
static pthread_mutex_t app_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int in_callback, holding, case_over, callbacks;
static const char *volatile current = "MPI_Init";

static void watchdog(int sig)
{
    (void)sig;
    static const char pre[] = "FAIL callbacks: deadlock in case ";
    ssize_t w = write(2, pre, sizeof pre - 1);
    w = write(2, current, strlen(current));
    w = write(2, "\n", 1);
    (void)w;
    _exit(3);
}

/* What an mpi4py callback does with the GIL: announce itself, take app_lock. */
static void callback_takes_app_lock(void)
{
    atomic_fetch_add(&callbacks, 1);
    atomic_store(&in_callback, 1);
    pthread_mutex_lock(&app_lock);
    pthread_mutex_unlock(&app_lock);
}

/* Holds app_lock; once the callback runs (it then waits for app_lock), calls MPI, and lets
 * app_lock go only when that call has returned. */
static void *holder(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&app_lock);
    atomic_store(&holding, 1);
    while (!atomic_load(&in_callback) && !atomic_load(&case_over))
        usleep(100);
    if (atomic_load(&in_callback)) {
        usleep(1000); /* the callback waits for app_lock by now */
        int r = -1, flag;
        CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &r), MPI_SUCCESS);
        CHECK(r == rank);
        CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
    }
    pthread_mutex_unlock(&app_lock);
    return NULL;
}

/* Runs body while a holder thread holds app_lock; expect: the callbacks body makes at least
 * (in this rank; -1: in the job, when it has more than one rank). The environment variable
 * CALLBACKS_ONLY=k runs only the k-th case (from 0; to see which fail without a fix). */
static void run_case(const char *name, void (*body)(void), int expect)
{
    static int index;
    const char *only = getenv("CALLBACKS_ONLY");
    if (only && atoi(only) != index++)
        return;
    current = name;
    atomic_store(&in_callback, 0);
    atomic_store(&holding, 0);
    atomic_store(&case_over, 0);
    atomic_store(&callbacks, 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, holder, NULL) == 0);
    while (!atomic_load(&holding))
        usleep(50);
    alarm(WATCHDOG_S);
    body();
    atomic_store(&case_over, 1);
    CHECK(pthread_join(t, NULL) == 0);
    alarm(0);
    int made = atomic_load(&callbacks);
    if (expect < 0) { /* a reduction over one rank combines nothing; over several, someone does */
        int mine = made;
        CHECK_RC(MPI_Allreduce(&mine, &made, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
        expect = size > 1;
    }
    if (made < expect) {
        fprintf(stderr, "FAIL rank %d: case %s: %d callbacks, expected at least %d\n", rank,
                name, made, expect);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* ---- reduction ops ------------------------------------------------------------------------ */

static void locking_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    CHECK(*type == MPI_INT);
    callback_takes_app_lock();
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

static MPI_Op op;
static MPI_Comm wcomm; /* a duplicate of MPI_COMM_WORLD with the locking error handler */

static void reduce_local(void)
{
    int in[COUNT], inout[COUNT];
    for (int i = 0; i < COUNT; i++)
        in[i] = i, inout[i] = 10 * i;
    CHECK_RC(MPI_Reduce_local(in, inout, COUNT, MPI_INT, op), MPI_SUCCESS);
    for (int i = 0; i < COUNT; i++)
        CHECK(inout[i] == 11 * i);
}

static void check_sums(const int *out, int base)
{
    for (int i = 0; i < COUNT; i++)
        CHECK(out[i] == size * (size - 1) / 2 + size * (i + base));
}

static void allreduce(void)
{
    int in[COUNT], out[COUNT];
    for (int i = 0; i < COUNT; i++)
        in[i] = rank + i;
    CHECK_RC(MPI_Allreduce(in, out, COUNT, MPI_INT, op, wcomm), MPI_SUCCESS);
    check_sums(out, 0);
}

static void iallreduce(void)
{
    int in[COUNT], out[COUNT];
    for (int i = 0; i < COUNT; i++)
        in[i] = rank + i;
    MPI_Request r;
    CHECK_RC(MPI_Iallreduce(in, out, COUNT, MPI_INT, op, wcomm, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_sums(out, 0);
}

/* ---- the error handler -------------------------------------------------------------------- */

static void locking_handler(MPI_Comm *comm, int *code, ...)
{
    CHECK(*comm == wcomm);
    CHECK(*code == MPI_ERR_COUNT);
    callback_takes_app_lock();
}

static void error_handler(void)
{
    int x = 0;
    CHECK_RC(MPI_Send(&x, -1, MPI_INT, 0, 0, wcomm), MPI_ERR_COUNT);
}

/* ---- generalized requests ----------------------------------------------------------------- */

static int plain_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int locking_query(void *extra, MPI_Status *st)
{
    callback_takes_app_lock();
    return plain_query(extra, st);
}
static int plain_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int locking_free(void *extra)
{
    callback_takes_app_lock();
    return plain_free(extra);
}
/* completes the request from inside cancel_fn (what a cancellable operation does) */
static int locking_cancel(void *extra, int complete)
{
    CHECK(!complete);
    callback_takes_app_lock();
    CHECK_RC(MPI_Grequest_complete(*(MPI_Request *)extra), MPI_SUCCESS);
    return MPI_SUCCESS;
}

static void greq_query(void)
{
    MPI_Request r;
    CHECK_RC(MPI_Grequest_start(locking_query, plain_free, NULL, NULL, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    MPI_Status st;
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL && st.MPI_TAG == MPI_UNDEFINED);
}

static void greq_free(void)
{
    MPI_Request r;
    CHECK_RC(MPI_Grequest_start(plain_query, locking_free, NULL, NULL, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Grequest_complete(r), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* and freed before it completes: MPI_Grequest_complete calls free_fn */
    MPI_Request keep;
    CHECK_RC(MPI_Grequest_start(plain_query, locking_free, NULL, NULL, &r), MPI_SUCCESS);
    keep = r;
    CHECK_RC(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK_RC(MPI_Grequest_complete(keep), MPI_SUCCESS);
}

static MPI_Request cancelled;
static void greq_cancel(void)
{
    CHECK_RC(MPI_Grequest_start(plain_query, plain_free, locking_cancel, &cancelled, &cancelled),
             MPI_SUCCESS);
    CHECK_RC(MPI_Cancel(&cancelled), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&cancelled, MPI_STATUS_IGNORE), MPI_SUCCESS);
}

/* ---- attribute callbacks ------------------------------------------------------------------ */

static int locking_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra;
    callback_takes_app_lock();
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int locking_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    callback_takes_app_lock();
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int keyval;
    CHECK_RC(MPI_Comm_create_keyval(locking_copy, locking_delete, &keyval, NULL), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(wcomm, keyval, &keyval), MPI_SUCCESS);
    MPI_Comm copy;
    CHECK_RC(MPI_Comm_dup(wcomm, &copy), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&copy), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(wcomm, keyval), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&keyval), MPI_SUCCESS);
}

/* ---- data representation conversion functions (MPI_Register_datarep) ------------------- */

/* "swapped": ints stored byte-reversed, 4 bytes each */
static int locking_extent(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    (void)extra;
    callback_takes_app_lock();
    if (type == MPI_INT) {
        *extent = 4;
        return MPI_SUCCESS;
    }
    int bytes;
    CHECK_RC(MPI_Type_size(type, &bytes), MPI_SUCCESS);
    *extent = bytes;
    return MPI_SUCCESS;
}
static void swap_ints(const unsigned char *from, unsigned char *to, int count)
{
    for (int i = 0; i < 4 * count; i++)
        to[i] = from[i - i % 4 + 3 - i % 4];
}
static int locking_write(void *user, MPI_Datatype type, int count, void *file, MPI_Offset pos,
                         void *extra)
{
    (void)extra;
    CHECK(type == MPI_INT && pos == 0);
    callback_takes_app_lock();
    swap_ints(user, file, count);
    return MPI_SUCCESS;
}
static int locking_read(void *user, MPI_Datatype type, int count, void *file, MPI_Offset pos,
                        void *extra)
{
    (void)extra;
    CHECK(type == MPI_INT && pos == 0);
    callback_takes_app_lock();
    swap_ints(file, user, count);
    return MPI_SUCCESS;
}

/* a file of this rank's own (MPI_COMM_SELF) in the swapped representation: written, read */
static void datarep(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/metampi-callbacks-%d-%d", (int)getpid(), rank);
    MPI_File fh;
    CHECK_RC(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR |
                           MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh), MPI_SUCCESS);
    CHECK_RC(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "swapped", MPI_INFO_NULL),
             MPI_SUCCESS);
    int out[COUNT], in[COUNT];
    for (int i = 0; i < COUNT; i++)
        out[i] = 0x01020304 * (i + 1) + rank;
    CHECK_RC(MPI_File_write_at(fh, 0, out, COUNT, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_File_read_at(fh, 0, in, COUNT, MPI_INT, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(memcmp(in, out, sizeof in) == 0);
    CHECK_RC(MPI_File_close(&fh), MPI_SUCCESS);
}

/* ---- the library's state while its lock is let go ----------------------------------------- */

static MPI_Comm comms[64];

static void slow_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    CHECK(*type == MPI_INT);
    usleep(20); /* other threads advance their collectives meanwhile */
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

static void *concurrent(void *arg)
{
    int t = (int)(long)arg;
    MPI_Op slow;
    CHECK_RC(MPI_Op_create(slow_sum, 1, &slow), MPI_SUCCESS);
    for (int k = 0; k < ITERATIONS; k++) {
        int in[COUNT], out[COUNT];
        for (int i = 0; i < COUNT; i++)
            in[i] = rank + i + t + k;
        if (k % 2) {
            CHECK_RC(MPI_Allreduce(in, out, COUNT, MPI_INT, slow, comms[t]), MPI_SUCCESS);
        } else {
            MPI_Request r;
            CHECK_RC(MPI_Iallreduce(in, out, COUNT, MPI_INT, slow, comms[t], &r), MPI_SUCCESS);
            if (k % 4 == 0) /* pending operations keep a freed op */
                CHECK_RC(MPI_Op_free(&slow), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
            if (k % 4 == 0)
                CHECK_RC(MPI_Op_create(slow_sum, 1, &slow), MPI_SUCCESS);
        }
        check_sums(out, t + k);
    }
    CHECK_RC(MPI_Op_free(&slow), MPI_SUCCESS);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = threads_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    signal(SIGALRM, watchdog);
    CHECK_RC(MPI_Op_create(locking_sum, 1, &op), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &wcomm), MPI_SUCCESS);
    MPI_Errhandler eh;
    CHECK_RC(MPI_Comm_create_errhandler(locking_handler, &eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(wcomm, eh), MPI_SUCCESS);
    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);

    run_case("user op in MPI_Reduce_local", reduce_local, 1);
    run_case("user op in MPI_Allreduce", allreduce, -1);
    run_case("user op in MPI_Iallreduce", iallreduce, -1);
    run_case("error handler", error_handler, 1);
    run_case("generalized request query_fn", greq_query, 1);
    run_case("generalized request free_fn", greq_free, 2);
    run_case("generalized request cancel_fn", greq_cancel, 1);
    run_case("attribute copy and delete functions", attributes, 3);
    CHECK_RC(MPI_Register_datarep("swapped", locking_read, locking_write, locking_extent, NULL),
             MPI_SUCCESS);
    run_case("data representation extent and conversion functions", datarep, 3);

    current = "allreduces with a slow user op in every thread";
    for (int t = 0; t < n; t++)
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]), MPI_SUCCESS);
    alarm(2 * WATCHDOG_S);
    threads_run(n, concurrent);
    alarm(0);
    for (int t = 0; t < n; t++)
        CHECK_RC(MPI_Comm_free(&comms[t]), MPI_SUCCESS);

    CHECK_RC(MPI_Op_free(&op), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&wcomm), MPI_SUCCESS);
    MPI_Finalize();
    if (rank == 0)
        printf("callbacks: no deadlock with a callback waiting for a thread in MPI\n");
    return 0;
}
