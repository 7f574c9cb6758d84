/* The progress engine's parts shared by its single-threaded waiting (core/progress.c) and its
 * waiting with threads and the progress thread (core/progress_threads.c). */
#ifndef METAMPI_PROGRESS_INT_H
#define METAMPI_PROGRESS_INT_H

#include "core/lock.h"

#include <stdint.h>

/* The longest a sleep in poll() lasts: a lost wake-up costs at most this, never a hang. */
enum { SLEEP_SAFETY_MS = 250 };

extern uint64_t progress_spin_ns; /* spin this long before sleeping (progress_configure) */
extern uint64_t progress_far_spin_ns; /* ... in progress_wait_far (METAMPI_WAN_SPIN_US) */
extern int progress_oversubscribed; /* more ranks than CPUs on this host */
uint64_t progress_now_ns(void);

/* One sleep in the kernel on the transports' descriptors and the launcher connection, unless
 * a last pass finds events or done(arg). who is SLEEPER_NONE without threads; with threads,
 * the role the caller takes while it sleeps (the lock released, the eventfd watched). */
void progress_sleep_once(int (*done)(void *), void *arg, sleeper_t who);

/* Threads waiting in their spin phase, and waits begun so far (progress_threads.c; under the
 * lock): the progress thread keeps out of the kernel while the program waits itself. */
extern int progress_spinning;
extern unsigned progress_waits;

/* progress_wait_until when the core lock is on; spin_ns: how long its poller spins. */
void progress_wait_threads(int (*done)(void *), void *arg, uint64_t spin_ns);

#endif
