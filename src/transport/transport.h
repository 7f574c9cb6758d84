/*
 * The transport interface: a transport moves *frames* — opaque byte strings of at most
 * max_frame bytes — from this rank to another rank of the job, in order per (sender,
 * receiver) pair. It knows nothing of MPI: envelopes, matching and the eager/rendezvous
 * protocols live above it (proto/, core/).
 *
 * Sending is copy-in and never blocks: send() either takes the whole frame (copies it into
 * its queue, ring or socket) and returns 1, or takes nothing and returns 0 when the path to
 * that peer is full (flow control). After a 0 the caller retries later, after progress(), and
 * sends nothing else to that peer in between (frames stay in order).
 *
 * Receiving is zero-copy: progress() calls deliver(src, frame, len) for each arrived frame,
 * oldest first per sender. frame points into the transport's memory and is valid only during
 * the call: the callee copies what it keeps. deliver may call send() (replies), but not
 * progress().
 *
 * Packing into the frame (optional per send): after the iovecs, a frame may continue with
 * packer->len bytes that packer->pack(ctx, dst, n) writes straight into the transport's own
 * buffer (the ring, a cell, the queued frame) — so non-contiguous data is packed once, into
 * the frame, never into a temporary buffer first. pack is called only once the transport has
 * taken the frame (never for a send that returns 0 or -1), in order, possibly several times
 * for consecutive pieces whose sizes add up to len; it must produce exactly n bytes.
 *
 * Remote read (optional, NULL when absent): copies bytes of rank src's address space,
 * described by the remote iovecs, into local memory described by the local iovecs (both
 * lists cover the same number of bytes, in order; either may hold zero-length entries) — a
 * single-copy path for large messages, contiguous or not (Linux cross-memory attach for ranks
 * on one host, batched by IOV_MAX). Returns TR_RMA_UNSUPPORTED when it cannot serve that peer
 * (not permitted, disabled by the user) and nothing was copied, so the caller falls back to
 * frames.
 *
 * Zero-copy sending (optional, NULL when absent): send_zc() is send() without a packer whose
 * payload stays where it is: the transport copies iov[0] (the frame's head) but may keep
 * referring to the memory of iov[1..iovcnt) until it calls sent(ctx) — always from a later
 * progress(), never from inside send_zc() — so a stream transport writes straight from the
 * caller's buffer. The caller keeps that memory unchanged until then.
 *
 * Placement (optional, for transports that read frames from a byte stream): the layer above
 * may place a large frame's body straight where it belongs instead of receiving the frame in
 * one piece. For a frame whose body (everything after its head, the sender's iov[0]) has at
 * least the transport's placement threshold, the transport reads the head and calls
 * boot->place(src, head, head_len, body_len, sink). A 0 answer means "deliver it whole, as
 * usual"; a 1 answer fills *sink: the transport then asks sink->next() for iovecs covering
 * the next bytes of the body (in order, as many times as needed; each call hands out at
 * least one byte and no more than `bytes`), reads the body into them, and calls
 * sink->done(ctx) once all of it is in place. deliver() is not called for a placed frame.
 *
 * Sleeping: a rank with nothing to do calls prepare_sleep(), then progress() once more, and,
 * when that found nothing, sleeps in poll() on the descriptors from pollfds(); then it calls
 * end_sleep(). prepare_sleep() announces the sleep to peers, which then wake this rank (make
 * one of its pollfds readable) when they send to it or free flow-control credits it may wait
 * for. The progress() after prepare_sleep() closes the race with a peer that sent just before
 * it saw the announcement.
 *
 * Groups (optional, NULL when absent): frames sent between group_begin() and group_end() may
 * travel as one unit where the transport can bundle them (the gateway transport: the frames
 * to ranks of one other site cross the WAN as one frame, split by that site's gateway). It
 * changes nothing else: send() takes or refuses each frame as always, the per-pair order
 * holds, and group_end() hands everything held to the path (a group never outlives the call
 * that opened it). Groups nest; the outermost group_end() counts. group_end() returns 0, or
 * -1 with a message in err (the path failed).
 *
 * Waking (optional, NULL when absent): wake(peer) makes a sleeping peer's pollfds readable, so
 * that it polls again — for layers above that share memory with the peer outside the
 * transport (shared-memory collectives) and changed something the peer may wait for. The
 * caller stores its change (a release store suffices), then calls wake(), which reads the
 * peer's announcement (prepare_sleep) and rings only when the peer sleeps. This is the
 * frames' handshake (shm.c, "Wake protocol" 1): either wake() sees the announcement, or the
 * peer's progress() after prepare_sleep() — which the caller's store, drained from its store
 * buffer within the sleeper's grace period, precedes — sees the change. One load when the
 * peer is awake.
 *
 * Shared atomic slots (optional, all four NULL when absent): small blocks of TR_SLOT_WORDS
 * lock-free 64-bit atomic words in memory this rank and one peer both map, for a layer above
 * that arbitrates work between the two without frames. The owner takes one of its own slots
 * for a peer (slot_take: an index, or -1 when none is free or the peer cannot reach this
 * rank's slots) and finds its words by slot_own(index); the peer finds the same words by
 * slot_peer(owner, index) (NULL when it cannot reach them); slot_give(index) returns the slot
 * to the owner's pool. Taking hands out the slots in turn, so a given slot is taken again only
 * after all the others. The transport never reads or writes a slot's words: their protocol,
 * and when each side may write them, belongs to the user. The memory stays mapped until
 * close(): a peer that loads a slot's words after the owner gave it back reads whatever its
 * next user stored there, which the user's protocol must make harmless (a generation number
 * in the word the peer compares and swaps).
 *
 * Growing (optional, NULL when absent): ranks spawned while the job runs, or met through a
 * port, belong to other parts of the job (docs/dynproc.md). The layer above numbers them
 * after its own part's (boot->size grows) and calls grow() with the new boot: host_of and
 * site_of cover every rank (the old arrays stay valid too), and peer_id, peer_of_id and
 * kv_get_peer are set. A transport without grow() never reaches ranks >= the size it was
 * opened with; one with grow() reaches the new ranks from then on (TCP: listening from the
 * first grow on even on one host, its card published in its own part's space).
 */
