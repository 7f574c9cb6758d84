/*
 * The launcher's event loop (tools/launch/evloop.c, epoll): readiness and paused watchers;
 * a callback that unwatches (or closes and reuses the number of) another fd that is ready in
 * the same round stops that fd's callback; re-watching replaces the callback; a regular file
 * and /dev/null (which epoll refuses) are always ready, as with poll(2); a loop with 3000
 * idle watched fds and one busy one runs a round in about the time of an empty one.
 */
#include "evloop.h"

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static int calls[1 << 16];
static short last[1 << 16];

static void count(void *arg, int fd, short revents)
{
    (void)arg;
    calls[fd]++;
    last[fd] = revents;
}

static ev_loop_t *the_loop;
static int victim = -1, reused = -1;

/* Unwatches and closes the victim, and makes a new fd (likely with its number) watched. */
static void killer(void *arg, int fd, short revents)
{
    (void)arg;
    count(NULL, fd, revents);
    if (victim < 0)
        return;
    ev_unwatch(the_loop, victim);
    close(victim);
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    reused = sv[0];
    if (write(sv[1], "y", 1) != 1)
        failures++;
    ev_watch(the_loop, reused, POLLIN, count, NULL);
    victim = -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
    ev_loop_t loop;
    ev_init(&loop);
    the_loop = &loop;

    /* readiness, paused watchers, events changed */
    int a[2], b[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, a) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, b) == 0);
    ev_watch(&loop, a[0], POLLIN, count, NULL);
    ev_watch(&loop, b[0], POLLIN, count, NULL);
    CHECK(ev_run_once(&loop, 0) == 0);
    CHECK(write(a[1], "x", 1) == 1);
    CHECK(ev_run_once(&loop, 100) == 1);
    CHECK(calls[a[0]] == 1 && (last[a[0]] & POLLIN));
    CHECK(ev_run_once(&loop, 0) == 1); /* level-triggered: still readable */
    ev_set_events(&loop, a[0], 0);     /* paused: nothing, not even a hang-up */
    close(a[1]);
    CHECK(ev_run_once(&loop, 0) == 0);
    ev_set_events(&loop, a[0], POLLIN);
    CHECK(ev_run_once(&loop, 0) == 1);
    ev_set_events(&loop, b[0], POLLOUT);
    calls[b[0]] = 0;
    ev_run_once(&loop, 0);
    CHECK(calls[b[0]] == 1 && (last[b[0]] & POLLOUT) && !(last[b[0]] & POLLIN));
    ev_unwatch(&loop, a[0]);
    close(a[0]);

    /* a callback unwatches and closes an fd that is ready in the same round; the number is
     * reused at once: neither the old nor the new watcher runs in this round */
    int k[2], v[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, k) == 0);
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, v) == 0);
    victim = v[0];
    int victim_fd = v[0];
    ev_set_events(&loop, b[0], 0);
    ev_watch(&loop, k[0], POLLIN, killer, NULL);
    ev_watch(&loop, victim_fd, POLLIN, count, NULL);
    CHECK(write(k[1], "x", 1) == 1 && write(v[1], "x", 1) == 1);
    calls[victim_fd] = 0;
    ev_run_once(&loop, 100);
    /* whichever came first, the victim's callback may have run before the killer, not after */
    if (reused == victim_fd)
        CHECK(calls[victim_fd] <= 1);
    int before = calls[reused];
    ev_run_once(&loop, 100);
    CHECK(calls[reused] == before + 1); /* the new watcher runs in the next round */
    ev_unwatch(&loop, k[0]);
    ev_unwatch(&loop, reused);

    /* re-watching replaces the callback */
    int r[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, r) == 0);
    ev_watch(&loop, r[0], POLLIN, killer, NULL);
    ev_watch(&loop, r[0], POLLIN, count, NULL);
    CHECK(write(r[1], "x", 1) == 1);
    calls[r[0]] = 0;
    victim = -1;
    CHECK(ev_run_once(&loop, 100) == 1 && calls[r[0]] == 1);
    ev_unwatch(&loop, r[0]);

    /* what epoll refuses is always ready */
    int devnull = open("/dev/null", O_RDONLY);
    char tmpl[] = "/tmp/evloopXXXXXX";
    int file = mkstemp(tmpl);
    unlink(tmpl);
    ev_watch(&loop, devnull, POLLIN, count, NULL);
    ev_watch(&loop, file, POLLIN, count, NULL);
    calls[devnull] = calls[file] = 0;
    double t0 = now_s();
    ev_run_once(&loop, 1000);
    CHECK(now_s() - t0 < 0.5);
    CHECK(calls[devnull] == 1 && calls[file] == 1);
    ev_set_events(&loop, file, 0);
    calls[file] = 0;
    ev_run_once(&loop, 0);
    CHECK(calls[file] == 0);
    ev_unwatch(&loop, devnull);
    ev_unwatch(&loop, file);
    close(devnull);
    close(file);
    t0 = now_s();
    ev_run_once(&loop, 50); /* nothing always-ready left: the timeout holds */
    CHECK(now_s() - t0 >= 0.04);

    /* many idle fds: a round costs what an empty one does */
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    int want = 3000;
    if ((long)rl.rlim_cur < 2 * want + 64 && (long)rl.rlim_max >= 2 * want + 64) {
        rl.rlim_cur = (rlim_t)(2 * want + 64);
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int idle = 0, (*pairs)[2] = malloc((size_t)want * sizeof *pairs);
    for (; idle < want && socketpair(AF_UNIX, SOCK_STREAM, 0, pairs[idle]) == 0; idle++)
        ev_watch(&loop, pairs[idle][0], POLLIN, count, NULL);
    int busy[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, busy) == 0 && write(busy[1], "x", 1) == 1);
    ev_watch(&loop, busy[0], POLLIN, count, NULL);
    t0 = now_s();
    int rounds = 2000, ran = 0;
    for (int i = 0; i < rounds; i++)
        ran += ev_run_once(&loop, 0);
    double per_round = (now_s() - t0) / rounds;
    CHECK(ran == rounds);
    printf("%d idle fds: %.1f us per round\n", idle, per_round * 1e6);
    CHECK(per_round < 200e-6); /* poll(2) over 3000 fds took several times this */
    for (int i = 0; i < idle; i++) {
        ev_unwatch(&loop, pairs[i][0]);
        close(pairs[i][0]);
        close(pairs[i][1]);
    }
    free(pairs);
    ev_free(&loop);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures != 0;
}
