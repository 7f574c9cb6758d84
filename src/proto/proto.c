/*
 * Peers, transports, outgoing queues and frame dispatch of the protocol layer.
 *
 * Checks. Every frame is input from another process, and a corrupted or forged peer controls
 * all of it (a holder of the job key can open a TCP connection as a rank that has not
 * connected yet, or inject into a gateway's stream). Nothing in a frame is used before it is
 * checked, and a frame that fails a check ends the job with one line (proto_bad_frame) that
 * names the peer, the transport and what was wrong — never a signal:
 *   - the source: a frame is taken only from the transport that carries its source rank's
 *     frames (deliver_from): a TCP connection or a gateway frame that claims a rank of this
 *     host could otherwise make this rank read that rank's memory wherever it says;
 *   - lengths: each kind's exact or smallest length; a CTS asks for no more than the
 *     message, a DATA frame continues exactly where the received data ends and stays within
 *     what the receiver asked for (so it never writes outside the receive buffer);
 *   - ids (sreq, rreq): looked up in the table of live operations (ids.h), never
 *     dereferenced; the operation must be the sender's own and in a state that takes that
 *     kind of frame;
 *   - remote reads: an RTS names an address in its sender's memory, which is read
 *     (rma_readv) only from that process, through the transport that carries it, into no more
 *     than the receive buffer holds; a bad address is the kernel's EFAULT, reported as such.
 *     A peer can thus make this rank read nothing but its own memory, which it could send
 *     anyway. The layout of a typed RTS is read the same way and checked in full
 *     (dt_layout_check) before any use. A COOP names an address in its sender's (the
 *     receiver's) memory that this rank writes into (rma_writev), only that process's and
 *     no more than the message holds: a peer can make this rank write nothing but the
 *     message into its own memory. The shared slot a COOP names must be one the
 *     transport offers: its words sit in the peer's shared memory, and this rank only
 *     compares-and-swaps and counts in them (coop.c).
 *   - envelopes: the source rank a message names must be the rank that sent it (checked by
 *     the core when the message matches, once the communicator is known); the size an RTS
 *     announces fits MPI_Count.
 * What changes no memory access is taken as it comes: context ids and tags, the sizes of
 * messages (a receive is bounded by its buffer), a CANCEL's sreq (the core only compares it).
 */
#include "proto/ids.h"
#include "proto/internal.h"

#include "runtime/job.h"
#include "runtime/tunables.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults chosen from measurements (docs/performance.md, docs/p2p.md). */
enum { DEFAULT_EAGER_LIMIT = 8192, DEFAULT_RNDV_CHUNK = 65536 };

peer_t *proto_peers;
size_t proto_iov_min; /* METAMPI_DT_IOV_MIN, from proto_open on */
proto_upcalls_t proto_up;
int proto_my_rank;

/* The first that reaches a peer carries its frames: gw only in gateway mode, and only to
 * ranks at other sites, where tcp would go directly. */
static const transport_t *const all_transports[] = { &transport_self, &transport_shm,
                                                      &transport_gw, &transport_tcp };
enum { NTRANSPORTS = sizeof all_transports / sizeof all_transports[0] };
static int opened[NTRANSPORTS];
/* Some peer is reached through a transport that bundles groups: else groups cost nothing. */
static int bundling;

/* Destinations with queued frames (the active list), so progress does not scan every peer. */
static int *active;
static int nactive;

static int nranks;

static _Noreturn void bad_frame(const transport_t *via, int src, const char *fmt, va_list ap)
{
    char what[256], msg[512];
    vsnprintf(what, sizeof what, fmt, ap);
    snprintf(msg, sizeof msg,
             "bad protocol frame from rank %d through %s: %s (the peer's memory is corrupted, "
             "or its frames are forged)",
             src, via ? via->name : "no transport", what);
    job_abort(1, msg);
}

_Noreturn void proto_bad_frame(int src, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bad_frame(src >= 0 && src < nranks ? proto_peers[src].tr : NULL, src, fmt, ap);
}

