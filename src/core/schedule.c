#include "core/schedule.h"

#include "core/op.h"
#include "core/p2p.h"
#include "core/progress.h"
#include "datatype/dtype.h"

#include <endian.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    E_SEND, E_RECV, E_FENCE, E_COPY, E_REDUCE, E_CALL, E_COPY_DATA, E_OP
} entry_kind_t;

typedef struct entry {
    entry_kind_t kind;
    comm_t *view;             /* send/receive: the internal view of the communicator */
    int peer;
    const void *src;          /* send buffer, copy/reduce source */
    void *dst;                /* receive buffer, copy/reduce destination */
    size_t bytes;
    int n;                    /* reduce: elements */
    icoll_type_t type;
    icoll_op_t op;
    icoll_fn fn;
    void *arg;
    p2p_data_t data;          /* send/receive data; copy_data: destination */
    p2p_data_t from;          /* copy_data: source */
    op_t *uop;                /* E_OP (count: elements of dt) */
    dtype_t *dt;
    size_t count;
    request_t req;            /* send/receive in flight */
} entry_t;

/* An internal view is a copy of a communicator with both context ids moved to the internal
 * context (+1): requests on it never match user traffic. The original stays referenced while
 * the schedule lives. */
enum { MAX_VIEWS = 4 };

typedef struct block {
    struct block *next;
    max_align_t data[];
} block_t;

enum { SMALL_ALLOC = 256 };

typedef struct hold {
    struct hold *next;
    dtype_t *dt;
    op_t *op;
} hold_t;

struct icoll_sched {
    int tag;
    comm_stream_t stream;
    int error;
    /* A receive or copy into a block too small for its data (MPI_ERR_TRUNCATE) is reported
     * at the end but does not stop the schedule: its other steps (a leader forwarding to
     * other members, a relay) are what the peers wait for, and they must not hang because one
     * process posted a short buffer. */
    int truncated;
    entry_t *e;
    int n, cap;
    int pos;                  /* entries before pos are finished */
    int issued;               /* entries in [pos, issued) are sends/receives in flight */
    int ins;                  /* where new entries go: -1 = at the end */
    int done;
    int far;                  /* its end needs a message from another site (icoll_sched_far) */
    /* A thread runs its steps (advance): with threads, a user reduction op or callback in a
     * step runs without the core lock, and no other thread may advance the schedule then. */
    int advancing;
    unsigned pass;            /* the last walk of running (icoll_progress) that took it */
    icoll_done_fn done_fn;
    void *done_arg;
    comm_t *orig[MAX_VIEWS];
    int nviews;
    block_t *mem;
    size_t small_used;        /* units of max_align_t of small[] handed out */
    hold_t *holds;
    icoll_sched_t *next;      /* running schedules; spare schedules */
    /* last: a new schedule clears only what comes before (views[i] is written when
     * nviews grows past i; icoll_sched_alloc clears what it hands out of small[]) */
    comm_t views[MAX_VIEWS];
    /* small allocations come from here (the schedule struct is reused), so a small
     * collective in a loop allocates nothing: e.g. the temporary of a 2-rank Allreduce */
    max_align_t small[SMALL_ALLOC / sizeof(max_align_t)];
};

int icoll_running;
static icoll_sched_t *running;
/* Schedules unlinked from running so far: a walk of running that let the core lock go (a
 * step's user callback) starts again when it changed, its next schedule may be gone. */
static unsigned removals;
/* Finished schedules kept with their entry arrays, so that a blocking collective in a loop
 * allocates nothing (at most MAX_SPARES). */
enum { MAX_SPARES = 4 };
/* A spare keeps an entry array of at most this many entries: a larger one (a collective with
 * many peers, two entries per peer) would stay with the process for as long as it runs, a
 * cost per peer; its collective allocates it again, once per call. */
enum { SPARE_ENTRIES_MAX = 64 };
static icoll_sched_t *spares;
static int nspares;

icoll_sched_t *icoll_sched_new(int tag)
{
    icoll_sched_t *s = spares;
    if (s) {
        spares = s->next;
        nspares--;
        entry_t *e = s->e;
        int cap = s->cap;
        memset(s, 0, offsetof(icoll_sched_t, views));
        s->e = e;
        s->cap = cap;
    } else if (!(s = calloc(1, sizeof *s))) {
        return NULL;
    }
    s->tag = tag;
    s->ins = -1;
    return s;
}

