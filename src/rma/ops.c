/* The origin side of the emulation: each operation becomes one message to the target (and,
 * for those that return data or wait for an answer, a receive posted before it is sent). */
#include "rma/win.h"
#include "rma/wire.h"

#include "core/errors.h"
#include "core/op.h"
#include "core/p2p.h"
#include "core/progress.h"
#include "datatype/construct.h"
#include "datatype/dtype.h"
#include "datatype/predefined.h"
#include "runtime/peer_arch.h"

#include <stdlib.h>
#include <string.h>

/* An operation not yet complete at the origin: its message (buf, freed when sent) or its
 * reply's receive. */
typedef struct rma_pending {
    request_t *req;
    void *buf;
    int target;
    request_t *user;             /* Rput ...: completed with req */
    struct rma_pending *next;
} rma_pending_t;

static const char *kind_name(rma_kind_t kind)
{
    static const char *const names[] = { "", "MPI_Put", "MPI_Get", "MPI_Accumulate",
                                          "MPI_Get_accumulate", "MPI_Compare_and_swap",
                                          "MPI_Win_lock", "MPI_Win_unlock", "MPI_Win_flush",
                                          "MPI_Win_post", "MPI_Win_complete" };
    return names[kind];
}

/* count elements of t at buf as the core's data description (see api/checks.c check_data) */
static p2p_data_t data_of(const void *buf, size_t count, dtype_t *t)
{
    const dt_layout_t *l = dtype_layout(t);
    p2p_data_t d = { .buf = (void *)buf, .bytes = count * (size_t)t->size };
    if (dt_layout_contiguous(l, count))
        d.buf = (void *)((uintptr_t)buf + (uintptr_t)dt_layout_true_lb(l));
    else
        d.layout = l, d.count = count, d.dtype = t;
    return d;
}

static void pack(void *dst, const void *buf, size_t count, dtype_t *t)
{
    const dt_layout_t *l = dtype_layout(t);
    size_t bytes = count * (size_t)t->size;
    if (dt_layout_contiguous(l, count)) {
        memcpy(dst, (const char *)buf + dt_layout_true_lb(l), bytes);
        return;
    }
    dt_cursor_t c;
    dt_cursor_init(&c, l, (uintptr_t)buf, count);
    dt_pack(&c, dst, bytes);
}

static int track(win_t *w, request_t *r, void *buf, int target, request_t *user)
{
    rma_pending_t *p = malloc(sizeof *p);
    if (!p)
        return MPI_ERR_NO_MEM;
    *p = (rma_pending_t){ r, buf, target, user, w->pending };
    w->user_requests += user != NULL;
    w->pending = p;
    return MPI_SUCCESS;
}

static int start_request(win_t *w, req_kind_t kind, const p2p_data_t *d, int peer, int tag,
                         void *owned, request_t *user, const char *func)
{
    request_t *r = request_new(kind, w->comm);
    if (!r) {
        free(owned);
        return MPI_ERR_NO_MEM;
    }
    p2p_set_data(r, d);
    r->peer = peer;
    r->tag = tag;
    r->mode = MODE_STANDARD;
    int rc = p2p_start(r, func);
    if (rc == MPI_SUCCESS)
        rc = track(w, r, owned, peer, user);
    if (rc != MPI_SUCCESS) {
        p2p_wait(r);
        request_free(r);
        free(owned);
    }
    return rc;
}

static int next_reply_tag(win_t *w)
{
    int tag = RMA_TAG_REPLY0 + w->next_reply;
    w->next_reply = (w->next_reply + 1) % RMA_TAG_REPLY_SPAN;
    return tag;
}

/* A target of another architecture converts data of several basic types (a struct, a pair
 * type) as a stream of the target datatype's signature, which it learns from the layout: sent
 * then even where the region is contiguous (rma/convert.c). */
static int layout_needed(const win_t *w, const rma_args_t *a)
{
    if (peer_arch_all_same() || a->target == MPI_PROC_NULL)
        return 0;
    int leaf = op_leaf(a->target_type);
    if (leaf == 0 || (leaf > 0 && dtype_basic(leaf)))
        return 0;
    return !arch_same(peer_arch(comm_peer_world_rank(w->comm, a->target)), arch_local());
}