static _Noreturn __attribute__((format(printf, 3, 4))) void
bad_source(const transport_t *via, int src, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bad_frame(via, src, fmt, ap);
}

static const char *const state_names[] = {
    [OP_IDLE] = "idle",
    [OP_SEND_FIRST] = "not sent yet",
    [OP_WAIT_ACK] = "waiting for ACK",
    [OP_WAIT_RNDV] = "waiting for CTS or FIN",
    [OP_STREAM] = "sending DATA",
    [OP_STREAM_DRAIN] = "sending DATA",
    [OP_CTRL] = "a control frame",
    [OP_RECV_STREAM] = "receiving DATA",
    [OP_WAIT_FIN] = "waiting for FIN",
    [OP_DONE] = "done",
};

const char *proto_state_name(int state)
{
    return state >= 0 && state <= OP_DONE ? state_names[state] : "unknown";
}

proto_op_t *proto_named_op(int src, uint64_t id, const char *kind)
{
    char why[160];
    proto_op_t *op = proto_id_find(id, why, sizeof why);
    if (!op)
        proto_bad_frame(src, "%s names operation %#llx, but %s", kind, (unsigned long long)id,
                        why);
    if (op->peer != src)
        proto_bad_frame(src, "%s names operation %#llx, which is one with rank %d", kind,
                        (unsigned long long)id, op->peer);
    return op;
}

static void deliver(int src, const void *frame, size_t len)
{
    if (len < 1)
        proto_bad_frame(src, "an empty frame");
    switch (*(const uint8_t *)frame) {
    case F_EAGER:
    case F_EAGER_SYNC:
    case F_RTS:
        proto_on_match_frame(src, frame, len);
        break;
    case F_DATA:
        proto_on_data(src, frame, len);
        break;
    case F_CANCEL:
        proto_on_cancel(src, frame, len);
        break;
    case F_COOP:
        proto_on_coop(src, frame, len);
        break;
    case F_CTS:
    case F_FIN:
    case F_ACK:
    case F_CANCEL_REPLY:
        proto_on_sender_reply(src, frame, len);
        break;
    default:
        proto_bad_frame(src, "unknown frame kind %u", *(const uint8_t *)frame);
    }
}

/* Whether a frame from src that transport t delivers comes the way src's frames come. */
static void check_source(int t, int src)
{
    const transport_t *via = all_transports[t];
    if (src < 0 || src >= nranks)
        bad_source(via, src, "the job has %d ranks", nranks);
    if (proto_peers[src].tr != via)
        bad_source(via, src, "that rank's frames come through %s",
                   proto_peers[src].tr ? proto_peers[src].tr->name : "no transport");
}

/* Each transport delivers through its own entries (deliver_from, place_from), so that a frame
 * is taken only from the transport that carries its source's frames. */
static void deliver_from(int t, int src, const void *frame, size_t len)
{
    check_source(t, src);
    deliver(src, frame, len);
}

static int place_from(int t, int src, const void *head, size_t head_len, size_t body_len,
                      tr_sink_t *sink)
{
    check_source(t, src);
    return proto_place(src, head, head_len, body_len, sink);
}

#define ENTRIES_OF_TRANSPORT(t)                                                               \
    static void deliver_via_##t(int src, const void *frame, size_t len)                       \
    {                                                                                         \
        deliver_from(t, src, frame, len);                                                     \
    }                                                                                         \
    static int place_via_##t(int src, const void *head, size_t head_len, size_t body_len,     \
                             tr_sink_t *sink)                                                 \
    {                                                                                         \
        return place_from(t, src, head, head_len, body_len, sink);                            \
    }
ENTRIES_OF_TRANSPORT(0)
ENTRIES_OF_TRANSPORT(1)
ENTRIES_OF_TRANSPORT(2)
ENTRIES_OF_TRANSPORT(3)
static const tr_deliver_fn deliver_via[] = { deliver_via_0, deliver_via_1, deliver_via_2,
                                             deliver_via_3 };
