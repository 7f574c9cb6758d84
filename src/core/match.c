#include "core/match.h"

#include "core/comm.h"
#include "core/errors.h"
#include "core/match_ctx.h"
#include "core/traffic.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The queues are per receive context (match_ctx.h); what is kept for all of them: */
static size_t unexpected_total, unexpected_max; /* the sum of the entries' unexpected, its
                                                 * high-water mark (tools interface) */
static char clash[256];

/* ctx's entry, made when it has none (the first receive or arrival there). */
static match_ctx_t *entry(uint32_t ctx)
{
    match_ctx_t *e = mctx_make(ctx);
    if (__builtin_expect(!e, 0))
        err_fatal(MPI_ERR_NO_MEM, "progress", "out of memory for the queues of context %u",
                  (unsigned)ctx);
    return e;
}

static inline int env_matches(uint32_t ctx, int source, int tag, const proto_env_t *e)
{
    return ctx == e->ctx && (source == MPI_ANY_SOURCE || source == e->src) &&
           (tag == MPI_ANY_TAG || tag == e->tag);
}

/* A message's envelope names its sender by its rank in the communicator (what MPI_SOURCE
 * reports): checked once the communicator is known, at matching, against the rank that sent
 * the frame. A peer that names another rank breaks the protocol. */
static void check_source(const comm_t *c, const proto_msg_t *m)
{
    int s = m->env.src;
    if (s < 0 || s >= comm_peer_size(c))
        proto_bad_frame(m->peer, "a message on %s names source rank %d (of %d)",
                        comm_name(c->handle), s, comm_peer_size(c));
    if (comm_peer_world_rank(c, s) != m->peer)
        proto_bad_frame(m->peer, "a message on %s names source rank %d (world rank %d)",
                        comm_name(c->handle), s, comm_peer_world_rank(c, s));
}

/* A receive (ctx, tag) is of the same collective operation as envelope e, but e's sender
 * called another kind of collective there: internal context (odd), stream operations (tags
 * >= 0, so not MPI_ANY_TAG), tags that differ in the kind bits only. Any sender: the
 * operation's number says that it is at the same point of the stream. */
static inline int kind_clash(uint32_t ctx, int tag, const proto_env_t *e)
{
    return (ctx & 1) && tag >= 0 && e->tag >= 0 && ctx == e->ctx && tag != e->tag &&
           ((tag ^ e->tag) & ~COMM_TAG_KIND_MASK) == 0;
}

static const char *op_name(int tag)
{
    return comm_op_name((tag >> 29) & 1 ? COMM_NONBLOCKING : COMM_BLOCKING,
                        (comm_op_kind_t)((tag & COMM_TAG_KIND_MASK) >> COMM_TAG_KIND_SHIFT));
}

/* Completes receive r (no longer posted) with MPI_ERR_NOT_SAME: it met m from job rank peer. */
static void fail_clash(request_t *r, const proto_env_t *m, int peer)
{
    snprintf(clash, sizeof clash, "job rank %d called %s where this process called %s", peer,
             op_name(m->tag), op_name(r->tag));
    request_complete_empty(r, m->src);
    r->error = MPI_ERR_NOT_SAME;
}

int match_clash_waiting(const comm_t *c, int tag)
{
    uint32_t ctx = c->recv_ctx + 1;
    const match_ctx_t *e = mctx_get(ctx);
    for (const unexpected_t *u = e ? e->uq_head : NULL; u; u = u->next)
        if (kind_clash(ctx, tag, &u->m.env)) {
            snprintf(clash, sizeof clash, "job rank %d called %s where this process called %s",
                     u->m.peer, op_name(u->m.env.tag), op_name(tag));
            return 1;
        }
    return 0;
}

void match_note_clash(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(clash, sizeof clash, fmt, ap);
    va_end(ap);
}

const char *match_last_clash(void)
{
    return clash[0] ? clash : "the members called different collective operations";
}

void match_incoming(const proto_msg_t *m)
{
    traffic_arrived(m->peer);
    match_ctx_t *e = entry(m->env.ctx);
    for (request_t **pp = &e->posted_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        request_t *r = *pp;
        int clashes = 0;
        if (!env_matches(r->comm->recv_ctx, r->peer, r->tag, &m->env) &&
            !(clashes = kind_clash(r->comm->recv_ctx, r->tag, &m->env)))
            continue;
        check_source(r->comm, m);
        *pp = r->next;
        if (e->posted_tail == r)
            e->posted_tail = prev;
        r->posted = 0;
        e->posted--;
        if (!clashes) {
            mctx_put(e);
            proto_recv_matched(&r->op, m);
            return;
        }
        fail_clash(r, &m->env, m->peer); /* the message stays unexpected */
        break;
    }
    size_t keep = m->data ? m->size : 0;
    unexpected_t *u = malloc(sizeof *u + keep);
    if (!u)
        err_fatal(MPI_ERR_NO_MEM, "progress",
                  "out of memory buffering a %zu-byte unexpected message from rank %d", keep,
                  m->peer);
    u->m = *m;
    if (m->data) {
        memcpy(u->data, m->data, keep);
        u->m.data = u->data;
    }
    u->next = NULL;
    if (e->uq_tail)
        e->uq_tail->next = u;
    else
        e->uq_head = u;
    e->uq_tail = u;
    e->unexpected++;
    e->arrivals++;
    if (++unexpected_total > unexpected_max)
        unexpected_max = unexpected_total;
}

