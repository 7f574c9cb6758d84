#include "net/sock.h"

#include "net/clock.h"
#include "net/liveness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

void net_addr_text(const struct sockaddr *a, char *out, size_t cap)
{
    net_addr_t n;
    net_addr_from_sockaddr(&n, a);
    net_addr_format(&n, out, cap);
}

int net_stream_options(int fd, int timeout_s)
{
    int one = 1, fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
        liveness_keepalive(fd, timeout_s) != 0 || liveness_opening(fd, timeout_s, 1) != 0)
        return -1;
    return 0;
}

void net_set_buffers(int fd, int sndbuf, int rcvbuf, int force)
{
    if (sndbuf > 0)
        setsockopt(fd, SOL_SOCKET, force ? SO_SNDBUFFORCE : SO_SNDBUF, &sndbuf, sizeof sndbuf);
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, force ? SO_RCVBUFFORCE : SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
}

int net_socket_for(const net_addr_t *a, int nonblock)
{
    if (!a->len) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    return socket(a->u.sa.sa_family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0),
                  0);
}

int net_listen(net_addr_t *a, int backlog, int reuse)
{
    int fd = net_socket_for(a, 1);
    if (fd < 0)
        return -1;
    int one = 1, v6only = !net_addr_is_wildcard(a);
    socklen_t al = a->len;
    if ((reuse && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0) ||
        (net_addr_family(a) == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only) != 0) ||
        bind(fd, &a->u.sa, a->len) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, &a->u.sa, &al) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int net_listen_range(net_addr_t *a, int backlog, int reuse, int lo, int hi)
{
    if (lo <= 0)
        return net_listen(a, backlog, reuse);
    unsigned n = (unsigned)(hi - lo + 1), start = (unsigned)getpid() % n;
    for (unsigned k = 0; k < n; k++) {
        net_addr_set_port(a, lo + (int)((start + k) % n));
        int fd = net_listen(a, backlog, reuse);
        if (fd >= 0 || errno != EADDRINUSE)
            return fd;
    }
    errno = EADDRINUSE;
    return -1;
}

int net_port_range_parse(const char *s, int *lo, int *hi)
{
    char tail;
    if (!s || sscanf(s, "%d-%d%c", lo, hi, &tail) != 2 || *lo < 1 || *hi > 65535 || *lo > *hi ||
        s[0] < '0' || s[0] > '9')
        return -1;
    return 0;
}

int net_wait(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - net_now_ms();
        if (left <= 0)
            return -1;
        struct pollfd p = { .fd = fd, .events = events };
        int rc = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (rc > 0)
            return 0;
        if (rc < 0 && errno != EINTR)
            return -1;
    }
}

int net_read_full(int fd, void *buf, size_t n, long long deadline)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r == 0)
            return -1;
        if (errno == EINTR)
            continue;
        if ((errno != EAGAIN && errno != EWOULDBLOCK) || net_wait(fd, POLLIN, deadline) != 0)
            return -1;
    }
    return 0;
}

void net_drain_to_eof(int fd, long long deadline)
{
    while (net_now_ms() < deadline) {
        unsigned char sink[65536];
        ssize_t n = read(fd, sink, sizeof sink);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return;
        if (n < 0 && errno != EINTR && net_wait(fd, POLLIN, deadline) != 0)
            return;
    }
}

int net_congestion_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n >= NET_CONGESTION_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
              name[i] == '_'))
            return 0;
    return 1;
}

int net_congestion_try(const char *name)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int rc = setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name));
    int e = rc == 0 ? 0 : errno;
    close(fd);
    return e;
}

void net_congestion_set(int fd, const char *name)
{
    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, (socklen_t)strlen(name));
}
