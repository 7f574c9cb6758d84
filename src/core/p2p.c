#include "core/p2p.h"

#include "core/errors.h"
#include "core/progress.h"
#include "proto/eager.h"

#include <stdlib.h>
#include <string.h>

typedef struct unexpected {
    envelope_t env;
    const void *data;
    void *frame;
    struct unexpected *next;
} unexpected_t;

typedef struct posted_recv {
    uint32_t context_id;
    int source, tag;
    void *buf;
    size_t capacity;
    MPI_Status *status;
    size_t msg_bytes;
    int error;
    volatile int done;
} posted_recv_t;

static unexpected_t *uq_head, *uq_tail;
/* At most one receive is posted at a time: receives are blocking in this issue. */
static posted_recv_t *posted;

static int matches(const posted_recv_t *r, const envelope_t *env)
{
    return r->context_id == env->context_id &&
           (r->source == MPI_ANY_SOURCE || r->source == env->source) &&
           (r->tag == MPI_ANY_TAG || r->tag == env->tag);
}

/* Fills the receive buffer and status. MPI_ERROR is left alone: single-completion calls do
 * not set it (MPI-3.1 §3.2.5). */
static void complete(posted_recv_t *r, const envelope_t *env, const void *data)
{
    size_t n = env->size;
    r->msg_bytes = n;
    r->error = MPI_SUCCESS;
    if (n > r->capacity) {
        n = r->capacity;
        r->error = MPI_ERR_TRUNCATE;
    }
    if (n)
        memcpy(r->buf, data, n);
    if (r->status) {
        r->status->MPI_SOURCE = env->source;
        r->status->MPI_TAG = env->tag;
        r->status->metampi_cancelled = 0;
        r->status->metampi_count = (long long)n;
    }
    r->done = 1;
}

static void incoming(const envelope_t *env, const void *data, void *frame)
{
    if (posted && !posted->done && matches(posted, env)) {
        complete(posted, env, data);
        free(frame);
        return;
    }
    unexpected_t *u = malloc(sizeof *u);
    if (!u)
        abort(); /* cannot buffer a message we are obliged to deliver */
    u->env = *env;
    u->data = data;
    u->frame = frame;
    u->next = NULL;
    if (uq_tail)
        uq_tail->next = u;
    else
        uq_head = u;
    uq_tail = u;
}

int p2p_open(char *err, int errlen)
{
    return proto_open(incoming, err, errlen);
}

void p2p_close(void)
{
    proto_close();
    while (uq_head) {
        unexpected_t *u = uq_head;
        uq_head = u->next;
        free(u->frame);
        free(u);
    }
    uq_tail = NULL;
}

int p2p_send(const comm_t *c, const void *buf, size_t bytes, int dest, int tag,
             const char *func)
{
    envelope_t env = { .context_id = c->context_id, .source = c->rank, .tag = tag,
                       .kind = PROTO_EAGER, .size = bytes };
    tr_send_t op;
    memset(&op, 0, sizeof op);
    char err[256];
    if (proto_send(comm_world_rank(c, dest), &env, buf, &op, err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "%s", err);
    progress_wait(&op.done);
    return MPI_SUCCESS;
}

int p2p_recv(const comm_t *c, void *buf, size_t capacity, int source, int tag,
             MPI_Status *status, size_t *msg_bytes)
{
    posted_recv_t r = { .context_id = c->context_id, .source = source, .tag = tag,
                        .buf = buf, .capacity = capacity, .status = status };
    /* oldest matching unexpected message first */
    for (unexpected_t **pp = &uq_head, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
        unexpected_t *u = *pp;
        if (!matches(&r, &u->env))
            continue;
        complete(&r, &u->env, u->data);
        *pp = u->next;
        if (uq_tail == u)
            uq_tail = prev;
        free(u->frame);
        free(u);
        *msg_bytes = r.msg_bytes;
        return r.error;
    }
    posted = &r;
    progress_wait(&r.done);
    posted = NULL;
    *msg_bytes = r.msg_bytes;
    return r.error;
}
