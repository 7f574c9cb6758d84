/*
 * The core lock: what makes MPI_THREAD_MULTIPLE (and the progress thread) safe.
 *
 * First landing: one lock for the whole library (MPICH's "global critical section"). Every
 * MPI function takes it on entry (api.h, API_ENTER) and holds it to its end, so every piece
 * of library state — the request table and free lists, the matching queues, the protocol's
 * queues and ids, the transports, communicators, datatypes, windows, the schedule engine —
 * is touched by one thread at a time. Only waiting lets go (core/progress.c): a thread
 * blocked in MPI_Wait, MPI_Recv, ... releases the lock between progress passes and while it
 * sleeps, so other threads enter meanwhile. The lock is split later behind the same calls
 * (docs/threads.md says where): callers name only enter/exit/wait/notify.
 *
 * Ready for the split (docs/threads.md, "Splitting the lock", step (a)); every call still
 * takes this lock, so these hold today with room to spare:
 *  - Handle lookups need no lock: every handle table (util/handles.h: groups, communicators,
 *    datatypes, requests, messages, info, error handlers, keyvals, ops, windows, files) keeps
 *    its slots in chunks that never move, so handle_get — and comm_lookup, dtype_lookup,
 *    request_lookup, ... over it — may run while another thread creates an object. Creating
 *    and freeing handles (handle_new/set/release) stays under this lock (the object lock
 *    after the split).
 *  - The reference counts of communicators and datatypes are atomic (comm_retain/release,
 *    dtype_retain/release): a thread that holds a reference may take or drop one without a
 *    lock. The last release destroys the object, which changes tables and so must still run
 *    under this lock (the object lock): a caller that may drop the last reference holds it.
 *  - Requests are made and freed without a lock (step (b)): request_new and request_free use
 *    the calling thread's cache of spares, each with its own handle slot
 *    (core/request_cache.h); only a cache that runs empty or full takes the pool lock, a leaf
 *    below all five of the plan, which also serialises the request table's bookkeeping.
 *
 * Off unless the program asked for MPI_THREAD_MULTIPLE or METAMPI_ASYNC_PROGRESS starts the
 * progress thread (core_lock_enable, from MPI_Init): a program of a lower level pays one
 * predictable branch per call. The lock is recursive (library code may re-enter an MPI
 * function), and waiting releases all levels at once, as does every call into the program's
 * own code (core_lock_callout_begin: user callbacks never run with the lock held).
 *
 * Who polls, who sleeps. One waiting thread at a time polls (the poller, core_waiter_t
 * below); it spins, then sleeps in the kernel on the transports' descriptors (the "kernel
 * sleeper", core/progress.c) and an eventfd. The other waiting threads sleep on a condition
 * variable of their own; core_lock_notify, after every progress pass with events (whoever
 * ran it), wakes those whose wait is over — by the eventfd when it is the kernel sleeper. A
 * completion done by any thread thus wakes its waiter within one wake-up, never after the
 * sleeper's safety timeout; and a waiter is woken only for its own completion.
 */
#ifndef METAMPI_LOCK_H
#define METAMPI_LOCK_H

#include <pthread.h>

#ifdef METAMPI_THREADS_OFF
/* Built without thread support (cmake -DMETAMPI_THREADS=OFF): the lock is never on, and every
 * use of it below folds away at compile time. MPI_Init_thread provides SERIALIZED at most. */
#define core_lock_on 0
#else
/* Set once by core_lock_enable (MPI_Init, before any other thread may call MPI); never
 * cleared. */
extern int core_lock_on;
#endif

/* Turns the lock on (creates the wake-up eventfd). 0, or -1 with errno set. */
int core_lock_enable(void);

/* Out of line and cold: inlined (LTO does) into every MPI function, the owner check and the
 * mutex calls made each one set up a stack frame and keep its arguments across them, also
 * when the lock is off; out of line, a call with the lock off adds to the build without
 * thread support only the flag's load and branch (docs/threads.md, "What thread support
 * costs a single-threaded program"). */
__attribute__((cold, noinline)) void core_lock_enter_slow(void);
__attribute__((cold, noinline)) void core_lock_exit_slow(void);