#ifndef METAMPI_TRANSPORT_H
#define METAMPI_TRANSPORT_H

#include "net/auth.h"
#include "net/frame.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* The stream types of net/frame.h, which the transports' stream code shares: deliver(src
 * rank, frame, len); a sink's next(ctx, iov, max, bytes) / done(ctx); place(src rank, head,
 * head_len, body_len, sink): 1 when the body is placed through *sink, 0 to receive the frame
 * whole (see "Placement"); a packer's pack(ctx, dst, n) and the len bytes it adds after the
 * iovecs. */
typedef net_deliver_fn tr_deliver_fn;
typedef net_sink_t tr_sink_t;
typedef net_place_fn tr_place_fn;
typedef net_packer_t tr_packer_t;

/* Everything a transport gets from the layers around it: the job, where its ranks run, the
 * process manager's key-value space and the ranks' key. A transport calls nothing of the
 * runtime itself. The pointers stay valid until close(), except ranks_key (during open()). */
typedef struct tr_boot {
    int rank, size;              /* this rank in the job (world) and the job size */
    const char *job_id;          /* names in shared namespaces start "metampi.<job_id>." */
    const char *hostname;        /* this rank's host, as the launcher names it */
    const int *host_of;          /* host_of[r]: index of rank r's host; equal index = same host */
    const int *site_of;          /* site_of[r]: rank r's site (0..nsites-1) */
    int nsites;
    const char *(*site_name)(int site);  /* "" without a description */
    /* The job's key-value space: put 0 or -1 (err); get 0 and the value, 1 when the key does
     * not exist, -1 (err). Exchanged at the barriers between the bootstrap's phases. */
    int (*kv_put)(const char *key, const char *value, char *err, int errlen);
    int (*kv_get)(const char *key, char *value, int vallen, char *err, int errlen);
    const auth_key_t *ranks_key; /* the ranks' key our launcher gave (net/auth.h), or NULL */
    tr_place_fn place;           /* the layer above's placement of large bodies (may be NULL) */
    /* Processes of other parts of the job (see "Growing"); NULL when there are none to meet:
     * the job-wide number of rank r (what the TCP handshake names), the rank of a job-wide
     * number (-1 when unknown), and a get of "<prefix>.<r's rank in its part>" in the space
     * of r's part (kv_get's answers). */
    int (*peer_id)(int r);
    int (*peer_of_id)(int id);
    int (*kv_get_peer)(int r, const char *prefix, char *value, int vallen, char *err,
                       int errlen);
    /* The job-wide number of this part's rank 0 (0 in the first part): what the site gateways
     * call this part's ranks (transport/gw). Read at open in a job of several sites. */
    int id_base;
} tr_boot_t;

