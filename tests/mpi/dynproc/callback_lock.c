/* Attribute callbacks and a lock of the application's own, under MPI_THREAD_MULTIPLE: the
 * call pattern that hung mpi4py.futures' MPIPoolExecutor (docs/dynproc.md, "mpi4py").
 *
 * mpi4py caches a lock on a communicator as an attribute whose delete callback takes the
 * Python GIL; another thread holding the GIL calls MPI meanwhile. Here a pthread mutex plays
 * the GIL: a helper thread takes it, says so, waits a little (so that the main thread is in
 * the callback by then) and calls MPI while holding it. The main thread frees (or
 * disconnects, duplicates, deletes the attribute of, frees a datatype with) an object whose
 * callback takes the mutex. The library must not hold its own lock across the callback,
 * otherwise each thread waits for the other forever; a watchdog turns that into a failure
 * within seconds. */
#include "../check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t app_lock = PTHREAD_MUTEX_INITIALIZER; /* the "GIL" */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t state_changed = PTHREAD_COND_INITIALIZER;
static int helper_holds;       /* the helper holds app_lock */
static int callbacks;          /* callbacks that took app_lock */
static volatile int step_done; /* the watchdog's progress mark */

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void *watchdog(void *arg)
{
    (void)arg;
    for (int last = -1, still = 0;; sleep_ms(100)) {
        if (step_done != last) {
            last = step_done;
            still = 0;
        } else if (++still > 150) {
            fprintf(stderr, "FAIL: deadlock after step %d (an attribute callback ran with the "
                    "library's lock held while another thread waited for it)\n", last);
            fflush(stderr);
            _exit(1);
        }
    }
    return NULL;
}

/* Holds app_lock for a while and calls MPI under it, as a Python thread holding the GIL. */
static void *helper(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&app_lock);
    pthread_mutex_lock(&state_lock);
    helper_holds = 1;
    pthread_cond_broadcast(&state_changed);
    pthread_mutex_unlock(&state_lock);
    sleep_ms(50); /* the main thread enters its MPI call and the callback meanwhile */
    MPI_Info info;
    CHECK_RC(MPI_Info_create(&info), MPI_SUCCESS);
    CHECK_RC(MPI_Info_free(&info), MPI_SUCCESS);
    int rank;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    pthread_mutex_unlock(&app_lock);
    return NULL;
}

static void take_app_lock(void)
{
    pthread_mutex_lock(&app_lock);
    callbacks++;
    pthread_mutex_unlock(&app_lock);
}

static int delete_cb(int obj, int keyval, void *value, void *extra)
{
    (void)obj, (void)keyval, (void)value, (void)extra;
    take_app_lock();
    return MPI_SUCCESS;
}

static int copy_cb(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)keyval, (void)extra;
    take_app_lock();
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete_cb(MPI_Datatype t, int keyval, void *value, void *extra)
{
    return delete_cb((int)t, keyval, value, extra);
}

/* Starts the helper and waits until it holds app_lock. */
static pthread_t start_helper(void)
{
    pthread_t t;
    helper_holds = 0;
    CHECK(pthread_create(&t, NULL, helper, NULL) == 0);
    pthread_mutex_lock(&state_lock);
    while (!helper_holds)
        pthread_cond_wait(&state_changed, &state_lock);
    pthread_mutex_unlock(&state_lock);
    return t;
}

static void end_step(pthread_t t, int expected_callbacks)
{
    CHECK(pthread_join(t, NULL) == 0);
    pthread_mutex_lock(&app_lock);
    CHECK(callbacks == expected_callbacks);
    pthread_mutex_unlock(&app_lock);
    step_done++;
}

static MPI_Comm dup_with_attr(int keyval)
{
    MPI_Comm c;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(c, keyval, &callbacks), MPI_SUCCESS);
    return c;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    pthread_t dog;
    CHECK(pthread_create(&dog, NULL, watchdog, NULL) == 0);
    CHECK(pthread_detach(dog) == 0);
    int keyval, type_keyval, n = 0;
    CHECK_RC(MPI_Comm_create_keyval(copy_cb, delete_cb, &keyval, NULL), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete_cb, &type_keyval, NULL),
             MPI_SUCCESS);

    MPI_Comm c = dup_with_attr(keyval);   /* MPI_Comm_free runs the delete callback */
    pthread_t t = start_helper();
    CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    end_step(t, ++n);

    c = dup_with_attr(keyval);            /* MPI_Comm_disconnect, as mpi4py.futures' pools */
    t = start_helper();
    CHECK_RC(MPI_Comm_disconnect(&c), MPI_SUCCESS);
    end_step(t, ++n);

    c = dup_with_attr(keyval);            /* MPI_Comm_dup runs the copy callback */
    MPI_Comm d;
    t = start_helper();
    CHECK_RC(MPI_Comm_dup(c, &d), MPI_SUCCESS);
    end_step(t, ++n);

    t = start_helper();                   /* MPI_Comm_delete_attr */
    CHECK_RC(MPI_Comm_delete_attr(d, keyval), MPI_SUCCESS);
    end_step(t, ++n);

    t = start_helper();                   /* setting it again deletes the old value first */
    CHECK_RC(MPI_Comm_set_attr(c, keyval, &n), MPI_SUCCESS);
    end_step(t, ++n);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    n++;

    MPI_Datatype type;                    /* MPI_Type_free */
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &type), MPI_SUCCESS);
    CHECK_RC(MPI_Type_set_attr(type, type_keyval, &n), MPI_SUCCESS);
    t = start_helper();
    CHECK_RC(MPI_Type_free(&type), MPI_SUCCESS);
    end_step(t, ++n);

    CHECK_RC(MPI_Comm_free_keyval(&keyval), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free_keyval(&type_keyval), MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}
