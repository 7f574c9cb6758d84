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
 * Off unless the program asked for MPI_THREAD_MULTIPLE or METAMPI_ASYNC_PROGRESS starts the
 * progress thread (core_lock_enable, from MPI_Init): a program of a lower level pays one
 * predictable branch per call. The lock is recursive (library code may re-enter an MPI
 * function), and waiting releases all levels at once, as does every call into the program's
 * own code (core_lock_callout_begin: user callbacks never run with the lock held).
 *
 * Wake-ups. At most one thread at a time sleeps in the kernel on the transports' descriptors
 * (the "kernel sleeper", core/progress.c); it also watches an eventfd, which
 * core_lock_notify rings when another thread completed something while it sleeps. The other
 * waiting threads sleep on a condition variable that every progress pass with events
 * broadcasts. A completion done by any thread thus wakes its waiter within one wake-up,
 * never after the sleeper's safety timeout.
 */
#ifndef METAMPI_LOCK_H
#define METAMPI_LOCK_H

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

void core_lock_enter_slow(void);
void core_lock_exit_slow(void);

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
/* Sleeps on the condition variable (the lock released, every level) until a notify or
 * timeout_ms; returns with the lock held as before. */
void core_lock_wait(int timeout_ms);
/* The progress thread's sleep outside the kernel: like core_lock_wait, but only
 * core_lock_wake_sleeper (its stop) ends it before timeout_ms, not every completion. */
void core_lock_pause(int timeout_ms);
/* Something completed: wakes the threads on the condition variable and the kernel sleeper
 * when it waits for the program (called with the lock held). */
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
