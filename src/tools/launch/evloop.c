#include "evloop.h"

#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>

void ev_init(ev_loop_t *loop)
{
    loop->e = NULL;
    loop->n = loop->cap = 0;
    loop->next_gen = 1;
}

void ev_free(ev_loop_t *loop)
{
    free(loop->e);
    ev_init(loop);
}

static ev_entry_t *find(ev_loop_t *loop, int fd)
{
    for (int i = 0; i < loop->n; i++)
        if (loop->e[i].fd == fd)
            return &loop->e[i];
    return NULL;
}

void ev_watch(ev_loop_t *loop, int fd, short events, ev_cb_t cb, void *arg)
{
    ev_entry_t *x = find(loop, fd);
    if (!x) {
        if (loop->n == loop->cap) {
            loop->cap = loop->cap ? 2 * loop->cap : 16;
            loop->e = util_xrealloc(loop->e, (size_t)loop->cap * sizeof *loop->e);
        }
        x = &loop->e[loop->n++];
    }
    x->fd = fd;
    x->events = events;
    x->gen = loop->next_gen++;
    x->cb = cb;
    x->arg = arg;
}

void ev_set_events(ev_loop_t *loop, int fd, short events)
{
    ev_entry_t *x = find(loop, fd);
    if (x)
        x->events = events;
}

void ev_unwatch(ev_loop_t *loop, int fd)
{
    ev_entry_t *x = find(loop, fd);
    if (x) {
        *x = loop->e[loop->n - 1];
        loop->n--;
    }
}

int ev_run_once(ev_loop_t *loop, int timeout_ms)
{
    size_t n = loop->n > 0 ? (size_t)loop->n : 0;
    struct pollfd *pfd = util_xmalloc((n ? n : 1) * sizeof *pfd);
    unsigned long *gen = util_xmalloc((n ? n : 1) * sizeof *gen);
    for (size_t i = 0; i < n; i++) {
        pfd[i].fd = loop->e[i].events ? loop->e[i].fd : -1;
        pfd[i].events = loop->e[i].events;
        pfd[i].revents = 0;
        gen[i] = loop->e[i].gen;
    }
    int rc = poll(pfd, n, timeout_ms);
    int ran = 0;
    if (rc > 0) {
        for (size_t i = 0; i < n; i++) {
            if (!pfd[i].revents)
                continue;
            /* The entry may have moved or gone since poll: look it up by fd and generation. */
            ev_entry_t *x = find(loop, pfd[i].fd);
            if (!x || x->gen != gen[i] || !x->events)
                continue;
            x->cb(x->arg, x->fd, pfd[i].revents);
            ran++;
        }
    } else if (rc < 0 && errno != EINTR) {
        util_msg("poll failed: %m");
    }
    free(pfd);
    free(gen);
    return ran;
}