/* Takes the lock when it is on: returns whether it did (give that to core_lock_exit). */
static inline int core_lock_enter(void)
{
    if (__builtin_expect(!core_lock_on, 1))
        return 0;
    core_lock_enter_slow();
    return 1;
}

static inline void core_lock_exit(int taken)
{
    if (taken)
        core_lock_exit_slow();
}

/* Releases every level the calling thread holds; returns them for core_lock_reacquire. */
int core_lock_release_all(void);
void core_lock_reacquire(int depth);
/* Around a call of the program's own code — a reduction op, an error handler, a generalized
 * request's query/free/cancel function, an attribute callback: releases every level the
 * calling thread holds (none when it holds none, or the lock is off) and returns them for
 * core_lock_callout_end. The callback may take a lock of the program's own that another
 * thread holds while that thread waits to enter MPI (mpi4py's take the Python GIL): holding
 * the core lock across it deadlocks the two. Invariant for the caller: what it touches after
 * the call is either its own (on its stack, referenced, or marked as being worked on by it)
 * or looked up again, since other threads run the library meanwhile. */
int core_lock_release_held(void);
static inline int core_lock_callout_begin(void)
{
    if (__builtin_expect(!core_lock_on, 1))
        return 0;
    return core_lock_release_held();
}

static inline void core_lock_callout_end(int levels)
{
    if (levels)
        core_lock_reacquire(levels);
}

/* Between two progress passes of a waiting thread: lets threads waiting for the lock in. */
void core_lock_yield(void);

/* A thread waiting in MPI with threads (core/progress_threads.c), on its stack and listed
 * while it waits. One of them at a time is the rank's poller: it runs the progress passes,
 * spins, sleeps in the kernel. The others sleep on their own condition variable until a
 * progress pass (anyone's) completes what they wait for — core_lock_notify evaluates their
 * done() and wakes only those — or the poller hands them its role as it leaves. So waiters
 * never spin against each other for the lock and the CPU. Every field is under the lock. */
typedef struct core_waiter {
    int (*done)(void *);
    void *arg;
    unsigned long thread;
    pthread_cond_t cond;
    int woken;                 /* handed its completion or the poller role since it slept */
    int in_kernel;             /* the poller, asleep in the kernel: wake it by the eventfd */
    struct core_waiter *outer; /* the poller this wait took the role from (same thread) */
    struct core_waiter *prev, *next;
} core_waiter_t;

/* Lists w (waiting for done(arg)) / takes it off the list, handing on the poller role. */
void core_waiter_begin(core_waiter_t *w, int (*done)(void *), void *arg);
void core_waiter_end(core_waiter_t *w);
/* Whether w is the poller: it takes the role when nobody has it, or from a wait of its own
 * thread that it is nested in (that one is in the middle of a progress pass). */
int core_waiter_is_poller(core_waiter_t *w);
/* Sleeps on w's condition variable (every level released) until woken or timeout_ms. */
void core_waiter_sleep(core_waiter_t *w, int timeout_ms);
/* Wakes the kernel sleeper, if any, to look at the transports again. */
void core_lock_kick_sleeper(void);
/* The progress thread's sleep outside the kernel (every level released): only
 * core_lock_wake_sleeper (its stop) ends it before timeout_ms, not any completion. */
void core_lock_pause(int timeout_ms);
/* Something completed: wakes the waiters whose done() now holds, on their condition variable
 * or, the poller asleep in the kernel, by the eventfd (called with the lock held). */
void core_lock_notify(void);

/* Who sleeps in the kernel on the transports' descriptors (at most one; under the lock). */
typedef enum { SLEEPER_NONE = 0, SLEEPER_WAITER, SLEEPER_PROGRESS_THREAD } sleeper_t;
sleeper_t core_lock_sleeper(void);
void core_lock_set_sleeper(sleeper_t who);
/* The eventfd the kernel sleeper watches besides the transports' descriptors (-1 when the
 * lock is off), and the reset after a wake-up. */
int core_lock_wake_fd(void);
void core_lock_wake_drain(void);
/* Wakes every sleeper, in the kernel, on the condition variable or paused (the progress
 * thread's stop). */
void core_lock_wake_sleeper(void);

#endif