enum { TR_RMA_OK = 0, TR_RMA_UNSUPPORTED = 1 };

/* Words in one shared atomic slot (see "Shared atomic slots"). */
enum { TR_SLOT_WORDS = 4 };

typedef struct transport {
    const char *name;
    /* Bootstrap runs in three phases with a job-wide barrier between them:
     *   open()    — create this rank's own endpoints (segments, sockets);
     *   connect() — attach to the peers' endpoints (they all exist now);
     *   ready()   — everyone is attached: drop names a crash would otherwise leak.
     * Each returns 0, or -1 with a message in err. */
    int (*open)(const tr_boot_t *boot, tr_deliver_fn deliver, char *err, int errlen);
    int (*connect)(char *err, int errlen);
    int (*ready)(char *err, int errlen);
    /* Nonzero when this transport carries frames between this rank and rank peer. */
    int (*reaches)(int peer);
    /* The largest frame send() accepts, in bytes. */
    size_t max_frame;
    /* The protocol's defaults for peers on this transport (0: the library-wide default): the
     * largest eager message and the DATA payload of the streaming rendezvous. */
    size_t eager_default, chunk_default;
    /* 1 taken, 0 full (retry after progress), -1 failed with a message in err. The frame is
     * the iovecs followed by packer->len packed bytes (packer may be NULL). */
    int (*send)(int dst_rank, const struct iovec *iov, int iovcnt, const tr_packer_t *packer,
                char *err, int errlen);
    /* See "Zero-copy sending": 1 taken, 0 full, -1 failed. NULL when not offered. */
    int (*send_zc)(int dst_rank, const struct iovec *iov, int iovcnt, void (*sent)(void *ctx),
                   void *ctx, char *err, int errlen);
    /* Delivers arrived frames and advances internal work without blocking. Returns the number
     * of events (frames delivered, credits returned to a full path), or -1 on failure. */
    int (*progress)(char *err, int errlen);
    /* TR_RMA_OK, TR_RMA_UNSUPPORTED, or -1 with a message in err. NULL when not offered. */
    int (*rma_readv)(int src_rank, const struct iovec *local, int nlocal,
                     const struct iovec *remote, int nremote, char *err, int errlen);
    /* The other direction: copies the local iovecs into dst_rank's memory at remote. Offered
     * together with rma_readv and allowed whenever reading is (the same permission). */
    int (*rma_writev)(int dst_rank, const struct iovec *local, int nlocal,
                      const struct iovec *remote, int nremote, char *err, int errlen);
    void (*prepare_sleep)(void);
    void (*end_sleep)(void);
    /* Adds up to max descriptors to sleep on; returns how many were added. */
    int (*pollfds)(struct pollfd *fds, int max);
    /* Optional: nonzero while frames that send() took have not left this rank yet (queued
     * behind a connection being opened, or a full socket). MPI_Finalize waits for 0 before it
     * closes the transports. */
    int (*busy)(void);
    /* See "Shared atomic slots"; all NULL when not offered. */
    int (*slot_take)(int peer);
    _Atomic uint64_t *(*slot_own)(int index);
    _Atomic uint64_t *(*slot_peer)(int owner, int index);
    void (*slot_give)(int index);
    /* See "Waking"; NULL when the transport has no sleeping peers to wake. */
    void (*wake)(int peer);
    /* See "Groups"; both NULL when the transport does not bundle frames. */
    void (*group_begin)(void);
    int (*group_end)(char *err, int errlen);
    /* See "Growing"; NULL when the transport reaches no process of another part. */
    int (*grow)(const tr_boot_t *boot, char *err, int errlen);
    void (*close)(void);
} transport_t;

/* Frames to ourselves: queued by send(), delivered by progress(). */
extern const transport_t transport_self;
/* Frames to ranks on this host through shared memory (transport/shm/). */
extern const transport_t transport_shm;
/* Frames to ranks at other sites through this site's gateway (transport/gw/). */
extern const transport_t transport_gw;
/* Frames to ranks on other hosts through TCP connections (transport/tcp/). */
extern const transport_t transport_tcp;

#endif
