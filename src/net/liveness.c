#include "net/liveness.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* Probes after T/2 of silence, then every T/10, as many as fit in the rest of T. */
static void keepalive_params(int t, int *idle, int *intvl, int *cnt)
{
    *idle = t / 2 > 0 ? t / 2 : 1;
    *intvl = t / 10 > 0 ? t / 10 : 1;
    *cnt = (t - *idle) / *intvl > 0 ? (t - *idle) / *intvl : 1;
}

int liveness_keepalive(int fd, int seconds)
{
    if (seconds <= 0)
        return 0;
    int one = 1, idle, intvl, cnt;
    keepalive_params(seconds, &idle, &intvl, &cnt);
    if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl) != 0 ||
        setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt) != 0)
        return -1;
    return 0;
}

int liveness_opening(int fd, int seconds, int on)
{
    if (seconds <= 0)
        return 0;
    unsigned ms = on ? (unsigned)seconds * 1000u : 0;
    return setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof ms);
}

int liveness_silent(int fd, int seconds)
{
    if (seconds <= 0)
        return 0;
    struct tcp_info ti;
    socklen_t l = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) != 0)
        return 0;
    /* Waiting for an answer: data retransmitted (its acknowledgement is overdue), or two
     * window probes in a row unanswered (a peer with a full window answers every probe).
     * Keepalive replies, window-probe replies and acknowledgements all renew last_ack_recv,
     * so a live peer never leaves it at T while we wait. */
    int waiting = ti.tcpi_retransmits > 0 || ti.tcpi_probes > 1;
    return waiting && ti.tcpi_last_ack_recv >= (unsigned)seconds * 1000u;
}

void liveness_heartbeat(int seconds, long long *period_ms, long long *timeout_ms)
{
    if (seconds <= 0) {
        *period_ms = *timeout_ms = 0;
        return;
    }
    *period_ms = seconds * 1000LL / 8;
    *timeout_ms = seconds * 1000LL / 2;
}
