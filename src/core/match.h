/*
 * Matching (MPI-3.1 §3.5): the posted-receive queue and the unexpected-message queue of each
 * receive context (core/match_ctx.h: a table indexed by context id; the searches below look
 * at the one context they concern, never at the others').
 *
 * A message matches a receive when the context ids are equal, the source is equal or the
 * receive's is MPI_ANY_SOURCE, and the tag is equal or the receive's is MPI_ANY_TAG.
 * An arriving message goes to the oldest matching posted receive; a new receive takes the
 * oldest matching unexpected message. With per-pair ordered transports this gives the
 * non-overtaking guarantee. The source a message names must be the rank that sent it
 * (checked when it matches; anything else ends the job as a bad frame). Unexpected eager payloads are copied (one allocation per message,
 * envelope and data together); unexpected rendezvous messages hold only their RTS.
 *
 * Collective order (core/comm.h, "Tags"): on an internal context, a receive of a collective
 * operation that meets a message of the same operation number and stream but of another kind
 * (from any member: it called a different collective at that point) does not wait for a match
 * that cannot come: it completes with MPI_ERR_NOT_SAME, and match_last_clash() says what
 * met. Found in the scans matching does anyway, so it costs a comparison. (Not found here: a
 * member that posts no receive in that operation. The shared-memory area finds its own
 * clashes while it waits, coll/shm/area.h, and notes them with match_note_clash.)
 */
#ifndef METAMPI_MATCH_H
#define METAMPI_MATCH_H

#include "core/request.h"
#include "proto/proto.h"

#include <stddef.h>
#include <stdint.h>

typedef struct unexpected {
    proto_msg_t m;            /* m.data points at data[] for eager messages */
    struct unexpected *next;
    unsigned char data[];
} unexpected_t;

/* The protocol's upcalls. */
void match_incoming(const proto_msg_t *m);
/* The message of peer's operation remote_id on receive context ctx (the sender's CANCEL names
 * both), removed and freed when still unexpected: 1, else 0. */
int match_withdraw(int peer, uint32_t ctx, uint64_t remote_id);

/* Posts r (a receive with comm, peer, tag set) after checking the unexpected queue: starts
 * delivery at once when a message is waiting. */
void match_post_recv(request_t *r);
/* Removes a posted, unmatched receive (cancel). Returns 1 when it was removed. */
int match_unpost(request_t *r);

/* The oldest unexpected message matching (c's receive context, source, tag), left in place
 * (peek) or taken out of the queue (take). NULL when there is none. */
unexpected_t *match_peek(const comm_t *c, int source, int tag);
unexpected_t *match_take(const comm_t *c, int source, int tag);
/* Delivers a taken message into receive r and frees it. */
void match_deliver(request_t *r, unexpected_t *u);

void match_close(void);

/* "job rank R called MPI_Allreduce where this process called MPI_Bcast" (the last clash). */
const char *match_last_clash(void);
/* For an operation that waits outside matching (the shared-memory area): 1 when a message of
 * another kind of collective waits unexpected with the same operation number as tag on c's
 * internal context (noted for match_last_clash), else 0. */
int match_clash_waiting(const comm_t *c, int tag);
/* Records a clash found elsewhere (printf-like), for match_last_clash. */
void match_note_clash(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The queues' lengths now, summed over every context, and the longest the unexpected
 * messages of all contexts together have been (tools interface). */
typedef struct match_lengths {
    size_t posted, unexpected, unexpected_max;
} match_lengths_t;
match_lengths_t match_lengths(void);
/* How many messages were ever appended to the unexpected queue of c's receive context: a
 * searcher that found nothing there need not search again until this changes. */
uint64_t match_arrivals(const comm_t *c);

#endif
