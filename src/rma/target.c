/* The target side of the emulation: the progress hook takes each window's arriving messages
 * and applies them one after another, each origin's in its order, so accumulates to one
 * location never interleave (atomicity, MPI-3.1 §11.7.1). A message still arriving, or of a
 * fence epoch this process has not reached (win.h, "Fence epochs"), holds back the later
 * messages of its origin only. */
#include "rma/win.h"
#include "rma/wire.h"

#include "core/errors.h"
#include "core/match.h"
#include "core/op.h"
#include "core/p2p.h"
#include "core/progress.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

/* A message taken out of matching, being received into buf; applied when it is whole. */
typedef struct rma_incoming {
    request_t *req;
    void *buf;
    size_t bytes;
    int origin;
    struct rma_incoming *next;
} rma_incoming_t;

/* A lock request that waits until the lock is free, with the records its message carried
 * behind it (rest: the origin's operations of the epoch, applied once the lock is granted).
 * While it waits, the origin's later messages wait too (serve). */
typedef struct rma_waiter {
    int origin, lock_type, reply_tag;
    char *rest;
    size_t rest_len;
    struct rma_waiter *next;
} rma_waiter_t;

/* A reply on its way back (freed with its buffer when sent). */
typedef struct reply {
    request_t *req;
    void *buf;
    struct reply *next;
} reply_t;

static win_t *live;       /* rma_progress is a poller of the progress engine while a window lives */
static int busy;          /* rma_progress is running: it never re-enters itself */
static reply_t *replies;

void rma_serve(win_t *w)
{
    if (!live && progress_add_poller(rma_progress) != 0)
        err_fatal(MPI_ERR_INTERN, "MPI_Win_create",
                  "no room for one-sided communication among the progress engine's pollers");
    w->next_live = live;
    live = w;
}

static int replies_sent(void *arg)
{
    (void)arg;
    for (reply_t *r = replies; r; r = r->next)
        if (!r->req->complete)
            return 0;
    return 1;
}

static void retire_replies(void)
{
    for (reply_t **pp = &replies; *pp;) {
        reply_t *r = *pp;
        if (r->req->complete) {
            *pp = r->next;
            request_free(r->req);
            free(r->buf);
            free(r);
        } else {
            pp = &r->next;
        }
    }
}

void rma_unserve(win_t *w)
{
    /* the replies travel on w's context, which goes with it */
    progress_wait_until(replies_sent, NULL);
    retire_replies();
    for (win_t **pp = &live; *pp; pp = &(*pp)->next_live)
        if (*pp == w) {
            *pp = w->next_live;
            break;
        }
    while (w->in_head) {
        rma_incoming_t *in = w->in_head;
        w->in_head = in->next;
        request_free(in->req);
        free(in->buf);
        free(in);
    }
    while (w->waiters) {
        rma_waiter_t *x = w->waiters;
        w->waiters = x->next;
        free(x->rest);
        free(x);
    }
    if (!live)
        progress_remove_poller(rma_progress);
}

/* Sends bytes at buf (owned: freed when sent) to origin on tag. */
static void reply(win_t *w, int origin, int tag, void *buf, size_t bytes)
{
    reply_t *r = malloc(sizeof *r);
    request_t *req = request_new(REQ_SEND, w->comm);
    if (!r || !req)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for a one-sided reply");
    p2p_data_t d = { .buf = buf, .bytes = bytes };
    p2p_set_data(req, &d);
    req->peer = origin;
    req->tag = tag;
    req->mode = MODE_STANDARD;
    p2p_start(req, "MPI_Win");
    *r = (reply_t){ req, buf, replies };
    replies = r;
}

/* ---- locks -------------------------------------------------------------------------------- */

static int grantable(const win_t *w, int lock_type)
{
    if (w->exclusive_holder >= 0)
        return 0;
    return lock_type == MPI_LOCK_SHARED || w->shared_holders == 0;
}

static void grant(win_t *w, int origin, int lock_type, int tag)
{
    if (lock_type == MPI_LOCK_SHARED)
        w->shared_holders++;
    else
        w->exclusive_holder = origin;
    reply(w, origin, tag, NULL, 0);
}

static void apply_records(win_t *w, int origin, const char *msg, size_t bytes);

