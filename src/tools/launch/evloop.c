#include "evloop.h"

#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

enum { MAX_EVENTS = 256 };  /* per round; level-triggered, so the rest come next round */

void ev_init(ev_loop_t *loop)
{
    memset(loop, 0, sizeof *loop);
    loop->ep = epoll_create1(EPOLL_CLOEXEC);
    if (loop->ep < 0) {
        util_msg("cannot create an epoll instance: %m");
        exit(1);
    }
    loop->next_gen = 1;
}

void ev_free(ev_loop_t *loop)
{
    if (loop->ep >= 0)
        close(loop->ep);
    free(loop->e);
    memset(loop, 0, sizeof *loop);
    loop->ep = -1;
}

static ev_entry_t *entry(ev_loop_t *loop, int fd)
{
    return fd >= 0 && fd < loop->cap && loop->e[fd].used ? &loop->e[fd] : NULL;
}

/* Brings epoll's view of fd in line with its entry. (POLL* and EPOLL* bits are equal.) */
static void sync_fd(ev_loop_t *loop, int fd)
{
    ev_entry_t *x = &loop->e[fd];
    if (x->always)
        return;
    short want = x->used ? (short)(x->events & (POLLIN | POLLOUT | POLLPRI)) : 0;
    if (want == x->registered)
        return;
    struct epoll_event ev = { .events = (uint32_t)want, .data.fd = fd };
    int rc;
    if (!want) {
        rc = epoll_ctl(loop->ep, EPOLL_CTL_DEL, fd, NULL);
    } else if (!x->registered) {
        rc = epoll_ctl(loop->ep, EPOLL_CTL_ADD, fd, &ev);
        if (rc != 0 && errno == EEXIST)
            rc = epoll_ctl(loop->ep, EPOLL_CTL_MOD, fd, &ev);
    } else {
        rc = epoll_ctl(loop->ep, EPOLL_CTL_MOD, fd, &ev);
        if (rc != 0 && errno == ENOENT)
            rc = epoll_ctl(loop->ep, EPOLL_CTL_ADD, fd, &ev);
    }
    if (rc != 0 && want && errno == EPERM) { /* a regular file, /dev/null: always ready */
        x->always = 1;
        loop->nalways++;
        x->registered = 0;
        return;
    }
    x->registered = rc == 0 ? want : 0;
}

void ev_watch(ev_loop_t *loop, int fd, short events, ev_cb_t cb, void *arg)
{
    if (fd < 0)
        return;
    if (fd >= loop->cap) {
        int cap = loop->cap ? loop->cap : 64;
        while (cap <= fd)
            cap *= 2;
        loop->e = util_xrealloc(loop->e, (size_t)cap * sizeof *loop->e);
        memset(loop->e + loop->cap, 0, (size_t)(cap - loop->cap) * sizeof *loop->e);
        loop->cap = cap;
    }
    ev_entry_t *x = &loop->e[fd];
    x->used = 1;
    x->events = events;
    x->gen = loop->next_gen++;
    x->cb = cb;
    x->arg = arg;
    sync_fd(loop, fd);
}

void ev_set_events(ev_loop_t *loop, int fd, short events)
{
    ev_entry_t *x = entry(loop, fd);
    if (x && x->events != events) {
        x->events = events;
        sync_fd(loop, fd);
    }
}

void ev_unwatch(ev_loop_t *loop, int fd)
{
    ev_entry_t *x = entry(loop, fd);
    if (!x)
        return;
    x->used = 0;
    x->events = 0;
    sync_fd(loop, fd);
    if (x->always) {
        x->always = 0;
        loop->nalways--;
    }
}

int ev_run_once(ev_loop_t *loop, int timeout_ms)
{
    struct epoll_event ev[MAX_EVENTS];
    int n = epoll_wait(loop->ep, ev, MAX_EVENTS, loop->nalways ? 0 : timeout_ms);
    if (n < 0) {
        if (errno != EINTR)
            util_msg("epoll_wait failed: %m");
        n = 0;
    }
    /* The round's work, with each fd's generation as it is now: a callback that unwatches
     * (or re-watches) an fd cancels that fd's place in this round. */
    int nal = 0;
    for (int fd = 0; loop->nalways && fd < loop->cap; fd++)
        nal += loop->e[fd].used && loop->e[fd].always;
    int total = n + nal;
    struct ready { int fd; short revents; unsigned gen; } *w =
        util_xmalloc((size_t)(total ? total : 1) * sizeof *w);
    int k = 0;
    for (int i = 0; i < n; i++) {
        int fd = ev[i].data.fd;
        ev_entry_t *x = entry(loop, fd);
        if (x)
            w[k++] = (struct ready){ fd, (short)ev[i].events, x->gen };
    }
    for (int fd = 0; nal && fd < loop->cap; fd++)
        if (loop->e[fd].used && loop->e[fd].always)
            w[k++] = (struct ready){ fd, (short)(loop->e[fd].events & (POLLIN | POLLOUT)),
                                     loop->e[fd].gen };
    int ran = 0;
    for (int i = 0; i < k; i++) {
        ev_entry_t *x = entry(loop, w[i].fd);
        if (!x || x->gen != w[i].gen || !x->events)
            continue;
        short re = (short)(w[i].revents & (x->events | POLLERR | POLLHUP));
        if (!re)
            continue;
        x->cb(x->arg, w[i].fd, re);
        ran++;
    }
    free(w);
    return ran;
}