icoll_sched_t *icoll_sched_new_op(comm_t *c, comm_stream_t stream, comm_op_kind_t kind)
{
    icoll_sched_t *s = icoll_sched_new(comm_next_op(c, stream, kind).tag);
    if (s)
        s->stream = stream;
    return s;
}

comm_stream_t icoll_sched_stream(const icoll_sched_t *s)
{
    return s->stream;
}

int icoll_sched_tag(const icoll_sched_t *s)
{
    return s->tag;
}

comm_op_kind_t icoll_sched_kind(const icoll_sched_t *s)
{
    return s->tag < 0 ? COMM_OP_INTERNAL
                      : (comm_op_kind_t)((s->tag & COMM_TAG_KIND_MASK) >> COMM_TAG_KIND_SHIFT);
}

void *icoll_sched_alloc(icoll_sched_t *s, size_t bytes)
{
    size_t units = bytes ? (bytes + sizeof(max_align_t) - 1) / sizeof(max_align_t) : 1;
    if (units <= sizeof s->small / sizeof s->small[0] - s->small_used) {
        void *p = &s->small[s->small_used];
        s->small_used += units;
        return memset(p, 0, bytes);
    }
    block_t *b = calloc(1, sizeof *b + (bytes ? bytes : 1));
    if (!b) {
        s->error = MPI_ERR_NO_MEM;
        return NULL;
    }
    b->next = s->mem;
    s->mem = b;
    return b->data;
}

static void sched_free(icoll_sched_t *s)
{
    for (int i = 0; i < s->nviews; i++)
        comm_release(s->orig[i]);
    for (hold_t *h = s->holds; h; h = h->next) {
        if (h->dt)
            dtype_release(h->dt);
        if (h->op)
            op_release(h->op);
    }
    while (s->mem) {
        block_t *b = s->mem;
        s->mem = b->next;
        free(b);
    }
    if (nspares < MAX_SPARES) {
        if (s->cap > SPARE_ENTRIES_MAX) {
            free(s->e);
            s->e = NULL;
            s->cap = 0;
        }
        s->next = spares;
        spares = s;
        nspares++;
        return;
    }
    free(s->e);
    free(s);
}

/* Spare schedules go when the library ends (MPI_Finalize calls icoll_release_spares). */
void icoll_release_spares(void)
{
    while (spares) {
        icoll_sched_t *s = spares;
        spares = s->next;
        free(s->e);
        free(s);
    }
    nspares = 0;
}

void icoll_sched_discard(icoll_sched_t *s)
{
    sched_free(s);
}

static comm_t *view_of(icoll_sched_t *s, comm_t *c)
{
    for (int i = 0; i < s->nviews; i++)
        if (s->orig[i] == c)
            return &s->views[i];
    if (s->nviews == MAX_VIEWS) {
        s->error = MPI_ERR_INTERN;
        return NULL;
    }
    int i = s->nviews++;
    s->orig[i] = c;
    comm_retain(c);
    s->views[i] = *c;
    s->views[i].recv_ctx = c->recv_ctx + 1;
    s->views[i].send_ctx = c->send_ctx + 1;
    return &s->views[i];
}

/* A new entry at the insertion point; NULL (error recorded) when out of memory. Only called
 * while nothing is in flight after the insertion point (before the start, or from a
 * callback), so moving entries never moves a request the protocol holds. */
static entry_t *add(icoll_sched_t *s, entry_kind_t kind)
{
    if (s->error)
        return NULL;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        entry_t *e = realloc(s->e, (size_t)cap * sizeof *e);
        if (!e) {
            s->error = MPI_ERR_NO_MEM;
            return NULL;
        }
        s->e = e;
        s->cap = cap;
    }
    int at = s->ins < 0 ? s->n : s->ins;
    memmove(&s->e[at + 1], &s->e[at], (size_t)(s->n - at) * sizeof *s->e);
    s->n++;
    if (s->ins >= 0)
        s->ins++;
    entry_t *x = &s->e[at];
    memset(x, 0, offsetof(entry_t, req));
    x->kind = kind;
    return x;
}

static entry_t *add_msg(icoll_sched_t *s, entry_kind_t kind, comm_t *c, int peer,
                        const void *src, void *dst, size_t bytes)
{
    comm_t *v = view_of(s, c);
    entry_t *x = v ? add(s, kind) : NULL;
    if (!x)
        return NULL;
    x->view = v;
    x->peer = peer;
    x->src = src;
    x->dst = dst;
    x->bytes = bytes;
    return x;
}