/* The header's description of the target region; *layout and *len: the layout to send. */
static void describe_target(win_t *w, const rma_args_t *a, rma_hdr_t *h, const void **layout,
                            size_t *len)
{
    dtype_t *t = a->target_type;
    const dt_layout_t *l = dtype_layout(t);
    size_t count = (size_t)a->target_count;
    uint64_t offset = (uint64_t)a->disp * (uint64_t)w->disp_units[a->target];
    h->bytes = count * (uint64_t)t->size;
    h->count = count;
    if (count && t->size) {
        h->lo = offset + (uint64_t)t->true_lb;
        h->hi = offset + (count - 1) * (uint64_t)(t->ub - t->lb) + (uint64_t)t->true_ub;
    }
    *layout = NULL;
    *len = 0;
    if (dt_layout_contiguous(l, count) && !layout_needed(w, a)) {
        h->offset = offset + (uint64_t)dt_layout_true_lb(l);
    } else {
        h->offset = offset;
        *layout = dt_layout_bytes(l, len);
        h->layout_len = (uint32_t)*len;
    }
}

/* The origin's data of an operation as its message carries it (rma_data_bytes(h) bytes at
 * dst): compare_and_swap's new and compare values, else the origin buffer packed. */
static void origin_data(char *dst, const rma_args_t *a, const rma_hdr_t *h)
{
    if (h->kind == RMA_CAS) {
        memcpy(dst, a->origin, h->bytes);
        memcpy(dst + h->bytes, a->compare, h->bytes);
    } else if (rma_data_bytes(h)) {
        pack(dst, a->origin, (size_t)a->origin_count, a->origin_type);
    }
}

/* Direct access (w->direct): the origin's data as the emulation would send it (read in
 * place when contiguous), applied to the target's part at once. */
static int direct_start(win_t *w, rma_kind_t kind, const rma_args_t *a, const rma_hdr_t *h,
                        const void *layout, size_t data)
{
    char *tmp = NULL;
    const void *src = NULL;
    const dt_layout_t *l = dtype_layout(a->origin_type);
    if (kind != RMA_CAS && data && dt_layout_contiguous(l, (size_t)a->origin_count)) {
        src = (const char *)a->origin + dt_layout_true_lb(l);
    } else if (data) {
        if (!(tmp = malloc(data)))
            return MPI_ERR_NO_MEM;
        origin_data(tmp, a, h);
        src = tmp;
    }
    rma_direct_apply(w, a, h, layout, src);
    free(tmp);
    return MPI_SUCCESS;
}

int rma_start(win_t *w, rma_kind_t kind, const rma_args_t *a)
{
    if (!w->lock_all && !w->lock_held[a->target] &&
        !(w->naccess >= 0 && w->access_member[a->target]))
        w->fence_ops++;
    if (w->direct && rma_direct_fast(w, kind, a))
        return MPI_SUCCESS;
    const char *func = kind_name(kind);
    rma_hdr_t h = { .kind = kind, .epoch = w->fences };
    const void *layout;
    size_t layout_len;
    describe_target(w, a, &h, &layout, &layout_len);
    if (a->op) {
        h.op = a->op->kind;
        h.leaf = op_leaf(kind == RMA_GACC && a->op->kind == OP_NO_OP ? a->target_type
                                                                       : a->origin_type);
    } else {
        h.leaf = op_leaf(a->target_type); /* the target converts it from an unlike origin */
    }
    size_t data = rma_data_bytes(&h);
    if (w->direct)
        return direct_start(w, kind, a, &h, layout, data);
    size_t head = sizeof h + rma_padded(layout_len);
    int gather = !a->request && head + data <= rma_gather_limit();
    char *msg = gather ? NULL : malloc(head + data);
    if (!gather && !msg)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    if (kind == RMA_GET || kind == RMA_GACC || kind == RMA_CAS) {
        h.reply_tag = next_reply_tag(w);
        p2p_data_t d = kind == RMA_GET ? data_of(a->origin, (size_t)a->origin_count,
                                                 a->origin_type)
                                       : data_of(a->result, (size_t)a->result_count,
                                                 a->result_type);
        /* the target's data: converted here when it is of another architecture */
        d.type = (kind == RMA_GET ? a->origin_type : a->result_type)->handle;
        if (d.type == MPI_PACKED) /* the target's bytes as they are (core/p2p_packed.h) */
            d.type = MPI_BYTE;
        /* the reply completes the operation at the origin */
        rc = start_request(w, REQ_RECV, &d, a->target, h.reply_tag, NULL, a->request, func);
    }
    if (rc != MPI_SUCCESS) {
        free(msg);
        return rc;
    }
    if (gather)
        msg = rma_gather_reserve(w, a->target, head + data);
    rma_hdr_t le = h;
    rma_hdr_le(&le);
    memcpy(msg, &le, sizeof le);
    if (layout_len)
        memcpy(msg + sizeof h, layout, layout_len);
    origin_data(msg + head, a, &h);
    w->sent[a->target]++;
    if (kind == RMA_PUT || kind == RMA_ACC)
        w->unconfirmed[a->target] = 1;
    if (gather)
        return MPI_SUCCESS;
    rma_gather_flush(w, a->target);   /* the records gathered before go first */
    p2p_data_t d = { .buf = msg, .bytes = head + data };
    int replied = kind == RMA_GET || kind == RMA_GACC || kind == RMA_CAS;
    return start_request(w, REQ_SEND, &d, a->target, RMA_TAG_OP, msg,
                         replied ? NULL : a->request, func);
}