/* Grants waiting requests in order while the oldest can be granted, then applies what
 * came behind each (which may unlock again: the loop looks at the waiters afresh). */
static void grant_waiters(win_t *w)
{
    while (w->waiters && grantable(w, w->waiters->lock_type)) {
        rma_waiter_t *x = w->waiters;
        w->waiters = x->next;
        grant(w, x->origin, x->lock_type, x->reply_tag);
        if (x->rest_len)
            apply_records(w, x->origin, x->rest, x->rest_len);
        free(x->rest);
        free(x);
    }
}

/* Whether origin has a lock request waiting here: its later records wait behind it. */
static int origin_waits(const win_t *w, int origin)
{
    for (const rma_waiter_t *x = w->waiters; x; x = x->next)
        if (x->origin == origin)
            return 1;
    return 0;
}

/* Grants the lock, or queues the request with the rest_len bytes of records that followed
 * it in its message (copied): 0 when queued. */
static int lock(win_t *w, int origin, const rma_hdr_t *h, const char *rest, size_t rest_len)
{
    if (!w->waiters && grantable(w, h->lock_type)) {
        grant(w, origin, h->lock_type, h->reply_tag);
        return 1;
    }
    rma_waiter_t *x = malloc(sizeof *x), **pp = &w->waiters;
    char *copy = rest_len ? malloc(rest_len) : NULL;
    if (!x || (rest_len && !copy))
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win_lock", "out of memory for a lock request");
    if (rest_len)
        memcpy(copy, rest, rest_len);
    *x = (rma_waiter_t){ origin, h->lock_type, h->reply_tag, copy, rest_len, NULL };
    while (*pp)
        pp = &(*pp)->next;
    *pp = x;
    return 0;
}

static void unlock(win_t *w, int origin, const rma_hdr_t *h)
{
    if (h->lock_type == MPI_LOCK_SHARED)
        w->shared_holders--;
    else if (w->exclusive_holder == origin)
        w->exclusive_holder = -1;
    reply(w, origin, h->reply_tag, NULL, 0);
    grant_waiters(w);
}

/* A dynamic window: the region must lie in memory attached here. The origin could not know
 * (MPI-3.1 §11.2.4 makes such an access erroneous): the job ends with a report. */
static void check_attached(const win_t *w, int origin, const rma_hdr_t *h)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC || h->hi <= h->lo)
        return;
    for (int i = 0; i < w->nattached; i++) {
        const rma_region_t *r = &w->attached[i];
        if (h->lo >= r->base && h->hi <= r->base + r->size)
            return;
    }
    err_fatal(MPI_ERR_RMA_RANGE, "MPI_Win (target side)",
              "rank %d accessed addresses 0x%llx..0x%llx of a dynamic window, outside the "
              "memory attached at rank %d",
              origin, (unsigned long long)h->lo, (unsigned long long)h->hi, w->comm->rank);
}

/* h (host order) is the header of the record at rec. */
static void apply(win_t *w, int origin, const rma_hdr_t *h, const char *rec)
{
    if (h->kind <= RMA_CAS)
        check_attached(w, origin, h);
    const char *layout = rec + sizeof *h;
    const char *data = layout + rma_padded(h->layout_len);
    switch (h->kind) {
    case RMA_PUT:
    case RMA_GET:
    case RMA_ACC:
    case RMA_GACC:
    case RMA_CAS: {
        void *turned;
        const void *walk = rma_layout_from(w, origin, h, layout, &turned);
        void *native = rma_convert_from(w, origin, h, walk, data);
        void *old = rma_apply_data(w->base, h, walk, native ? native : data, NULL);
        free(native);
        free(turned);
        if (old)
            reply(w, origin, h->reply_tag, old, h->bytes);
        break;
    }
    case RMA_UNLOCK:
        unlock(w, origin, h);
        break;
    case RMA_FLUSH:
        reply(w, origin, h->reply_tag, NULL, 0);
        break;
    case RMA_POST:
        w->posts[origin]++;
        break;
    case RMA_COMPLETE:
        w->completes[origin]++;
        break;
    default:
        err_fatal(MPI_ERR_INTERN, "MPI_Win", "unknown one-sided operation %u from rank %d",
                  h->kind, origin);
    }
    w->applied[origin]++;
}