static const tr_place_fn place_via[] = { place_via_0, place_via_1, place_via_2, place_via_3 };
_Static_assert(sizeof deliver_via / sizeof *deliver_via == NTRANSPORTS,
               "one pair of entries per transport");

/* METAMPI_EAGER_LIMIT and METAMPI_RNDV_CHUNK (0: each transport's default, else ours). */
static size_t eager_set, chunk_set;

/* The first transport that reaches rank r carries its frames, with that transport's limits. */
static void choose_transport(int r)
{
    peer_t *p = &proto_peers[r];
    for (int i = 0; i < NTRANSPORTS && !p->tr; i++)
        if (r == proto_my_rank ? all_transports[i] == &transport_self
                               : all_transports[i]->reaches(r))
            p->tr = all_transports[i];
    if (!p->tr)
        return;
    bundling |= p->tr->group_begin != NULL;
    size_t room = p->tr->max_frame;
    size_t e = eager_set ? eager_set : p->tr->eager_default ? p->tr->eager_default
                                                            : DEFAULT_EAGER_LIMIT;
    size_t c = chunk_set ? chunk_set : p->tr->chunk_default ? p->tr->chunk_default
                                                            : DEFAULT_RNDV_CHUNK;
    /* To ourselves every message is eager: a standard send to self completes before its
     * receive is posted, as users of other MPIs expect. */
    p->eager_limit = r == proto_my_rank ? room : e;
    if (p->eager_limit > room - sizeof(f_eager_sync_t))
        p->eager_limit = room - sizeof(f_eager_sync_t);
    p->chunk = c < 64 ? 64 : c;
    /* clamped to the frame: a multiple of 64, so that every DATA payload starts at a packed
     * offset on a cache-line multiple and typed blocks keep one alignment from frame to frame
     * (the shm ring line-aligns each payload; see transport/shm/ring.c, body_skew) */
    if (p->chunk > room - sizeof(f_data_t))
        p->chunk = (room - sizeof(f_data_t)) & ~(size_t)63;
}

int proto_open(const tr_boot_t *boot_in, const proto_upcalls_t *up, char *err, int errlen)
{
    tr_boot_t b = *boot_in, *boot = &b;
    proto_up = *up;
    proto_my_rank = boot->rank;
    nranks = boot->size;
    proto_peers = calloc((size_t)boot->size, sizeof *proto_peers);
    active = calloc((size_t)boot->size, sizeof *active);
    if (!proto_peers || !active) {
        snprintf(err, (size_t)errlen, "out of memory for %d peers", boot->size);
        return -1;
    }
    for (int i = 0; i < NTRANSPORTS; i++) {
        b.place = place_via[i];
        if (all_transports[i]->open(boot, deliver_via[i], err, errlen) != 0)
            return -1;
        opened[i] = 1;
    }
    /* set by the user: for every transport; else each transport's default, else ours */
    eager_set = tun_size(TUN_EAGER_LIMIT);
    chunk_set = tun_size(TUN_RNDV_CHUNK);
    proto_iov_min = tun_size(TUN_DT_IOV_MIN);
    proto_coop_min = tun_size(TUN_RNDV_COOP);
    for (int r = 0; r < boot->size; r++)
        choose_transport(r);
    return 0;
}

int proto_grow(const tr_boot_t *boot, char *err, int errlen)
{
    if (boot->size > nranks) {
        peer_t *p = realloc(proto_peers, (size_t)boot->size * sizeof *p);
        if (p)
            proto_peers = p;
        int *a = p ? realloc(active, (size_t)boot->size * sizeof *a) : NULL;
        if (!a) {
            snprintf(err, (size_t)errlen, "out of memory for %d peers", boot->size);
            return -1;
        }
        active = a;
        memset(p + nranks, 0, (size_t)(boot->size - nranks) * sizeof *p);
    }
    for (int i = 0; i < NTRANSPORTS; i++)
        if (all_transports[i]->grow && all_transports[i]->grow(boot, err, errlen) != 0)
            return -1;
    for (int r = nranks; r < boot->size; r++)
        choose_transport(r);
    if (boot->size > nranks)
        nranks = boot->size;
    return 0;
}

