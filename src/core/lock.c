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
static pthread_cond_t woken;  /* waiting threads: something completed */
static pthread_cond_t paused; /* the progress thread: MPI_Finalize stops it */
static _Atomic unsigned long owner;
static int depth;
/* threads blocked in core_lock_enter_slow: a waiting thread's yield lets them in first */
static atomic_int entering;
static sleeper_t sleeper;
static int wake_fd = -1;

_Static_assert(sizeof(pthread_t) == sizeof(unsigned long), "pthread_t is an unsigned long");

int core_lock_enable(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&woken, &a);
    if (rc == 0 && (rc = pthread_cond_init(&paused, &a)) != 0)
        pthread_cond_destroy(&woken);
    pthread_condattr_destroy(&a);
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

int core_lock_release_held(void)
{
    if (atomic_load_explicit(&owner, memory_order_relaxed) != self())
        return 0;
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

void core_lock_wait(int timeout_ms)
{
    wait_on(&woken, timeout_ms);
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

void core_lock_notify(void)
{
    pthread_cond_broadcast(&woken);
    /* the kernel sleeper released the lock before sleeping: whoever notifies is another
     * thread. The progress thread needs no waking for completions: it waits for nobody. */
    if (sleeper == SLEEPER_WAITER)
        ring();
}

void core_lock_wake_sleeper(void)
{
    pthread_cond_broadcast(&woken);
    pthread_cond_broadcast(&paused);
    if (sleeper != SLEEPER_NONE)
        ring();
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