/* Unlinks u from e's unexpected queue, found after prev (NULL: at the head). */
static void uq_unlink(match_ctx_t *e, unexpected_t *prev, unexpected_t *u)
{
    if (prev)
        prev->next = u->next;
    else
        e->uq_head = u->next;
    if (e->uq_tail == u)
        e->uq_tail = prev;
    e->unexpected--;
    unexpected_total--;
}

int match_withdraw(int peer, uint32_t ctx, uint64_t remote_id)
{
    match_ctx_t *e = mctx_get(ctx); /* ctx comes from a frame: any value */
    for (unexpected_t *u = e ? e->uq_head : NULL, *prev = NULL; u; prev = u, u = u->next) {
        if (u->m.peer != peer || u->m.remote_id != remote_id || !u->m.remote_id ||
            u->m.env.ctx != ctx) /* the shared entry holds several contexts */
            continue;
        uq_unlink(e, prev, u);
        mctx_put(e);
        free(u);
        return 1;
    }
    return 0;
}

/* The oldest message on c's context (entry e, or NULL: none) matching (source, tag), taken
 * out of the queue when take (e may be freed then: mctx_put). */
static unexpected_t *find(match_ctx_t *e, const comm_t *c, int source, int tag, int take)
{
    for (unexpected_t *u = e ? e->uq_head : NULL, *prev = NULL; u; prev = u, u = u->next) {
        if (!env_matches(c->recv_ctx, source, tag, &u->m.env))
            continue;
        check_source(c, &u->m);
        if (take) {
            uq_unlink(e, prev, u);
            mctx_put(e);
        }
        return u;
    }
    return NULL;
}

unexpected_t *match_peek(const comm_t *c, int source, int tag)
{
    return find(mctx_get(c->recv_ctx), c, source, tag, 0);
}

unexpected_t *match_take(const comm_t *c, int source, int tag)
{
    return find(mctx_get(c->recv_ctx), c, source, tag, 1);
}

void match_deliver(request_t *r, unexpected_t *u)
{
    proto_recv_matched(&r->op, &u->m);
    free(u);
}

void match_post_recv(request_t *r)
{
    match_ctx_t *e = entry(r->comm->recv_ctx);
    if (e->uq_head) {
        unexpected_t *u = find(e, r->comm, r->peer, r->tag, 1);
        if (u) {
            match_deliver(r, u);
            return;
        }
        if (r->comm->recv_ctx & 1)
            for (u = e->uq_head; u; u = u->next)
                if (kind_clash(r->comm->recv_ctx, r->tag, &u->m.env)) {
                    fail_clash(r, &u->m.env, u->m.peer);
                    return;
                }
    }
    r->posted = 1;
    r->next = NULL;
    if (e->posted_tail)
        e->posted_tail->next = r;
    else
        e->posted_head = r;
    e->posted_tail = r;
    e->posted++;
}

int match_unpost(request_t *r)
{
    if (!r->posted)
        return 0;
    match_ctx_t *e = mctx_get(r->comm->recv_ctx); /* exists: r was posted there */
    for (request_t **pp = &e->posted_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        if (*pp != r)
            continue;
        *pp = r->next;
        if (e->posted_tail == r)
            e->posted_tail = prev;
        r->posted = 0;
        e->posted--;
        mctx_put(e);
        return 1;
    }
    return 0;
}

static void free_unexpected(match_ctx_t *e, void *arg)
{
    (void)arg;
    while (e->uq_head) {
        unexpected_t *u = e->uq_head;
        e->uq_head = u->next;
        free(u);
    }
}

void match_close(void)
{
    mctx_foreach(free_unexpected, NULL);
    mctx_close();
    unexpected_total = 0;
}

static void add_lengths(match_ctx_t *e, void *arg)
{
    match_lengths_t *l = arg;
    l->posted += e->posted;
    l->unexpected += e->unexpected;
}

match_lengths_t match_lengths(void)
{
    match_lengths_t l = { 0, 0, unexpected_max };
    mctx_foreach(add_lengths, &l);
    return l;
}

uint64_t match_arrivals(const comm_t *c)
{
    const match_ctx_t *e = mctx_get(c->recv_ctx);
    return e ? e->arrivals : 0;
}
