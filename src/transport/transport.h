/*
 * The transport interface: a transport moves *frames* — opaque byte strings — from this
 * rank to another rank of the job, in order per (sender, receiver) pair. It knows nothing of
 * MPI: envelopes, matching and protocols live above it (proto/, core/).
 *
 * Sending: send() starts a frame described by an iovec list and returns at once; op->done is
 * set (during send() or a later progress()) once the frame's bytes have been handed over, after
 * which the caller may reuse its buffers. The caller keeps op and the buffers alive until then.
 *
 * Receiving: progress() delivers each complete frame through the deliver callback given to
 * open(), as a malloc'd buffer that the callback owns from then on.
 *
 * Blocking: a caller that has nothing to do adds the transport's file descriptors to a poll()
 * set (pollfds()) and sleeps there, so an oversubscribed host does not spin.
 */
#ifndef METAMPI_TRANSPORT_H
#define METAMPI_TRANSPORT_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define TR_MAX_IOV 4

typedef void (*tr_deliver_fn)(int src_rank, void *frame, size_t len);

typedef struct tr_send {
    /* set by the caller */
    struct iovec iov[TR_MAX_IOV];
    int iovcnt;
    /* owned by the transport until done */
    volatile int done;
    int error;                 /* nonzero when the frame could not be sent */
    uint64_t length_prefix;    /* stream transports: the frame length sent before the frame */
    struct iovec wire[TR_MAX_IOV + 1];
    int wire_first, wire_count;
    struct tr_send *next;
} tr_send_t;

typedef struct transport {
    const char *name;
    /* Creates this rank's endpoint. After every rank has opened (the caller synchronises),
     * any rank may send to any other. Returns 0 or -1 with a message in err. */
    int (*open)(tr_deliver_fn deliver, char *err, int errlen);
    /* Returns 0, or -1 with a message in err when the frame cannot be sent (op->done is then
     * set with op->error). */
    int (*send)(int dst_rank, tr_send_t *op, char *err, int errlen);
    /* Advances sends and receives without blocking. Returns the number of events (frames
     * delivered or sends completed), or -1 with a message in err on a fatal failure. */
    int (*progress)(char *err, int errlen);
    /* Adds up to max descriptors to wait on; returns how many were added. */
    int (*pollfds)(struct pollfd *fds, int max);
    void (*close)(void);
} transport_t;

/* Frames to ourselves: delivered synchronously. */
extern const transport_t transport_self;
/* Frames to other ranks on this host over Unix-domain stream sockets (temporary: the shared-
 * memory transport replaces it). */
extern const transport_t transport_sock;

#endif
