/*
 * The bytes waiting to go out on one connection: a FIFO of segments, written with one
 * sendmsg per flush. A segment is either owned (a copy, freed once written) or borrowed (the
 * caller's memory, zero-copy); the last segment of a zero-copy frame carries the caller's
 * completion, which is reported — not called — when it has been written, so that it runs
 * from its owner's progress and never inside a send.
 */
#ifndef METAMPI_NET_OUTQ_H
#define METAMPI_NET_OUTQ_H

#include "net/frame.h"
#include "net/secure.h"

#include <stddef.h>
#include <sys/uio.h>

typedef struct net_completion {
    void (*sent)(void *ctx);
    void *ctx;
} net_completion_t;

typedef struct net_seg {
    const unsigned char *p;    /* the unwritten rest */
    size_t len;
    void *owned;               /* freed when written; NULL for borrowed memory */
    net_completion_t done;     /* sent == NULL: nothing to report */
} net_seg_t;

typedef struct net_outq {
    net_seg_t *seg;            /* ring of cap entries, n of them used from first */
    size_t cap, first, n;
    size_t copied, borrowed;   /* bytes queued in owned / borrowed segments */
    net_secure_t *sec;         /* not NULL: written through TLS (secure.h); the owner's */
} net_outq_t;

/* Appends a segment; 0, or -1 when out of memory. owned != NULL: freed when written (also by
 * net_outq_free). */
int net_outq_push(net_outq_t *q, const void *p, size_t len, void *owned, net_completion_t done);
/* Appends a copy of the iovecs (skipping `skip` bytes of them) as one owned segment. */
int net_outq_push_copy(net_outq_t *q, const struct iovec *iov, int iovcnt, size_t skip);
/* Writes as much as the socket takes. Completions of fully written frames are appended to
 * out (*nout of them, at most max — the flush stops before a segment whose completion would
 * not fit). Returns 1 when the queue is empty, 0 when the socket is full, -1 on a socket
 * error (errno set). */
int net_outq_flush(net_outq_t *q, int fd, net_completion_t *out, int max, int *nout);
/* One frame of the layer above: hdr[0..hlen) (the connection's frame header), then the
 * iovecs, then pk->len bytes from the packer (pk may be NULL). When fd >= 0 and nothing is
 * queued, what the socket takes is written straight from the caller's memory and only the
 * rest is copied into the queue; otherwise (and with a packer, or more than 16 iovecs) the
 * whole frame is copied in (the packer writes into that copy). 0; -1 out of memory; -2 a
 * socket error (errno set). */
int net_outq_frame(net_outq_t *q, int fd, const void *hdr, size_t hlen,
                   const struct iovec *iov, int iovcnt, const net_packer_t *pk);
/* The zero-copy form: hdr and iov[0] are copied, iov[1..) stay the
 * caller's until done is reported by a flush that wrote them. 0, or -1 out of memory. */
int net_outq_frame_zc(net_outq_t *q, const void *hdr, size_t hlen, const struct iovec *iov,
                      int iovcnt, net_completion_t done);
/* At the end of a connection: writes what is queued, waiting for room, until the deadline
 * (ms, net_now_ms). Completions are not reported any more. 1 when all of it is written, 0
 * when the deadline came first, -1 on a socket error. */
int net_outq_drain(net_outq_t *q, int fd, long long deadline);
/* Frees owned segments and forgets the rest (their completions are never reported). */
void net_outq_free(net_outq_t *q);

/* Writes iov to fd without blocking (MSG_NOSIGNAL); returns the bytes written (possibly 0), or
 * -1 on a socket error. */
long net_sendv(int fd, const struct iovec *iov, int iovcnt);

#endif