int proto_connect(char *err, int errlen)
{
    for (int i = 0; i < NTRANSPORTS; i++)
        if (all_transports[i]->connect(err, errlen) != 0)
            return -1;
    return 0;
}

int proto_ready(char *err, int errlen)
{
    for (int i = 0; i < NTRANSPORTS; i++)
        if (all_transports[i]->ready(err, errlen) != 0)
            return -1;
    return 0;
}

void proto_group_begin(void)
{
    for (int i = 0; bundling && i < NTRANSPORTS; i++)
        if (opened[i] && all_transports[i]->group_begin)
            all_transports[i]->group_begin();
}

int proto_group_end(char *err, int errlen)
{
    int rc = 0;
    for (int i = 0; bundling && i < NTRANSPORTS; i++)
        if (opened[i] && all_transports[i]->group_end &&
            all_transports[i]->group_end(err, errlen) != 0)
            rc = -1;
    return rc;
}

void proto_close(void)
{
    for (int i = 0; i < NTRANSPORTS; i++)
        if (opened[i])
            all_transports[i]->close();
    memset(opened, 0, sizeof opened);
    bundling = 0;
    for (int r = 0; proto_peers && r < nranks; r++) /* left only by a job that ends early */
        for (proto_op_t *op = proto_peers[r].qhead, *next; op; op = next) {
            next = op->qnext;
            if (op->state == OP_CTRL)
                free(op);
        }
    proto_ids_free();
    nranks = 0;
    free(proto_peers);
    free(active);
    proto_peers = NULL;
    active = NULL;
    nactive = 0;
}

static void enqueue(peer_t *p, int peer, proto_op_t *op)
{
    op->qnext = NULL;
    if (p->qtail) {
        p->qtail->qnext = op;
    } else {
        p->qhead = op;
        active[nactive++] = peer;
    }
    p->qtail = op;
}

void proto_emit_or_queue(proto_op_t *op)
{
    peer_t *p = &proto_peers[op->peer];
    if (!p->qhead) {
        char err[256];
        int rc = proto_send_pending(op, err, sizeof err);
        if (rc < 0)
            job_abort(1, err);
        if (rc == 1) {
            proto_after_sent(op);
            return;
        }
    }
    enqueue(p, op->peer, op);
}

void proto_send_ctrl(int peer, const void *frame, size_t len)
{
    peer_t *p = &proto_peers[peer];
    char err[256];
    if (!p->qhead) {
        struct iovec iov = { (void *)frame, len };
        int rc = p->tr->send(peer, &iov, 1, NULL, err, sizeof err);
        if (rc < 0)
            job_abort(1, err);
        if (rc == 1)
            return;
    }
    proto_op_t *op = calloc(1, sizeof *op);
    if (!op)
        job_abort(1, "out of memory queuing a control frame");
    op->state = OP_CTRL;
    op->peer = peer;
    memcpy(op->ctrl, frame, len);
    op->ctrl_len = len;
    enqueue(p, peer, op);
}

void proto_stream_cursor(proto_op_t *op)
{
    if (!op->cur && !(op->cur = malloc(sizeof *op->cur)))
        job_abort(1, "out of memory for a datatype cursor");
    dt_cursor_init(op->cur, op->layout, (uintptr_t)op->buf, op->count);
}

void proto_complete(proto_op_t *op)
{
    free(op->cur);
    op->cur = NULL;
    if (op->cancel_pending) {
        op->finished_early = 1;
        return;
    }
    proto_finish(op);
}

void proto_finish(proto_op_t *op)
{
    if (op->id)
        proto_id_close(op);
    op->state = OP_DONE;
    op->done(op);
}

