/*
 * net/secure.c over a socket pair, one side in a child process: the handshake under equal and
 * different PSKs, 3 MiB through outq (a small send buffer, so writes find the socket full and
 * offer the sealed record again) read back in order. Altered, replayed and injected records:
 * gateway.Mitm.* (tests/gateway/test_wan_security.py).
 */
#include "net/clock.h"
#include "net/outq.h"
#include "net/secure.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

enum { TOTAL = 3 << 20 };

static void psk_of(unsigned char psk[NET_SECURE_PSK], unsigned char tweak)
{
    auth_key_t k;
    unsigned char na[AUTH_NONCE] = { 1 }, nc[AUTH_NONCE] = { 2 };
    memset(k.b, 7, sizeof k.b);
    k.b[0] = tweak;
    net_secure_psk(&k, "test", na, nc, psk);
}

/* The child: the server; reads TOTAL bytes and checks them (exit status 0 when right). */
static int serve(int fd, unsigned char tweak)
{
    unsigned char psk[NET_SECURE_PSK];
    char err[256];
    psk_of(psk, tweak);
    net_secure_t *s = net_secure_open(fd, 1, psk, net_now_ms() + 5000, err, sizeof err);
    if (!s)
        return 2;
    size_t got = 0;
    unsigned char buf[70000];
    while (got < TOTAL) {
        struct iovec v = { buf, sizeof buf };
        long r = net_secure_readv(s, &v, 1);
        if (r < 0 && errno == EAGAIN) {
            struct pollfd p = { .fd = fd, .events = POLLIN };
            poll(&p, 1, 1000);
            continue;
        }
        if (r <= 0)
            return 3;
        for (long i = 0; i < r; i++)
            if (buf[i] != (unsigned char)((got + (size_t)i) * 13))
                return 4;
        got += (size_t)r;
    }
    net_secure_free(s);
    return 0;
}

static int run(unsigned char client_tweak, int *status)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    int small = 4096;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small); /* full often */
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        _exit(serve(sv[1], 1));
    }
    close(sv[1]);
    unsigned char psk[NET_SECURE_PSK];
    char err[256];
    psk_of(psk, client_tweak);
    net_secure_t *s = net_secure_open(sv[0], 0, psk, net_now_ms() + 5000, err, sizeof err);
    int opened = s != NULL;
    if (s) {
        unsigned char *data = malloc(TOTAL);
        for (size_t i = 0; i < TOTAL; i++)
            data[i] = (unsigned char)(i * 13);
        net_outq_t q = { 0 };
        q.sec = s;
        /* segments of odd sizes: records gathered from several, and cut inside one */
        for (size_t at = 0; at < TOTAL;) {
            size_t n = at % 7 == 0 ? 100000 : 1 + at % 3000;
            if (n > TOTAL - at)
                n = TOTAL - at;
            net_outq_push(&q, data + at, n, NULL, (net_completion_t){ 0 });
            at += n;
        }
        CHECK(net_outq_drain(&q, sv[0], net_now_ms() + 10000) == 1);
        net_outq_free(&q);
        free(data);
        net_secure_free(s);
    }
    close(sv[0]);
    waitpid(pid, status, 0);
    return opened;
}

int main(void)
{
    int status;
    CHECK(run(1, &status) == 1);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* another key: no handshake on either side */
    CHECK(run(9, &status) == 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    return failures != 0;
}
