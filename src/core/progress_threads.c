/* Waiting with threads (the core lock on) and the progress thread; the protocol of who polls
 * and who sleeps where is in core/lock.h and docs/threads.md. Everything here runs with the
 * core lock held, except where it says it lets go. */
#include "core/progress.h"
#include "core/progress_int.h"

#include "core/errors.h"

#include <pthread.h>
#include <sched.h>

/* Waiting threads in their spin phase (under the lock). While there is one, the progress
 * thread keeps out of the kernel: a sleeping rank makes its peers ring its doorbell, a cost
 * for nothing while a thread polls anyway. */
int progress_spinning;
unsigned progress_waits;

static void let_others_in(void)
{
    if (progress_oversubscribed) {
        int levels = core_lock_release_all();
        sched_yield();
        core_lock_reacquire(levels);
    } else {
        core_lock_yield();
    }
}

/* Spins like the single-threaded wait (progress.c), letting other threads in between passes;
 * then sleeps: in the kernel when nobody does, else on the condition variable. After a sleep
 * it polls once and sleeps again without a new spin: a wake-up that was not ours should not
 * cost a spin. */
void progress_wait_threads(int (*done)(void *), void *arg)
{
    uint64_t idle_since = 0;
    int slept = 0;
    progress_waits++;
    progress_spinning++;
    while (!done(arg)) {
        if (progress_poll() > 0) {
            idle_since = 0;
            slept = 0;
            let_others_in();
            continue;
        }
        let_others_in();
        if (done(arg))
            break;
        if (!slept) {
            uint64_t t = progress_now_ns();
            if (!idle_since)
                idle_since = t;
            if (t - idle_since < progress_spin_ns)
                continue;
        }
        idle_since = 0;
        slept = 1;
        progress_spinning--;
        if (core_lock_sleeper() == SLEEPER_NONE) {
            progress_sleep_once(done, arg, SLEEPER_WAITER);
            core_lock_notify(); /* the kernel is free: another waiter may go there */
        } else {
            core_lock_wait(SLEEP_SAFETY_MS);
        }
        progress_spinning++;
    }
    progress_spinning--;
}