/* Sends queued frames to one peer, oldest first. Returns events, -1 on failure. */
static int flush_peer(peer_t *p, char *err, int errlen)
{
    int events = 0;
    while (p->qhead) {
        proto_op_t *op = p->qhead;
        int rc = proto_send_pending(op, err, errlen);
        if (rc <= 0)
            return rc < 0 ? -1 : events;
        p->qhead = op->qnext;
        if (!p->qhead)
            p->qtail = NULL;
        if (op->state == OP_CTRL)
            free(op);
        else
            proto_after_sent(op); /* may complete op: it is out of the queue by now */
        events++;
    }
    return events;
}

int proto_progress(char *err, int errlen)
{
    int events = 0;
    for (int i = 0; i < NTRANSPORTS; i++) {
        int n = all_transports[i]->progress(err, errlen);
        if (n < 0)
            return -1;
        events += n;
    }
    for (int i = 0; i < nactive;) {
        peer_t *p = &proto_peers[active[i]];
        int n = flush_peer(p, err, errlen);
        if (n < 0)
            return -1;
        events += n;
        if (!p->qhead)
            active[i] = active[--nactive];
        else
            i++;
    }
    return events;
}

int proto_has_queued(void)
{
    if (nactive > 0)
        return 1;
    for (int i = 0; i < NTRANSPORTS; i++)
        if (all_transports[i]->busy && all_transports[i]->busy())
            return 1;
    return 0;
}

void proto_prepare_sleep(void)
{
    for (int i = 0; i < NTRANSPORTS; i++)
        all_transports[i]->prepare_sleep();
}

void proto_end_sleep(void)
{
    for (int i = 0; i < NTRANSPORTS; i++)
        all_transports[i]->end_sleep();
}

int proto_pollfds(struct pollfd *fds, int max)
{
    int n = 0;
    for (int i = 0; i < NTRANSPORTS; i++)
        n += all_transports[i]->pollfds(fds + n, max - n);
    return n;
}

void proto_wake(int peer)
{
    const transport_t *tr = proto_peers[peer].tr;
    if (tr && tr->wake)
        tr->wake(peer);
}

static size_t iov_total(const struct iovec *v, int n)
{
    size_t t = 0;
    for (int i = 0; i < n; i++)
        t += v[i].iov_len;
    return t;
}

int proto_rma_readv(int peer, void *local, const struct iovec *remote, int nremote, char *err,
                    int errlen)
{
    const transport_t *tr = proto_peers[peer].tr;
    if (!tr || !tr->rma_readv || proto_peers[peer].no_rma)
        return 1;
    struct iovec li = { local, iov_total(remote, nremote) };
    int r = tr->rma_readv(peer, &li, 1, remote, nremote, err, errlen);
    return r == TR_RMA_OK ? 0 : r == TR_RMA_UNSUPPORTED ? 1 : -1;
}

int proto_rma_writev(int peer, const void *local, const struct iovec *remote, int nremote,
                     char *err, int errlen)
{
    const transport_t *tr = proto_peers[peer].tr;
    if (!tr || !tr->rma_writev || proto_peers[peer].no_rma)
        return 1;
    struct iovec li = { (void *)(uintptr_t)local, iov_total(remote, nremote) };
    int r = tr->rma_writev(peer, &li, 1, remote, nremote, err, errlen);
    return r == TR_RMA_OK ? 0 : r == TR_RMA_UNSUPPORTED ? 1 : -1;
}

int proto_rma_read(int peer, void *local, const void *remote, size_t bytes, char *err,
                   int errlen)
{
    struct iovec ri = { (void *)(uintptr_t)remote, bytes };
    return proto_rma_readv(peer, local, &ri, 1, err, errlen);
}

int proto_rma_write(int peer, const void *local, void *remote, size_t bytes, char *err,
                    int errlen)
{
    struct iovec ri = { remote, bytes };
    return proto_rma_writev(peer, local, &ri, 1, err, errlen);
}

int proto_bundles(int peer)
{
    return proto_peers[peer].tr && proto_peers[peer].tr->group_begin;
}

size_t proto_eager_limit(int peer)
{
    return proto_peers[peer].eager_limit;
}
