#include "core/progress.h"

#include "core/errors.h"
#include "core/lock.h"
#include "core/progress_int.h"
#include "core/traffic.h"
#include "proto/proto.h"
#include "runtime/job.h"
#include "runtime/tunables.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { SPIN_US_ALONE = 2000, SPIN_US_OVERSUBSCRIBED = 50 };

static const int no_schedules;
static const int *schedules_running = &no_schedules;
static int (*schedules_advance)(void);

void progress_set_schedules(const int *running, int (*advance)(void))
{
    schedules_running = running;
    schedules_advance = advance;
}

uint64_t progress_spin_ns = SPIN_US_ALONE * 1000ull;
uint64_t progress_far_spin_ns;
int progress_oversubscribed;

void progress_configure(int local_ranks, int ncpus)
{
    progress_oversubscribed = local_ranks > ncpus;
    uint64_t us = progress_oversubscribed ? SPIN_US_OVERSUBSCRIBED : SPIN_US_ALONE;
    if (tun_is_set(TUN_SPIN_US))
        us = tun_time(TUN_SPIN_US);
    progress_spin_ns = us * 1000;
    progress_far_spin_ns = tun_time(TUN_WAN_SPIN_US) * 1000;
}

int progress_usable_cpus(void)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (tun_enum(TUN_BIND) == 0) { /* none (or not started by our mpirun) */
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
            return CPU_COUNT(&set);
    }
    return online > 0 ? (int)online : 1;
}

uint64_t progress_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int (*pollers[PROGRESS_MAX_POLLERS])(void);
static int npollers;

int progress_add_poller(int (*fn)(void))
{
    if (npollers == PROGRESS_MAX_POLLERS)
        return -1;
    pollers[npollers++] = fn;
    return 0;
}

void progress_remove_poller(int (*fn)(void))
{
    for (int i = 0; i < npollers; i++)
        if (pollers[i] == fn) {
            pollers[i] = pollers[--npollers];
            return;
        }
}

int progress_poll(void)
{
    char err[256];
    int n = proto_progress(err, sizeof err);
    if (n < 0)
        err_fatal(MPI_ERR_OTHER, "progress", "%s", err);
    if (*schedules_running)
        n += schedules_advance();
    /* backwards: a poller may remove itself */
    for (int i = npollers - 1; i >= 0; i--)
        n += pollers[i]();
    if (core_lock_on && n > 0)
        core_lock_notify();
    return n;
}

/* Sleeps until a peer or the launcher has something for us (or the safety timeout: a lost
 * wake-up then costs a delay, never a hang). With threads (who: the kernel sleeper, see
 * core/lock.h) the lock is released while it sleeps, and the wake-up eventfd is watched too. */
void progress_sleep_once(int (*done)(void *), void *arg, sleeper_t who)
{
    enum { MAXFDS = 64 };
    struct pollfd fds[MAXFDS];
    int n = 0;
    int launcher = job_launcher_fd();
    if (launcher >= 0)
        fds[n++] = (struct pollfd){ .fd = launcher, .events = POLLIN };
    int wake = n;
    if (who != SLEEPER_NONE)
        fds[n++] = (struct pollfd){ .fd = core_lock_wake_fd(), .events = POLLIN };
    n += proto_pollfds(fds + n, MAXFDS - n);
    proto_prepare_sleep();
    if (progress_poll() == 0 && !done(arg)) {
        int levels = 0;
        if (who != SLEEPER_NONE) {
            core_lock_set_sleeper(who);
            levels = core_lock_release_all();
        }
        int rc = poll(fds, (nfds_t)n, SLEEP_SAFETY_MS);
        int poll_errno = errno;
        if (who != SLEEPER_NONE) {
            core_lock_reacquire(levels);
            core_lock_set_sleeper(SLEEPER_NONE);
            if (rc > 0 && fds[wake].revents)
                core_lock_wake_drain();
            /* another thread may have talked to the launcher (a PMI exchange, under the
             * lock) while we slept: only what is left now counts */
            if (launcher >= 0 && rc > 0 && fds[0].revents)
                poll(fds, 1, 0);
        }
        if (rc < 0 && poll_errno != EINTR)
            err_fatal(MPI_ERR_INTERN, "progress", "poll failed");
        /* The launcher never speaks unasked: input or hang-up there means it is gone. */
        if (launcher >= 0 && rc > 0 && fds[0].revents)
            err_fatal(MPI_ERR_OTHER, "progress", "lost the connection to the launcher");
    }
    proto_end_sleep();
}

/* The wait itself; inlined twice, so that the untimed path stays as it was. spin_ns: how
 * long it polls before it sleeps. */
static inline __attribute__((always_inline)) void wait_until(int (*done)(void *arg),
                                                             void *arg, uint64_t spin_ns)
{
    if (core_lock_on) {
        progress_wait_threads(done, arg, spin_ns);
        return;
    }
    uint64_t idle_since = 0;
    for (unsigned i = 0; !done(arg); i++) {
        if (progress_poll() > 0) {
            idle_since = 0;
            continue;
        }
        if (progress_oversubscribed)
            sched_yield();
        else if (i & 63)
            continue;
        uint64_t t = progress_now_ns();
        if (!idle_since)
            idle_since = t;
        else if (t - idle_since >= spin_ns) {
            progress_sleep_once(done, arg, SLEEPER_NONE);
            idle_since = 0;
        }
    }
}

/* mpirun --report: a wait that does not end at once is timed (core/traffic.h). */
static __attribute__((noinline, cold)) void timed_wait_until(int (*done)(void *arg), void *arg,
                                                             uint64_t spin_ns)
{
    if (done(arg))
        return;
    uint64_t since = progress_now_ns();
    traffic_wait_begin();
    wait_until(done, arg, spin_ns);
    traffic_wait_end(progress_now_ns() - since);
}

void progress_wait_until(int (*done)(void *arg), void *arg)
{
    if (__builtin_expect(traffic_timing, 0))
        timed_wait_until(done, arg, progress_spin_ns);
    else
        wait_until(done, arg, progress_spin_ns);
}

static int flag_set(void *arg)
{
    return *(volatile int *)arg != 0;
}

void progress_wait(volatile int *flag)
{
    if (*flag)
        return;
    progress_wait_until(flag_set, (void *)flag);
}

void progress_wait_far(volatile int *flag)
{
    if (*flag)
        return;
    /* never longer than a local wait: METAMPI_SPIN_US=0 still means sleep at once */
    uint64_t spin = progress_far_spin_ns < progress_spin_ns ? progress_far_spin_ns
                                                            : progress_spin_ns;
    if (__builtin_expect(traffic_timing, 0))
        timed_wait_until(flag_set, (void *)flag, spin);
    else
        wait_until(flag_set, (void *)flag, spin);
}
