#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

int util_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            poll(&pfd, 1, 1000);
        } else {
            return -1;
        }
    }
    return 0;
}

const char *util_hostname(void)
{
    static char name[256];
    if (!name[0]) {
        if (gethostname(name, sizeof name - 1) != 0 || !name[0])
            strcpy(name, "localhost");
        name[sizeof name - 1] = '\0';
    }
    return name;
}

static void (*msg_hook)(const char *text);

void util_set_msg_hook(void (*hook)(const char *text))
{
    msg_hook = hook;
}

void util_msg(const char *fmt, ...)
{
    char line[8192];
    int n = msg_hook ? 0 : snprintf(line, sizeof line, "mpirun: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (msg_hook) {
        msg_hook(line);
        return;
    }
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    util_write_all(STDERR_FILENO, line, (size_t)n);
}

void util_sanitize(char *dst, size_t cap, const char *src, size_t srclen, size_t max_chars)
{
    size_t o = 0;
    if (cap == 0)
        return;
    for (size_t i = 0; i < srclen && o + 4 < cap; i++) {
        if (i == max_chars) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        unsigned char c = (unsigned char)src[i];
        dst[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    dst[o] = '\0';
}

void *util_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        util_msg("out of memory");
        _exit(1);
    }
    return p;
}

void *util_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        util_msg("out of memory");
        _exit(1);
    }
    return p;
}

char *util_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(util_xmalloc(n), s, n);
}

int util_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int util_set_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFD);
    return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

int util_signalfd(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
        return -1;
    signal(SIGPIPE, SIG_IGN); /* write errors are handled where they happen */
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}