int rma_send(win_t *w, int target, void *msg, size_t bytes, const char *func)
{
    p2p_data_t d = { .buf = msg, .bytes = bytes };
    return start_request(w, REQ_SEND, &d, target, RMA_TAG_OP, msg, NULL, func);
}

uint64_t rma_data_bytes(const rma_hdr_t *h)
{
    switch (h->kind) {
    case RMA_PUT:
    case RMA_ACC:
        return h->bytes;
    case RMA_GACC:
        return h->op != OP_NO_OP ? h->bytes : 0;
    case RMA_CAS:
        return 2 * h->bytes;
    default:
        return 0;
    }
}

static int locally_complete(void *arg)
{
    struct { win_t *w; int target; } *c = arg;
    for (rma_pending_t *p = c->w->pending; p; p = p->next)
        if ((c->target < 0 || p->target == c->target) && !p->req->complete)
            return 0;
    return 1;
}

int rma_complete_requests(win_t *w)
{
    int n = 0;
    for (rma_pending_t *p = w->pending; p && w->user_requests; p = p->next)
        if (p->user && p->req->complete) {
            request_complete_internal(p->user, MPI_SUCCESS);
            p->user = NULL;
            w->user_requests--;
            n++;
        }
    return n;
}

void rma_complete_local(win_t *w, int target)
{
    rma_gather_flush(w, target);
    if (!w->pending)
        return;
    struct { win_t *w; int target; } c = { w, target };
    progress_wait_until(locally_complete, &c);
    rma_complete_requests(w);
    for (rma_pending_t **pp = &w->pending; *pp;) {
        rma_pending_t *p = *pp;
        if (p->req->complete) {
            *pp = p->next;
            request_free(p->req);
            free(p->buf);
            free(p);
        } else {
            pp = &p->next;
        }
    }
}

/* A control record (lock, unlock, flush) for target at h, and the receive of its reply,
 * posted; the record counts as sent. */
static request_t *control_record(win_t *w, rma_hdr_t *h, rma_kind_t kind, int target,
                                 int lock_type)
{
    request_t *reply = request_new(REQ_RECV, w->comm);
    if (!h || !reply)
        err_fatal(MPI_ERR_NO_MEM, kind_name(kind), "out of memory for a control message");
    *h = (rma_hdr_t){ .kind = kind, .epoch = w->fences, .lock_type = lock_type,
                      .reply_tag = next_reply_tag(w) };
    p2p_data_t none = { 0 };
    p2p_set_data(reply, &none);
    reply->peer = target;
    reply->tag = h->reply_tag;
    rma_hdr_le(h);
    p2p_start(reply, kind_name(kind));
    w->sent[target]++;
    return reply;
}

/* Sends a control message to target; the returned receive gets its reply. When operations
 * to target are gathered, the control message is their buffer's last record, so that a
 * flush or unlock after small operations costs one message each way. A flush or unlock
 * confirms every operation sent before it (target.c applies in order, then replies). */
static request_t *control_start(win_t *w, rma_kind_t kind, int target, int lock_type)
{
    int gathered = w->gather && w->gather[target].len;
    rma_hdr_t *h = gathered ? rma_gather_reserve(w, target, sizeof *h) : malloc(sizeof *h);
    request_t *reply = control_record(w, h, kind, target, lock_type);
    if (kind == RMA_FLUSH || kind == RMA_UNLOCK)
        w->unconfirmed[target] = 0;
    if (gathered) {
        rma_gather_flush(w, target);
        return reply;
    }
    p2p_data_t d = { .buf = h, .bytes = sizeof *h };
    if (start_request(w, REQ_SEND, &d, target, RMA_TAG_OP, h, NULL, kind_name(kind)) !=
        MPI_SUCCESS)
        err_fatal(MPI_ERR_NO_MEM, kind_name(kind), "out of memory for a control message");
    return reply;
}

