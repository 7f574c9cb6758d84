#include "proto/eager.h"

#include "runtime/job.h"

#include <stdio.h>
#include <stdlib.h>

static proto_incoming_fn incoming_up;

/* Index 0: frames to ourselves; index 1: frames to other ranks. */
static const transport_t *transports[2];
static int ntransports;

static void deliver(int src_rank, void *frame, size_t len)
{
    (void)src_rank;
    const envelope_t *env = frame;
    if (len < sizeof *env || env->kind != PROTO_EAGER || len - sizeof *env != env->size) {
        /* A transport delivers exactly what a peer sent: a bad frame is a bug, not input. */
        fprintf(stderr, "metampi: rank %d: malformed frame (%zu bytes) from rank %d\n", job.rank,
                len, src_rank);
        abort();
    }
    incoming_up(env, env + 1, frame);
}

int proto_open(proto_incoming_fn incoming, char *err, int errlen)
{
    incoming_up = incoming;
    transports[0] = &transport_self;
    ntransports = 1;
    if (transports[0]->open(deliver, err, errlen) != 0)
        return -1;
    if (job.size > 1) {
        transports[1] = &transport_sock;
        ntransports = 2;
        if (transports[1]->open(deliver, err, errlen) != 0)
            return -1;
    }
    return 0;
}

void proto_close(void)
{
    for (int i = 0; i < ntransports; i++)
        transports[i]->close();
    ntransports = 0;
}

int proto_send(int dst_world_rank, envelope_t *env, const void *data, tr_send_t *op, char *err,
               int errlen)
{
    op->iov[0].iov_base = env;
    op->iov[0].iov_len = sizeof *env;
    op->iov[1].iov_base = (void *)data;
    op->iov[1].iov_len = env->size;
    op->iovcnt = env->size ? 2 : 1;
    const transport_t *t = dst_world_rank == job.rank ? transports[0] : transports[1];
    return t->send(dst_world_rank, op, err, errlen);
}

int proto_transport_count(void)
{
    return ntransports;
}

const transport_t *proto_transport(int i)
{
    return transports[i];
}
