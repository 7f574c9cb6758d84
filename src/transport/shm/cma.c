#include "transport/shm/cma.h"

#include "transport/transport.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>

void shm_cma_allow_readers(void)
{
    /* EINVAL: no Yama in this kernel, and then nothing restricts same-user readers. */
    (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

/* A position in an iovec list: entry i, byte off within it. */
typedef struct iov_pos {
    const struct iovec *v;
    int n, i;
    size_t off;
} iov_pos_t;

static void skip_empty(iov_pos_t *p)
{
    while (p->i < p->n && p->off == p->v[p->i].iov_len) {
        p->i++;
        p->off = 0;
    }
}

/* Up to max entries from p, at most limit bytes; returns the entries, *bytes what they hold. */
static int take(const iov_pos_t *p, struct iovec *out, int max, size_t limit, size_t *bytes)
{
    int k = 0;
    size_t sum = 0, off = p->off;
    for (int i = p->i; i < p->n && k < max && sum < limit; i++, off = 0) {
        size_t len = p->v[i].iov_len - off;
        if (!len)
            continue;
        if (len > limit - sum)
            len = limit - sum;
        out[k++] = (struct iovec){ (char *)p->v[i].iov_base + off, len };
        sum += len;
    }
    *bytes = sum;
    return k;
}

static void advance(iov_pos_t *p, size_t n)
{
    while (n) {
        size_t len = p->v[p->i].iov_len - p->off;
        size_t m = n < len ? n : len;
        p->off += m;
        n -= m;
        skip_empty(p);
    }
    skip_empty(p);
}

static int copyv(pid_t pid, int peer, const struct iovec *local, int nlocal,
                 const struct iovec *remote, int nremote, int write, char *err, int errlen)
{
    /* The kernel takes at most IOV_MAX entries per side, may copy less than asked (it stops
     * at a page it cannot fault in, and caps one call at MAX_RW_COUNT): a short count at
     * valid addresses just means "call again from there". */
    struct iovec lb[IOV_MAX], rb[IOV_MAX];
    iov_pos_t l = { local, nlocal, 0, 0 }, r = { remote, nremote, 0, 0 };
    size_t done = 0;
    skip_empty(&l);
    skip_empty(&r);
    while (l.i < l.n && r.i < r.n) {
        size_t lbytes, rbytes;
        int nl = take(&l, lb, IOV_MAX, SIZE_MAX, &lbytes);
        int nr = take(&r, rb, IOV_MAX, lbytes, &rbytes);
        if (rbytes < lbytes)
            nl = take(&l, lb, IOV_MAX, rbytes, &lbytes);
        ssize_t n = write ? process_vm_writev(pid, lb, (unsigned long)nl, rb, (unsigned long)nr, 0)
                          : process_vm_readv(pid, lb, (unsigned long)nl, rb, (unsigned long)nr, 0);
        if (n > 0) {
            advance(&l, (size_t)n);
            advance(&r, (size_t)n);
            done += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EPERM || errno == ENOSYS) && done == 0)
            return TR_RMA_UNSUPPORTED;
        snprintf(err, (size_t)errlen,
                 "shm: cannot %s %zu bytes at 0x%llx %s rank %d (pid %d) after %zu bytes: %s",
                 write ? "write" : "read", rbytes, (unsigned long long)(uintptr_t)rb[0].iov_base,
                 write ? "of" : "from", peer, (int)pid, done,
                 n == 0 ? "no progress" : strerror(errno));
        return -1;
    }
    return TR_RMA_OK;
}

int shm_cma_readv(pid_t pid, int peer, const struct iovec *local, int nlocal,
                  const struct iovec *remote, int nremote, char *err, int errlen)
{
    return copyv(pid, peer, local, nlocal, remote, nremote, 0, err, errlen);
}

int shm_cma_writev(pid_t pid, int peer, const struct iovec *local, int nlocal,
                   const struct iovec *remote, int nremote, char *err, int errlen)
{
    return copyv(pid, peer, local, nlocal, remote, nremote, 1, err, errlen);
}