/* A lock request need not be granted before the epoch's operations leave where the target
 * applies them behind it (the emulation), and nobody loads or stores the locked memory
 * directly: not on direct or shared windows, nor this process's own window. */
static int lock_lazily(const win_t *w, int target)
{
    return !w->direct && w->flavor != MPI_WIN_FLAVOR_SHARED && target != w->comm->rank;
}

/* The request goes first into the target's gather buffer and leaves with the epoch's
 * operations, its first flush or its unlock, so that lock, operations and unlock cost one
 * message each way; the target keeps whatever follows a request it cannot grant yet
 * (target.c). The grant is awaited at the unlock (rma_unlock). */
static void lock_start(win_t *w, int target, int lock_type)
{
    if (!w->lock_reply && !(w->lock_reply = calloc((size_t)w->comm->size,
                                                   sizeof *w->lock_reply)))
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win_lock", "out of memory for lock requests");
    rma_hdr_t *h = rma_gather_reserve(w, target, sizeof *h);
    w->lock_reply[target] = control_record(w, h, RMA_LOCK, target, lock_type);
}

static void lock_granted(win_t *w, int target)
{
    request_t *r = w->lock_reply ? w->lock_reply[target] : NULL;
    if (!r)
        return;
    p2p_wait(r);
    request_free(r);
    w->lock_reply[target] = NULL;
}

void rma_lock(win_t *w, int target, int lock_type)
{
    if (lock_lazily(w, target))
        lock_start(w, target, lock_type);
    else
        rma_control(w, RMA_LOCK, target, lock_type);
}

void rma_unlock(win_t *w, int target, int lock_type)
{
    rma_control(w, RMA_UNLOCK, target, lock_type);
    lock_granted(w, target);
}

void rma_lock_all(win_t *w)
{
    int n = w->comm->size, *now = calloc((size_t)n, sizeof *now);
    if (!now)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win_lock_all", "out of memory for %d targets", n);
    for (int t = 0; t < n; t++)
        now[t] = !lock_lazily(w, t);
    /* the awaited ones first: waiting runs the progress engine, which would send the other
     * requests alone */
    rma_control_all(w, RMA_LOCK, now, MPI_LOCK_SHARED);
    for (int t = 0; t < n; t++)
        if (!now[t])
            lock_start(w, t, MPI_LOCK_SHARED);
    free(now);
}

void rma_unlock_all(win_t *w)
{
    rma_control_all(w, RMA_UNLOCK, NULL, MPI_LOCK_SHARED);
    for (int t = 0; t < w->comm->size; t++)
        lock_granted(w, t);
}

void rma_control_all(win_t *w, rma_kind_t kind, const int *only, int lock_type)
{
    int n = w->comm->size, k = 0;
    if (w->direct) {
        for (int t = 0; t < n; t++)
            if (!only || only[t])
                rma_direct_control(w, kind, t, lock_type);
        return;
    }
    request_t **replies = malloc((size_t)n * sizeof *replies);
    if (!replies)
        err_fatal(MPI_ERR_NO_MEM, kind_name(kind), "out of memory for %d control messages", n);
    for (int t = 0; t < n; t++)
        if (!only || only[t])
            replies[k++] = control_start(w, kind, t, lock_type);
    for (int i = 0; i < k; i++) {
        p2p_wait(replies[i]);
        request_free(replies[i]);
    }
    free(replies);
}

void rma_control(win_t *w, rma_kind_t kind, int target, int lock_type)
{
    if (w->direct) {
        rma_direct_control(w, kind, target, lock_type);
        return;
    }
    request_t *reply = control_start(w, kind, target, lock_type);
    p2p_wait(reply);
    request_free(reply);
}

void rma_notify(win_t *w, rma_kind_t kind, int target)
{
    rma_gather_flush(w, target);
    rma_hdr_t *h = calloc(1, sizeof *h);
    if (!h)
        err_fatal(MPI_ERR_NO_MEM, kind_name(kind), "out of memory for a notice");
    h->kind = kind;
    h->epoch = w->fences;
    rma_hdr_le(h);
    p2p_data_t d = { .buf = h, .bytes = sizeof *h };
    w->sent[target]++;
    if (start_request(w, REQ_SEND, &d, target, RMA_TAG_OP, h, NULL, kind_name(kind)) !=
        MPI_SUCCESS)
        err_fatal(MPI_ERR_NO_MEM, kind_name(kind), "out of memory for a notice");
}
