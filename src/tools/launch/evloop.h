/*
 * A minimal single-threaded event loop on epoll(7), level-triggered, with poll(2)'s event
 * bits (POLLIN, POLLOUT, POLLERR, POLLHUP) in its interface.
 *
 * Each watched fd has one callback. Invariants:
 *   - an fd is watched at most once; ev_watch() on a watched fd replaces its events/callback;
 *   - callbacks may watch, unwatch or close any fd (including their own) while the loop
 *     dispatches: an fd unwatched during a dispatch round receives no further callbacks in
 *     that round, even if its number is reused for a new watch;
 *   - events == 0 keeps the entry but polls nothing (a paused watcher; not even POLLHUP);
 *   - an fd must be unwatched before it is closed (a descriptor that a child process still
 *     holds would otherwise stay in the epoll set);
 *   - an fd epoll cannot watch (a regular file or /dev/null as stdin) counts as always ready,
 *     as poll(2) has it.
 * Cost: a round is one epoll_wait and the ready fds' callbacks, whatever the number of
 * watched fds (a gateway under a flood of idle connections); lookups are by fd number.
 * Timers are not part of the loop: the caller passes the timeout of each round.
 */
#ifndef MPIRUN_EVLOOP_H
#define MPIRUN_EVLOOP_H

typedef void (*ev_cb_t)(void *arg, int fd, short revents);

typedef struct ev_entry {
    short events;       /* 0: unused, or paused */
    short registered;   /* the events epoll has for it (0: not in the set) */
    int used;
    int always;         /* epoll refused it (EPERM): always ready */
    unsigned gen;       /* changes whenever the entry is (re)used, see dispatch */
    ev_cb_t cb;
    void *arg;
} ev_entry_t;

typedef struct ev_loop {
    int ep;             /* the epoll instance, -1 until the first watch */
    ev_entry_t *e;      /* indexed by fd */
    int cap;
    int nalways;        /* entries with always set */
    unsigned next_gen;
} ev_loop_t;

void ev_init(ev_loop_t *loop);
void ev_free(ev_loop_t *loop);
void ev_watch(ev_loop_t *loop, int fd, short events, ev_cb_t cb, void *arg);
void ev_set_events(ev_loop_t *loop, int fd, short events);
void ev_unwatch(ev_loop_t *loop, int fd);
/* Waits once (timeout_ms < 0: forever) and dispatches. Returns the number of callbacks run. */
int ev_run_once(ev_loop_t *loop, int timeout_ms);

#endif