void icoll_sched_send(icoll_sched_t *s, comm_t *c, int peer, const void *buf, size_t bytes)
{
    add_msg(s, E_SEND, c, peer, buf, NULL, bytes);
}

void icoll_sched_recv(icoll_sched_t *s, comm_t *c, int peer, void *buf, size_t bytes)
{
    add_msg(s, E_RECV, c, peer, NULL, buf, bytes);
}

void icoll_sched_fence(icoll_sched_t *s)
{
    add(s, E_FENCE);
}

void icoll_sched_copy(icoll_sched_t *s, const void *src, void *dst, size_t bytes)
{
    entry_t *x = add(s, E_COPY);
    if (x) {
        x->src = src;
        x->dst = dst;
        x->bytes = bytes;
    }
}

void icoll_sched_reduce(icoll_sched_t *s, const void *in, void *inout, int n, icoll_type_t type,
                        icoll_op_t op)
{
    entry_t *x = add(s, E_REDUCE);
    if (x) {
        x->src = in;
        x->dst = inout;
        x->n = n;
        x->type = type;
        x->op = op;
    }
}

void icoll_sched_call(icoll_sched_t *s, icoll_fn fn, void *arg)
{
    entry_t *x = add(s, E_CALL);
    if (x) {
        x->fn = fn;
        x->arg = arg;
    }
}

void icoll_sched_send_data(icoll_sched_t *s, comm_t *c, int peer, const p2p_data_t *d)
{
    entry_t *x = add_msg(s, E_SEND, c, peer, d->buf, NULL, d->bytes);
    if (x)
        x->data = *d;
}

void icoll_sched_recv_data(icoll_sched_t *s, comm_t *c, int peer, const p2p_data_t *d)
{
    entry_t *x = add_msg(s, E_RECV, c, peer, NULL, d->buf, d->bytes);
    if (x)
        x->data = *d;
}

void icoll_sched_copy_data(icoll_sched_t *s, const p2p_data_t *src, const p2p_data_t *dst)
{
    entry_t *x = add(s, E_COPY_DATA);
    if (x) {
        x->from = *src;
        x->data = *dst;
    }
}

void icoll_sched_op(icoll_sched_t *s, op_t *op, const void *in, void *inout, size_t count,
                    dtype_t *dt)
{
    entry_t *x = add(s, E_OP);
    if (x) {
        x->uop = op;
        x->src = in;
        x->dst = inout;
        x->count = count;
        x->dt = dt;
    }
}

static void hold(icoll_sched_t *s, dtype_t *dt, op_t *op)
{
    hold_t *h = icoll_sched_alloc(s, sizeof *h);
    if (!h)
        return;
    h->dt = dt;
    h->op = op;
    if (dt)
        dtype_retain(dt);
    if (op)
        op_retain(op);
    h->next = s->holds;
    s->holds = h;
}

void icoll_sched_hold_dtype(icoll_sched_t *s, dtype_t *dt)
{
    if (dt && !dt->predefined)
        hold(s, dt, NULL);
}

void icoll_sched_hold_op(icoll_sched_t *s, op_t *op)
{
    if (op && op->kind == OP_USER)
        hold(s, NULL, op);
}

int icoll_sched_failed(const icoll_sched_t *s)
{
    return s->error != MPI_SUCCESS;
}

/* FNV-1a over 64-bit words */
static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
    return h;
}

static uint64_t mix_data(uint64_t h, const p2p_data_t *d)
{
    h = mix(h, d->bytes);
    return mix(h, d->layout ? d->count + 1 : 0);
}

uint64_t icoll_sched_digest(const icoll_sched_t *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < s->n; i++) {
        const entry_t *x = &s->e[i];
        h = mix(h, (uint64_t)x->kind);
        switch (x->kind) {
        case E_SEND:
        case E_RECV:
            h = mix(h, (uint64_t)(x->view - s->views));
            h = mix(h, (uint64_t)(int64_t)x->peer);
            h = mix(h, x->bytes);
            h = mix_data(h, &x->data);
            break;
        case E_COPY:
            h = mix(h, x->bytes);
            break;
        case E_REDUCE:
            h = mix(h, (uint64_t)x->n);
            h = mix(h, (uint64_t)x->type * 16 + (uint64_t)x->op);
            break;
        case E_COPY_DATA:
            h = mix_data(h, &x->from);
            h = mix_data(h, &x->data);
            break;
        case E_OP:
            h = mix(h, x->count);
            h = mix(h, (uint64_t)x->dt->size);
            break;
        default:
            break;
        }
    }
    return h;
}

