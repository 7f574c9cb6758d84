#include "core/lock.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#ifndef METAMPI_THREADS_OFF
int core_lock_on;
#endif

/* The owner is read without the lock by threads asking "is it me?": only the owner itself
 * ever finds its own id there, so a relaxed atomic suffices. depth is the owner's alone. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_condattr_t monotonic; /* the waiters' condition variables: timeouts by it */
static pthread_cond_t paused;        /* the progress thread: MPI_Finalize stops it */
static _Atomic unsigned long owner;
static int depth;
/* threads blocked in core_lock_enter_slow: a waiting thread's yield lets them in first */
static atomic_int entering;
static sleeper_t sleeper;
static int wake_fd = -1;
/* The threads waiting in MPI, and which of them polls (NULL: none does now). */
static core_waiter_t *waiters, *poller;

_Static_assert(sizeof(pthread_t) == sizeof(unsigned long), "pthread_t is an unsigned long");

int core_lock_enable(void)
{
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&paused, &monotonic);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd < 0)
        return -1;
#ifdef METAMPI_THREADS_OFF
    close(wake_fd);
    wake_fd = -1;
    errno = ENOTSUP; /* this build has no thread support: MPI_Init never asks */
    return -1;
#else
    core_lock_on = 1;
    return 0;
#endif
}

static unsigned long self(void)
{
    return (unsigned long)pthread_self();
}

static void take(int levels)
{
    if (pthread_mutex_trylock(&mutex) != 0) {
        atomic_fetch_add_explicit(&entering, 1, memory_order_relaxed);
        pthread_mutex_lock(&mutex);
        atomic_fetch_sub_explicit(&entering, 1, memory_order_relaxed);
    }
    atomic_store_explicit(&owner, self(), memory_order_relaxed);
    depth = levels;
}

void core_lock_enter_slow(void)
{
    if (atomic_load_explicit(&owner, memory_order_relaxed) == self()) {
        depth++;
        return;
    }
    take(1);
}

void core_lock_exit_slow(void)
{
    if (--depth == 0) {
        atomic_store_explicit(&owner, 0, memory_order_relaxed);
        pthread_mutex_unlock(&mutex);
    }
}

int core_lock_release_all(void)
{
    if (!core_lock_on)
        return 0;
    int levels = depth;
    depth = 0;
    atomic_store_explicit(&owner, 0, memory_order_relaxed);
    pthread_mutex_unlock(&mutex);
    return levels;
}

static void hand_on_poller_role(void);

int core_lock_release_held(void)
{
    if (atomic_load_explicit(&owner, memory_order_relaxed) != self())
        return 0;
    /* a poller in user code polls no more, which may take long: another waiter polls */
    if (poller && poller->thread == self()) {
        poller = NULL;
        hand_on_poller_role();
    }
    return core_lock_release_all();
}

void core_lock_reacquire(int levels)
{
    if (levels)
        take(levels);
}

void core_lock_yield(void)
{
    if (atomic_load_explicit(&entering, memory_order_relaxed) == 0)
        return;
    int levels = core_lock_release_all();
    /* a mutex is not fair: without giving up the CPU the waiter would take it back at once */
    for (int i = 0; i < 64 && atomic_load_explicit(&entering, memory_order_relaxed); i++)
        sched_yield();
    core_lock_reacquire(levels);
}

static void wait_on(pthread_cond_t *cond, int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int levels = depth;
    depth = 0;
    atomic_store_explicit(&owner, 0, memory_order_relaxed);
    pthread_cond_timedwait(cond, &mutex, &until);
    atomic_store_explicit(&owner, self(), memory_order_relaxed);
    depth = levels;
}

void core_lock_pause(int timeout_ms)
{
    wait_on(&paused, timeout_ms);
}

static void ring(void)
{
    uint64_t one = 1;
    ssize_t w = write(wake_fd, &one, sizeof one);
    (void)w; /* EAGAIN: the counter is full, the sleeper wakes anyway */
}

static void wake(core_waiter_t *w)
{
    w->woken = 1;
    /* the kernel sleeper released the lock before sleeping: whoever wakes it is another
     * thread */
    if (w->in_kernel)
        ring();
    else
        pthread_cond_signal(&w->cond);
}

void core_lock_notify(void)
{
    unsigned long me = self();
    for (core_waiter_t *w = waiters; w; w = w->next)
        if (!w->woken && w->thread != me && w->done(w->arg))
            wake(w);
}

void core_lock_wake_sleeper(void)
{
    for (core_waiter_t *w = waiters; w; w = w->next)
        wake(w);
    pthread_cond_broadcast(&paused);
    if (sleeper != SLEEPER_NONE)
        ring();
}

/* ---- waiters ------------------------------------------------------------------------------ */

void core_waiter_begin(core_waiter_t *w, int (*done)(void *), void *arg)
{
    *w = (core_waiter_t){ .done = done, .arg = arg, .thread = self() };
    pthread_cond_init(&w->cond, &monotonic);
    w->next = waiters;
    if (waiters)
        waiters->prev = w;
    waiters = w;
}

/* The role is free: the longest waiting thread that is not woken already takes it. */
static void hand_on_poller_role(void)
{
    core_waiter_t *last = NULL;
    for (core_waiter_t *w = waiters; w; w = w->next)
        if (!w->woken && w->thread != self())
            last = w;
    if (last)
        wake(last);
}

void core_waiter_end(core_waiter_t *w)
{
    if (w->prev)
        w->prev->next = w->next;
    else
        waiters = w->next;
    if (w->next)
        w->next->prev = w->prev;
    if (poller == w) {
        poller = w->outer;
        if (!poller)
            hand_on_poller_role();
    }
    pthread_cond_destroy(&w->cond);
}

int core_waiter_is_poller(core_waiter_t *w)
{
    if (poller == w)
        return 1;
    if (poller && poller->thread != w->thread)
        return 0;
    w->outer = poller;
    poller = w;
    return 1;
}

void core_lock_kick_sleeper(void)
{
    if (sleeper != SLEEPER_NONE)
        ring();
}

void core_waiter_sleep(core_waiter_t *w, int timeout_ms)
{
    if (!w->woken)
        wait_on(&w->cond, timeout_ms);
    w->woken = 0;
}

sleeper_t core_lock_sleeper(void)
{
    return sleeper;
}

void core_lock_set_sleeper(sleeper_t who)
{
    sleeper = who;
}

int core_lock_wake_fd(void)
{
    return wake_fd;
}

void core_lock_wake_drain(void)
{
    uint64_t n;
    ssize_t r = read(wake_fd, &n, sizeof n);
    (void)r; /* EAGAIN: nobody rang */
}
