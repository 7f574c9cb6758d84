/*
 * net/liveness.c: METAMPI_PEER_TIMEOUT's parser, the keepalive tuning a socket gets for a
 * timeout, the silent-peer check on a healthy connection (never silent), and the heartbeat
 * periods.
 */
#include "net/liveness.h"
#include "runtime/peer_timeout.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static int opt(int fd, int level, int name)
{
    int v = -1;
    socklen_t l = sizeof v;
    getsockopt(fd, level, name, &v, &l);
    return v;
}

int main(void)
{
    int t;
    char err[200];
    CHECK(peer_timeout_parse(NULL, &t, err, sizeof err) == 0 && t == LIVENESS_DEFAULT_S);
    CHECK(peer_timeout_parse("", &t, err, sizeof err) == 0 && t == LIVENESS_DEFAULT_S);
    CHECK(peer_timeout_parse("0", &t, err, sizeof err) == 0 && t == 0);
    CHECK(peer_timeout_parse("86400", &t, err, sizeof err) == 0 && t == 86400);
    const char *bad[] = { "86401", "-1", "abc", "12x", "99999999999999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(peer_timeout_parse(bad[i], &t, err, sizeof err) == -1);
        CHECK(strstr(err, "METAMPI_PEER_TIMEOUT=") == err);
        CHECK(strstr(err, "is not a number of seconds from 0 (off) to 86400") != NULL);
    }

    /* keepalive: first probe after T/2, then every T/10, giving up at T */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(liveness_keepalive(fd, 60) == 0);
    CHECK(opt(fd, SOL_SOCKET, SO_KEEPALIVE) == 1);
    CHECK(opt(fd, IPPROTO_TCP, TCP_KEEPIDLE) == 30);
    CHECK(opt(fd, IPPROTO_TCP, TCP_KEEPINTVL) == 6);
    CHECK(opt(fd, IPPROTO_TCP, TCP_KEEPCNT) == 5);
    CHECK(liveness_keepalive(fd, 3) == 0);
    int idle = opt(fd, IPPROTO_TCP, TCP_KEEPIDLE), intvl = opt(fd, IPPROTO_TCP, TCP_KEEPINTVL);
    int cnt = opt(fd, IPPROTO_TCP, TCP_KEEPCNT);
    CHECK(idle >= 1 && intvl >= 1 && idle + intvl * cnt <= 3);
    CHECK(liveness_opening(fd, 60, 1) == 0 && opt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT) == 60000);
    CHECK(liveness_opening(fd, 60, 0) == 0 && opt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT) == 0);
    close(fd);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(liveness_keepalive(fd, 0) == 0 && opt(fd, SOL_SOCKET, SO_KEEPALIVE) == 0);

    /* a healthy connection is never silent */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 1) == 0);
    getsockname(l, (struct sockaddr *)&a, &al);
    CHECK(connect(fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(write(fd, "x", 1) == 1);
    usleep(100 * 1000);
    CHECK(liveness_silent(fd, 1) == 0);
    CHECK(liveness_silent(fd, 0) == 0);
    close(fd);
    close(l);

    long long period, timeout;
    liveness_heartbeat(60, &period, &timeout);
    CHECK(period == 7500 && timeout == 30000);
    liveness_heartbeat(0, &period, &timeout);
    CHECK(period == 0 && timeout == 0);
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    return failures != 0;
}