/* ---- execution ---------------------------------------------------------------------- */

/* The internal reductions' values are little-endian in memory and on the wire, so that
 * members of unlike byte order combine them (docs/heterogeneity.md); each element is taken to
 * host order, combined, and stored back little-endian (nothing to do on a little-endian
 * host). */
#define REDUCE_LOOP(T, TOH, TOLE)                                                              \
    do {                                                                                       \
        const T *a = in;                                                                       \
        T *b = inout;                                                                          \
        for (int i = 0; i < n; i++) {                                                          \
            T x = (T)TOH(a[i]), y = (T)TOH(b[i]);                                              \
            switch (op) {                                                                      \
            case ICOLL_SUM: y += x; break;                                                     \
            case ICOLL_MAX: y = x > y ? x : y; break;                                          \
            case ICOLL_MIN: y = x < y ? x : y; break;                                          \
            case ICOLL_BAND: y &= x; break;                                                    \
            case ICOLL_BOR: y |= x; break;                                                     \
            }                                                                                  \
            b[i] = (T)TOLE(y);                                                                 \
        }                                                                                      \
    } while (0)

static void reduce(const void *in, void *inout, int n, icoll_type_t type, icoll_op_t op)
{
    if (type == ICOLL_INT)
        REDUCE_LOOP(int, (int)le32toh, htole32);
    else
        REDUCE_LOOP(uint64_t, le64toh, htole64);
}

/* Local copy between typed buffers, through a bounce buffer when neither side is contiguous.
 * Returns MPI_SUCCESS, MPI_ERR_TRUNCATE (dst too small) or MPI_ERR_NO_MEM. */
static int copy_data(const p2p_data_t *src, const p2p_data_t *dst)
{
    size_t n = src->bytes;
    if (n > dst->bytes)
        return MPI_ERR_TRUNCATE;
    if (n == 0)
        return MPI_SUCCESS;
    if (!src->layout && !dst->layout) {
        memmove(dst->buf, src->buf, n);
        return MPI_SUCCESS;
    }
    dt_cursor_t in, out;
    if (src->layout)
        dt_cursor_init(&in, src->layout, (uintptr_t)src->buf, src->count);
    if (dst->layout)
        dt_cursor_init(&out, dst->layout, (uintptr_t)dst->buf, dst->count);
    if (!src->layout) {
        dt_unpack(&out, src->buf, n);
        return MPI_SUCCESS;
    }
    if (!dst->layout) {
        dt_pack(&in, dst->buf, n);
        return MPI_SUCCESS;
    }
    enum { BOUNCE = 64 * 1024 };
    char *tmp = malloc(n < BOUNCE ? n : BOUNCE);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    for (size_t done = 0; done < n;) {
        size_t k = dt_pack(&in, tmp, n - done < BOUNCE ? n - done : BOUNCE);
        dt_unpack(&out, tmp, k);
        done += k;
    }
    free(tmp);
    return MPI_SUCCESS;
}

static void issue(icoll_sched_t *s, entry_t *x)
{
    request_t *r = &x->req;
    request_init_local(r, x->kind == E_SEND ? REQ_SEND : REQ_RECV, x->view);
    r->buf = x->kind == E_SEND ? (void *)x->src : x->dst;
    r->bytes = x->bytes;
    if (x->data.layout) {
        r->layout = x->data.layout;
        r->count = x->data.count;
    }
    r->type = x->data.type; /* typed user data: converted from a peer of another architecture */
    r->peer = x->peer;
    r->tag = s->tag;
    p2p_start(r, "internal collective");
}

static void finish(icoll_sched_t *s)
{
    s->done = 1;
    for (icoll_sched_t **pp = &running; *pp; pp = &(*pp)->next)
        if (*pp == s) {
            *pp = s->next;
            icoll_running--;
            removals++;
            break;
        }
    if (s->done_fn)
        s->done_fn(s->error ? s->error : s->truncated ? MPI_ERR_TRUNCATE : MPI_SUCCESS,
                   s->done_arg);
    sched_free(s);
}

/* Drops the finished entries before a callback when they are the larger part, so that a
 * schedule whose callbacks keep appending (context-id agreement rounds) stays bounded: at a
 * callback every entry before it has completed and none after it has started (pos ==
 * issued), so no request the protocol holds moves. */
