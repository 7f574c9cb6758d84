#include "core/isendrecv.h"

#include "core/progress.h"

#include <stdlib.h>

typedef struct pair {
    request_t send, recv;     /* handle-less parts */
    request_t *user;          /* the request the program holds */
    void *owned_copy;
    struct pair *next;
} pair_t;

static pair_t *pending;

static void start_part(request_t *part, req_kind_t kind, comm_t *c, const p2p_data_t *d,
                       int peer, int tag, const char *func)
{
    request_init_local(part, kind, c);
    request_set_data(part, d->buf, d->bytes, d->layout, d->count, d->dtype);
    part->type = d->type;
    part->peer = peer;
    part->tag = tag;
    p2p_start(part, func); /* standard mode: cannot fail */
}

static void finish(pair_t *p)
{
    request_t *u = p->user;
    u->status = p->recv.status;
    u->error = p->recv.error;
    u->op.msg_bytes = p->recv.op.msg_bytes;
    u->bytes = p->recv.bytes;
    u->pair = NULL;
    request_free(&p->send);
    request_free(&p->recv);
    free(p->owned_copy);
    free(p);
    __atomic_store_n(&u->complete, 1, __ATOMIC_RELEASE);
    if (u->user_freed)
        request_free(u);
}

/* The progress engine's poller: completes the pairs whose parts are both complete. */
static int poll_pairs(void)
{
    int done = 0;
    for (pair_t **pp = &pending; *pp;) {
        pair_t *p = *pp;
        if (p->send.complete && p->recv.complete) {
            *pp = p->next;
            finish(p);
            done++;
        } else {
            pp = &p->next;
        }
    }
    if (!pending)
        progress_remove_poller(poll_pairs);
    return done;
}

request_t *isendrecv_start(comm_t *c, const p2p_data_t *sd, int dest, int sendtag,
                           const p2p_data_t *rd, int source, int recvtag, void *owned_copy,
                           const char *func)
{
    pair_t *p = malloc(sizeof *p);
    request_t *u = p ? request_new(REQ_PAIR, c) : NULL;
    if (!u) {
        free(p);
        return NULL;
    }
    if (!pending && progress_add_poller(poll_pairs) != 0) {
        request_free(u);
        free(p);
        return NULL;
    }
    u->active = 1;
    u->pair = p;
    p->user = u;
    p->owned_copy = owned_copy;
    start_part(&p->recv, REQ_RECV, c, rd, source, recvtag, func);
    start_part(&p->send, REQ_SEND, c, sd, dest, sendtag, func);
    p->next = pending;
    pending = p;
    return u;
}

void isendrecv_cancel(request_t *r)
{
    pair_t *p = r->pair;
    if (!p || r->complete)
        return;
    p2p_cancel(&p->recv);
    p2p_cancel(&p->send);
}
