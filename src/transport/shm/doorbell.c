#include "transport/shm/doorbell.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int shm_bell_addr(shm_bell_addr_t *a, const char *job_id, int rank)
{
    memset(a, 0, sizeof *a);
    a->sa.sun_family = AF_UNIX;
    int n = snprintf(a->sa.sun_path + 1, sizeof a->sa.sun_path - 1, "metampi.%s.bell.%d", job_id,
                     rank);
    if (n < 0 || (size_t)n >= sizeof a->sa.sun_path - 1)
        return -1;
    a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    return 0;
}

int shm_bell_open(const char *job_id, int rank, char *err, int errlen)
{
    shm_bell_addr_t a;
    if (shm_bell_addr(&a, job_id, rank) < 0) {
        snprintf(err, (size_t)errlen, "shm: rank %d: job id '%s' is too long for a socket name",
                 rank, job_id);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, (size_t)errlen, "shm: rank %d cannot create its doorbell socket: %s", rank,
                 strerror(errno));
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&a.sa, a.len) < 0) {
        snprintf(err, (size_t)errlen, "shm: rank %d cannot bind its doorbell @%s: %s", rank,
                 a.sa.sun_path + 1, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

void shm_bell_ring(int fd, const shm_bell_addr_t *a)
{
    char b = 1;
    while (sendto(fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)&a->sa,
                  a->len) < 0 &&
           errno == EINTR)
        ;
}

void shm_bell_drain(int fd)
{
    char buf[64];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
    }
}
