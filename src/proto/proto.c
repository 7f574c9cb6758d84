/* Peers, transports, outgoing queues and frame dispatch of the protocol layer. */
#include "proto/internal.h"

#include "runtime/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults chosen from measurements (docs/performance.md, docs/ARCHITECTURE.md). */
enum { DEFAULT_EAGER_LIMIT = 8192, DEFAULT_RNDV_CHUNK = 65536, DEFAULT_DT_IOV_MIN = 256 << 10 };

peer_t *proto_peers;
size_t proto_iov_min = DEFAULT_DT_IOV_MIN;
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

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    unsigned long long n = strtoull(v, &end, 0);
    if (*end == 'k' || *end == 'K')
        n <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        n <<= 20, end++;
    else if (*end == 'g' || *end == 'G')
        n <<= 30, end++;
    if (*end) {
        fprintf(stderr, "metampi: ignoring %s=%s (not a size)\n", name, v);
        return dflt;
    }
    return (size_t)n;
}

_Noreturn void proto_bad_frame(int src, const char *what)
{
    char msg[256];
    snprintf(msg, sizeof msg, "internal error: malformed frame from rank %d (%s)", src, what);
    job_abort(1, msg);
}

static void deliver(int src, const void *frame, size_t len)
{
    if (len < 1)
        proto_bad_frame(src, "empty");
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
    case F_CTS:
    case F_FIN:
    case F_ACK:
    case F_CANCEL_REPLY:
        proto_on_sender_reply(src, frame, len);
        break;
    default:
        proto_bad_frame(src, "unknown kind");
    }
}

int proto_open(const tr_boot_t *boot_in, const proto_upcalls_t *up, char *err, int errlen)
{
    tr_boot_t b = *boot_in, *boot = &b;
    b.place = proto_place;
    proto_up = *up;
    proto_my_rank = boot->rank;
    proto_peers = calloc((size_t)boot->size, sizeof *proto_peers);
    active = calloc((size_t)boot->size, sizeof *active);
    if (!proto_peers || !active) {
        snprintf(err, (size_t)errlen, "out of memory for %d peers", boot->size);
        return -1;
    }
    for (int i = 0; i < NTRANSPORTS; i++) {
        if (all_transports[i]->open(boot, deliver, err, errlen) != 0)
            return -1;
        opened[i] = 1;
    }
    /* set by the user: for every transport; else each transport's default, else ours */
    size_t eager = env_size("METAMPI_EAGER_LIMIT", 0);
    size_t chunk = env_size("METAMPI_RNDV_CHUNK", 0);
    proto_iov_min = env_size("METAMPI_DT_IOV_MIN", DEFAULT_DT_IOV_MIN);
    for (int r = 0; r < boot->size; r++) {
        peer_t *p = &proto_peers[r];
        for (int i = 0; i < NTRANSPORTS && !p->tr; i++)
            if (r == boot->rank ? all_transports[i] == &transport_self
                                : all_transports[i]->reaches(r))
                p->tr = all_transports[i];
        if (!p->tr)
            continue;
        bundling |= p->tr->group_begin != NULL;
        size_t room = p->tr->max_frame;
        size_t e = eager ? eager : p->tr->eager_default ? p->tr->eager_default
                                                        : DEFAULT_EAGER_LIMIT;
        size_t c = chunk ? chunk : p->tr->chunk_default ? p->tr->chunk_default
                                                        : DEFAULT_RNDV_CHUNK;
        /* To ourselves every message is eager: a standard send to self completes before its
         * receive is posted, as users of other MPIs expect. */
        p->eager_limit = r == boot->rank ? room : e;
        if (p->eager_limit > room - sizeof(f_eager_sync_t))
            p->eager_limit = room - sizeof(f_eager_sync_t);
        p->chunk = c < 64 ? 64 : c;
        if (p->chunk > room - sizeof(f_data_t))
            p->chunk = room - sizeof(f_data_t);
    }
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

int proto_rma_read(int peer, void *local, const void *remote, size_t bytes, char *err,
                   int errlen)
{
    const transport_t *tr = proto_peers[peer].tr;
    if (!tr || !tr->rma_readv || proto_peers[peer].no_rma)
        return 1;
    struct iovec li = { local, bytes }, ri = { (void *)(uintptr_t)remote, bytes };
    int r = tr->rma_readv(peer, &li, 1, &ri, 1, err, errlen);
    return r == TR_RMA_OK ? 0 : r == TR_RMA_UNSUPPORTED ? 1 : -1;
}

int proto_rma_write(int peer, const void *local, void *remote, size_t bytes, char *err,
                    int errlen)
{
    const transport_t *tr = proto_peers[peer].tr;
    if (!tr || !tr->rma_writev || proto_peers[peer].no_rma)
        return 1;
    struct iovec li = { (void *)(uintptr_t)local, bytes }, ri = { remote, bytes };
    int r = tr->rma_writev(peer, &li, 1, &ri, 1, err, errlen);
    return r == TR_RMA_OK ? 0 : r == TR_RMA_UNSUPPORTED ? 1 : -1;
}

int proto_bundles(int peer)
{
    return proto_peers[peer].tr && proto_peers[peer].tr->group_begin;
}

size_t proto_eager_limit(int peer)
{
    return proto_peers[peer].eager_limit;
}
