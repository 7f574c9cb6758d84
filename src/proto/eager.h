/*
 * The message protocol over any transport. This issue has one protocol: *eager* — the
 * envelope and the whole payload travel in one frame, and the receiver buffers it if no
 * receive is posted. (Rendezvous for large messages comes with the shared-memory issue.)
 *
 * Frame layout: envelope_t, then envelope.size payload bytes.
 */
#ifndef METAMPI_PROTO_EAGER_H
#define METAMPI_PROTO_EAGER_H

#include "transport/transport.h"

#include <stddef.h>
#include <stdint.h>

typedef struct envelope {
    uint32_t context_id;  /* the communicator's context */
    int32_t source;       /* rank of the sender in that communicator */
    int32_t tag;
    uint32_t kind;        /* PROTO_EAGER */
    uint64_t size;        /* payload bytes */
} envelope_t;

enum { PROTO_EAGER = 1 };

/* What the protocol hands up: a matched-or-buffered message. frame is the transport's buffer
 * (owned by the callee from then on); data points into it. */
typedef void (*proto_incoming_fn)(const envelope_t *env, const void *data, void *frame);

/* Opens the transports this rank needs. Returns 0 or -1 with a message. */
int proto_open(proto_incoming_fn incoming, char *err, int errlen);
void proto_close(void);

/* Starts sending env + data to world rank dst; op completes as a transport send does. */
int proto_send(int dst_world_rank, envelope_t *env, const void *data, tr_send_t *op, char *err,
               int errlen);

/* The transports, for the progress engine. */
int proto_transport_count(void);
const transport_t *proto_transport(int i);

#endif
