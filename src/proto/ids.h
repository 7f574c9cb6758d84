/*
 * Wire ids of live operations (internal to proto/). An operation that a peer's frame must
 * find again — a synchronous or rendezvous send (named by ACK, CTS, FIN, CANCEL_REPLY), a
 * receive streamed by DATA frames — holds an entry of this rank's table while it lives, and
 * the peer sees only its id: generation << 32 | index. An id from the wire becomes an
 * operation only through proto_id_find, which checks that the index is in the table and that
 * the entry is live with that generation; so no peer's id is ever a pointer, and the id of an
 * operation that has ended (its entry's generation has moved on) or a made-up one names
 * nothing. Whether the operation belongs to the frame's sender and accepts that frame kind is
 * the caller's check (proto_named_op in proto.c).
 *
 * Invariants: entry i is live iff its op is set, and then op->id == gen << 32 | i.
 * Generations start at 1 and skip 0 when they wrap, so 0 is never an id: it means "none".
 * Opening and closing are O(1) (a free list; the table doubles when full).
 */
#ifndef METAMPI_PROTO_IDS_H
#define METAMPI_PROTO_IDS_H

#include "proto/proto.h"

#include <stddef.h>
#include <stdint.h>

/* Gives op an id (op->id); ends the job when out of memory. */
void proto_id_open(proto_op_t *op);
/* Ends op's id (op->id becomes 0): a frame naming it names nothing from now on. */
void proto_id_close(proto_op_t *op);
/* The live operation id names, or NULL with what is wrong with the id in why. */
proto_op_t *proto_id_find(uint64_t id, char *why, size_t whylen);
/* Frees the table (proto_close). */
void proto_ids_free(void);

#endif
