/* The aggregator's side of two-phase collective I/O (twophase.h): the pieces it received,
 * sorted by offset, moved with few large system calls. Holes between pieces are never
 * written (no read-modify-write: bytes nobody accesses in the call are never touched). */
#include "io/twophase.h"

#include "io/file.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>

/* iovecs per aggregator call (Linux's IOV_MAX) */
#define IOV_PER_AGGREGATE 1024

static int by_offset(const void *a, const void *b)
{
    const io_ref_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

int io_aggregate(int fd, io_ref_t *refs, size_t n, int write)
{
    qsort(refs, n, sizeof *refs, by_offset);
    struct iovec iov[IOV_PER_AGGREGATE];
    size_t i = 0;
    while (i < n) {
        int k = 0;
        int64_t start = refs[i].off, end = start;
        while (i < n && k < IOV_PER_AGGREGATE && refs[i].off == end) {
            iov[k].iov_base = refs[i].data;
            iov[k++].iov_len = (size_t)refs[i].len;
            end += refs[i].len;
            i++;
        }
        if (k == 0) { /* overlapping piece: on its own */
            iov[k].iov_base = refs[i].data;
            iov[k++].iov_len = (size_t)refs[i].len;
            start = refs[i].off;
            i++;
        }
        struct iovec *v = iov;
        int64_t at = start;
        while (k > 0) {
            ssize_t r = write ? pwritev(fd, v, k, (off_t)at) : preadv(fd, v, k, (off_t)at);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return io_errno_class(errno);
            if (r == 0) /* a read at the end of the file: the rest stays zero */
                break;
            at += r;
            while (k > 0 && (size_t)r >= v->iov_len) {
                r -= (ssize_t)v->iov_len;
                v++, k--;
            }
            if (k > 0) {
                v->iov_base = (char *)v->iov_base + r;
                v->iov_len -= (size_t)r;
            }
        }
    }
    return MPI_SUCCESS;
}

