#include "net/hsio.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int net_hs_read(net_hs_io_t *h, int fd, size_t want)
{
    if (want > sizeof h->in)
        want = sizeof h->in;
    while (h->got < want) {
        ssize_t n = read(fd, h->in + h->got, want - h->got);
        if (n > 0) {
            h->got += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        h->last_errno = n < 0 ? errno : 0;
        return -1;
    }
    return 1;
}

int net_hs_flush(net_hs_io_t *h, int fd)
{
    while (h->out_off < h->out_len) {
        ssize_t n = send(fd, h->out + h->out_off, h->out_len - h->out_off,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            h->out_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return -1;
    }
    return 1;
}

int net_hs_send(net_hs_io_t *h, int fd, const void *msg, size_t n)
{
    if (n > sizeof h->out)
        n = sizeof h->out;
    memcpy(h->out, msg, n);
    h->out_len = n;
    h->out_off = 0;
    return net_hs_flush(h, fd);
}
