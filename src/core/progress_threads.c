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

/* The poller: spins like the single-threaded wait (progress.c; the clock read every 64
 * passes), letting other threads in between passes; then sleeps in the kernel, or, when the
 * progress thread sleeps there, on its condition variable (the progress thread's passes wake
 * it). After a sleep it polls once and sleeps again without a new spin: a wake-up that was
 * not its own should not cost a spin. Returns when done, or when it lost the role (a
 * callback it ran let go of the lock, core_lock_callout_begin). */
static void poll_until(core_waiter_t *w, int (*done)(void *), void *arg, uint64_t spin_ns)
{
    uint64_t idle_since = 0;
    unsigned passes = 0;
    int slept = 0;
    progress_spinning++;
    while (!done(arg) && core_waiter_is_poller(w)) {
        if (progress_poll() > 0) {
            idle_since = 0;
            slept = 0;
            let_others_in();
            continue;
        }
        let_others_in();
        if (done(arg))
            break;
        if (!slept && spin_ns) { /* no spin: sleep after this idle pass */
            /* the clock every 64 passes, or every pass when each yields the CPU: 64 yields
             * on a loaded machine last far longer than the spin */
            if (!progress_oversubscribed && (++passes & 63))
                continue;
            uint64_t t = progress_now_ns();
            if (!idle_since)
                idle_since = t;
            if (t - idle_since < spin_ns)
                continue;
        }
        idle_since = 0;
        slept = 1;
        progress_spinning--;
        w->woken = 0;
        if (core_lock_sleeper() == SLEEPER_NONE) {
            w->in_kernel = 1;
            progress_sleep_once(done, arg, SLEEPER_WAITER);
            w->in_kernel = 0;
            w->woken = 0;
        } else {
            core_waiter_sleep(w, SLEEP_SAFETY_MS);
        }
        progress_spinning++;
    }
    progress_spinning--;
}

/* One poller per rank (core/lock.h): the first waiter polls. Another runs one progress pass
 * of its own (what it just started may need one) and makes the kernel sleeper look again
 * (what it queued may need descriptors the sleeper does not watch yet); then it sleeps until
 * a pass completes its wait or the poller leaves and hands it the role. */
void progress_wait_threads(int (*done)(void *), void *arg, uint64_t spin_ns)
{
    if (done(arg))
        return;
    core_waiter_t w;
    core_waiter_begin(&w, done, arg);
    progress_waits++;
    int first = 1;
    while (!done(arg)) {
        if (core_waiter_is_poller(&w)) {
            poll_until(&w, done, arg, spin_ns);
        } else if (first) {
            first = 0;
            progress_poll();
            core_lock_kick_sleeper();
        } else {
            core_waiter_sleep(&w, SLEEP_SAFETY_MS);
        }
    }
    core_waiter_end(&w);
}