/* A message holds one operation or several gathered records (wire.h), applied in order. A
 * lock request that must wait takes the records behind it along (lock). */
static void apply_records(win_t *w, int origin, const char *msg, size_t bytes)
{
    size_t off = 0;
    do {
        rma_hdr_t h;
        if (bytes - off >= sizeof h) {
            memcpy(&h, msg + off, sizeof h);
            rma_hdr_le(&h);
        }
        uint64_t len = bytes - off < sizeof h ? UINT64_MAX
                                              : sizeof h + rma_padded(h.layout_len) +
                                                    rma_data_bytes(&h);
        if (len > bytes - off)
            err_fatal(MPI_ERR_INTERN, "MPI_Win",
                      "a one-sided message of %zu bytes from rank %d ends inside an operation",
                      bytes, origin);
        size_t at = off;
        off += rma_padded(len);
        if (h.kind == RMA_LOCK) {
            w->applied[origin]++;
            if (!lock(w, origin, &h, msg + off, off < bytes ? bytes - off : 0))
                return;
            continue;
        }
        apply(w, origin, &h, msg + at);
    } while (off < bytes);
}

/* Whole, and of a fence epoch this process has reached (a message shorter than a header is
 * whole, and apply_records reports it). */
static int applicable(const win_t *w, const rma_incoming_t *in)
{
    if (!in->req->complete)
        return 0;
    const rma_hdr_t *h = in->buf;
    return in->bytes < sizeof *h || (int32_t)(le32toh(h->epoch) - w->fences) <= 0;
}

/* Takes w's arriving messages into its queue and applies those complete at its head. The
 * unexpected queue of w's context is searched only when a message arrived there since w last
 * searched it:
 * a search that ends finds no message of w left, so only a new arrival can bring one. */
static int serve(win_t *w)
{
    int events = 0;
    unexpected_t *u;
    uint64_t arrivals = match_arrivals(w->comm);
    int look = arrivals != w->searched_at;
    w->searched_at = arrivals;
    while (look && (u = match_take(w->comm, MPI_ANY_SOURCE, RMA_TAG_OP))) {
        rma_incoming_t *in = malloc(sizeof *in);
        size_t bytes = u->m.size;
        void *buf = malloc(bytes > sizeof(rma_hdr_t) ? bytes : sizeof(rma_hdr_t));
        request_t *r = request_new(REQ_RECV, w->comm);
        if (!in || !buf || !r)
            err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for a one-sided operation");
        p2p_data_t d = { .buf = buf, .bytes = bytes };
        p2p_set_data(r, &d);
        r->peer = u->m.env.src;
        r->tag = RMA_TAG_OP;
        r->active = 1;
        r->op.buf = buf;
        r->op.bytes = bytes;
        *in = (rma_incoming_t){ r, buf, bytes, u->m.env.src, NULL };
        match_deliver(r, u);
        if (w->in_tail)
            w->in_tail->next = in;
        else
            w->in_head = in;
        w->in_tail = in;
    }
    uint64_t pass = ++w->serve_pass;
    rma_incoming_t *prev = NULL, *next;
    for (rma_incoming_t *in = w->in_head; in; in = next) {
        next = in->next;
        if (w->held_at[in->origin] == pass || !applicable(w, in) ||
            (w->waiters && origin_waits(w, in->origin))) {
            w->held_at[in->origin] = pass;
            prev = in;
            continue;
        }
        if (prev)
            prev->next = next;
        else
            w->in_head = next;
        if (w->in_tail == in)
            w->in_tail = prev;
        apply_records(w, in->origin, in->buf, in->bytes);
        request_free(in->req);
        free(in->buf);
        free(in);
        events++;
    }
    return events;
}

int rma_progress(void)
{
    if (busy)
        return 0;
    busy = 1;
    int events = 0;
    for (win_t *w = live; w; w = w->next_live) {
        rma_gather_flush(w, -1);   /* gathered operations leave at the latest now */
        events += serve(w) + rma_complete_requests(w);
    }
    retire_replies();
    busy = 0;
    return events;
}

int rma_applied_all(const win_t *w, const uint64_t *expect)
{
    for (int o = 0; o < w->comm->size; o++)
        if (w->applied[o] < expect[o])
            return 0;
    return 1;
}
