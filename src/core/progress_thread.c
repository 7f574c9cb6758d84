/* The progress thread (METAMPI_ASYNC_PROGRESS): advances every transfer, schedule and
 * passive-target operation while the program computes, and sleeps in the kernel when there is
 * nothing to do. It is one more thread under the core lock (core/lock.h); docs/threads.md. */
#include "core/progress.h"
#include "core/progress_int.h"

#include <pthread.h>
#include <signal.h>

static pthread_t thread;
static int running, stopping;

static int stop_requested(void *unused)
{
    (void)unused;
    return stopping;
}

/* While the program's threads wait in MPI now and then (a wait began within the last
 * ACTIVE_MS), they poll themselves and the progress thread only looks every ACTIVE_MS: were it
 * to sleep in the kernel, the rank would announce its sleep and its peers ring its doorbell
 * for every message, and it would wake and take the lock for every one of them. */
enum { ACTIVE_MS = 1 };

/* Polls while there are events; when idle and the program has stopped waiting in MPI, sleeps
 * in the kernel (waking on traffic, never spinning: it must not take a CPU from the program);
 * else pauses ACTIVE_MS. */
static void *progress_thread_main(void *unused)
{
    (void)unused;
    int taken = core_lock_enter();
    unsigned seen = progress_waits;
    while (!stopping) {
        if (progress_poll() > 0) {
            core_lock_yield();
            continue;
        }
        if (progress_spinning == 0 && progress_waits == seen &&
            core_lock_sleeper() == SLEEPER_NONE) {
            progress_sleep_once(stop_requested, NULL, SLEEPER_PROGRESS_THREAD);
        } else {
            seen = progress_waits;
            core_lock_pause(ACTIVE_MS);
        }
    }
    core_lock_exit(taken);
    return NULL;
}

int progress_thread_start(void)
{
    /* signals go to the program's threads, never to ours */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&thread, NULL, progress_thread_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return rc;
    running = 1;
    return 0;
}

void progress_thread_stop(void)
{
    if (!running)
        return;
    stopping = 1;
    core_lock_wake_sleeper();
    int levels = core_lock_release_all();
    pthread_join(thread, NULL);
    core_lock_reacquire(levels);
    running = 0;
}