static void compact(icoll_sched_t *s)
{
    if (s->pos < 16 || s->pos < s->n - s->pos)
        return;
    memmove(s->e, &s->e[s->pos], (size_t)(s->n - s->pos) * sizeof *s->e);
    s->n -= s->pos;
    s->issued -= s->pos;
    s->pos = 0;
}

/* Runs s's steps as far as they go. Returns the number of events (0: waiting); *finished:
 * s is done (finish() has to be called). */
static int run_steps(icoll_sched_t *s, int *finished)
{
    int events = 0;
    for (;;) {
        /* the messages started together leave together where the path bundles them (to
         * the ranks of another site through a gateway: one WAN frame) */
        int grouped = 0;
        while (!s->error && s->issued < s->n &&
               (s->e[s->issued].kind == E_SEND || s->e[s->issued].kind == E_RECV)) {
            if (!grouped++)
                p2p_group_begin();
            issue(s, &s->e[s->issued++]);
            events++;
        }
        if (grouped)
            p2p_group_end();
        for (; s->pos < s->issued; s->pos++) {
            request_t *r = &s->e[s->pos].req;
            if (!r->complete)
                return events;
            if (r->error == MPI_ERR_TRUNCATE) /* more data than posted */
                s->truncated = 1;
            else if (r->error != MPI_SUCCESS && !s->error)
                s->error = r->error;
            events++;
        }
        if (s->pos == s->n || s->error) {
            *finished = 1;
            return events + 1;
        }
        entry_t *x = &s->e[s->pos];
        switch (x->kind) {
        case E_COPY:
            memcpy(x->dst, x->src, x->bytes);
            break;
        case E_REDUCE:
            reduce(x->src, x->dst, x->n, x->type, x->op);
            break;
        case E_COPY_DATA:
            if (!s->error) {
                int rc = copy_data(&x->from, &x->data);
                if (rc == MPI_ERR_TRUNCATE)
                    s->truncated = 1;
                else
                    s->error = rc;
            }
            break;
        case E_OP: {
            int rc = op_apply(x->uop, x->src, x->dst, x->count, x->dt);
            if (rc != MPI_SUCCESS && !s->error)
                s->error = rc;
            break;
        }
        case E_CALL: {
            compact(s);
            x = &s->e[s->pos];
            s->ins = s->pos + 1;
            int rc = x->fn(s, x->arg); /* may insert entries (x moves) */
            s->ins = -1;
            if (rc == ICOLL_AGAIN)
                return events;
            if (rc != MPI_SUCCESS && !s->error)
                s->error = rc;
            break;
        }
        default:
            break;
        }
        s->pos++;
        s->issued = s->pos;
        events++;
    }
}

/* Runs s as far as it can go, unless a thread does already (its step let the core lock go);
 * returns the number of events. s may be gone after. */
static int advance(icoll_sched_t *s)
{
    if (s->advancing)
        return 0;
    s->advancing = 1;
    int finished = 0;
    int events = run_steps(s, &finished);
    s->advancing = 0;
    if (finished)
        finish(s);
    return events;
}

void icoll_sched_start(icoll_sched_t *s, icoll_done_fn done, void *arg)
{
    s->done_fn = done;
    s->done_arg = arg;
    s->next = running;
    running = s;
    icoll_running++;
    advance(s);
}

/* Also from a step's callback (nested) and from several threads at once, one of them
 * perhaps in a user callback without the core lock: each schedule is advanced by one thread
 * at a time (advancing), and when a schedule left the list meanwhile the walk starts again
 * from the front (s->next may be gone), skipping what it took already. */
int icoll_progress(void)
{
    static unsigned passes;
    unsigned pass = ++passes;
    int events = 0;
    for (icoll_sched_t *s = running; s;) {
        if (s->pass == pass) {
            s = s->next;
            continue;
        }
        s->pass = pass;
        unsigned seen = removals;
        events += advance(s);
        s = removals == seen ? s->next : running;
    }
    return events;
}

typedef struct waiter {
    int done, err;
} waiter_t;

static void wake(int err, void *arg)
{
    waiter_t *w = arg;
    w->err = err;
    w->done = 1;
}

void icoll_sched_far(icoll_sched_t *s)
{
    s->far = 1;
}

int icoll_sched_run(icoll_sched_t *s)
{
    waiter_t w = { 0, MPI_SUCCESS };
    int far = s->far; /* s may be reused once it ends, even before start returns */
    icoll_sched_start(s, wake, &w);
    if (far)
        progress_wait_far(&w.done);
    else
        progress_wait(&w.done);
    return w.err;
}
