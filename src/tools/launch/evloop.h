/*
 * A minimal single-threaded poll(2) event loop.
 *
 * Each watched fd has one callback. Invariants:
 *   - an fd is watched at most once; ev_watch() on a watched fd replaces its events/callback;
 *   - callbacks may watch, unwatch or close any fd (including their own) while the loop
 *     dispatches: an fd unwatched during a dispatch round receives no further callbacks in
 *     that round, even if its number is reused for a new watch;
 *   - events == 0 keeps the entry but polls nothing (a paused watcher).
 * Timers are not part of the loop: the caller passes the timeout of each round.
 */
#ifndef MPIRUN_EVLOOP_H
#define MPIRUN_EVLOOP_H

typedef void (*ev_cb_t)(void *arg, int fd, short revents);

typedef struct ev_entry {
    int fd;
    short events;
    unsigned long gen;  /* changes whenever the entry is (re)used, see dispatch */
    ev_cb_t cb;
    void *arg;
} ev_entry_t;

typedef struct ev_loop {
    ev_entry_t *e;
    int n, cap;
    unsigned long next_gen;
} ev_loop_t;

void ev_init(ev_loop_t *loop);
void ev_free(ev_loop_t *loop);
void ev_watch(ev_loop_t *loop, int fd, short events, ev_cb_t cb, void *arg);
void ev_set_events(ev_loop_t *loop, int fd, short events);
void ev_unwatch(ev_loop_t *loop, int fd);
/* Polls once (timeout_ms < 0: forever) and dispatches. Returns the number of callbacks run. */
int ev_run_once(ev_loop_t *loop, int timeout_ms);

#endif
