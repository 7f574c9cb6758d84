/*
 * Frame formats of the message protocols (internal to proto/). Every frame starts with a
 * one-byte kind. Frames travel between ranks of one job, which may run on machines of
 * different byte order (issue 19, docs/heterogeneity.md), so every field is little-endian on
 * the wire: a frame is built in host order and passed through its f_*_le() before it is sent,
 * and a received frame through the same function once copied out (the conversion is its own
 * inverse; on a little-endian host it is nothing at all). The structs have the same layout on
 * every LP64 ABI (checked below). ids (sreq, rreq) are the sender's/receiver's wire ids of its own
 * operations (ids.h: index and generation in its table of live operations, never addresses),
 * echoed back unchanged. Every field is untrusted input to the receiver (see proto.c,
 * "Checks").
 *
 *   EAGER       match header, payload                       (message, no reply)
 *   EAGER_SYNC  match header, sreq, payload                 (ACK sreq once matched)
 *   RTS         match header, size, sreq, addr              (rendezvous request to send)
 *               [, layout_addr, layout_len, count]          (typed data: the sender's layout)
 *   CTS         sreq, rreq, bytes                           (send `bytes` as DATA to rreq)
 *   DATA        rreq, offset, payload
 *   FIN         sreq                                        (receiver has read the data)
 *   ACK         sreq                                        (synchronous eager matched)
 *   CANCEL      ctx, sreq                                   (withdraw an unmatched message
 *                                                           on receive context ctx)
 *   CANCEL_REPLY sreq, result                               (1: withdrawn, 0: already matched)
 *   COOP        slot, sreq, addr, chunk, gen                (cooperative copy: claim chunks
 *                                                            of `chunk` bytes from the back in
 *                                                            my shared slot while gen is its
 *                                                            generation, and write each to
 *                                                            addr + its offset in my memory)
 */
#ifndef METAMPI_PROTO_WIRE_H
#define METAMPI_PROTO_WIRE_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>

enum {
    F_EAGER = 1,
    F_EAGER_SYNC,
    F_RTS,
    F_CTS,
    F_DATA,
    F_FIN,
    F_ACK,
    F_CANCEL,
    F_CANCEL_REPLY,
    F_COOP,
};

typedef struct f_match {
    uint8_t kind, pad[3];
    uint32_t ctx;
    int32_t src, tag;
} f_match_t;

typedef struct f_eager_sync {
    f_match_t m;
    uint64_t sreq;
} f_eager_sync_t;

typedef struct f_rts {
    f_match_t m;
    uint64_t size, sreq, addr;
} f_rts_t;

/* RTS of non-contiguous data: where the sender's layout can be read (layout_addr 0: it
 * cannot, the receiver must ask for DATA frames) and how many elements of it the message
 * holds from addr. */
typedef struct f_rts_typed {
    f_rts_t r;
    uint64_t layout_addr, layout_len, count;
} f_rts_typed_t;

typedef struct f_cts {
    uint8_t kind, pad[7];
    uint64_t sreq, rreq, bytes;
} f_cts_t;

typedef struct f_data {
    uint8_t kind, pad[7];
    uint64_t rreq, offset;
} f_data_t;

/* Cooperative copy (proto/coop.c): the receiver of a contiguous rendezvous message copies
 * chunks of `chunk` bytes from the front and offers the sender those it has not claimed yet:
 * the sender claims chunks from the back in the receiver's shared atomic slot `slot` (the
 * transport's; generation `gen`) and writes each to addr + its offset, where addr is the
 * receive buffer in the receiver's memory. */
typedef struct f_coop {
    uint8_t kind, pad[3];
    uint32_t slot;
    uint64_t sreq, addr;
    uint32_t chunk, gen;
} f_coop_t;

/* FIN, ACK, CANCEL, CANCEL_REPLY (result in `result`). ctx: CANCEL's, the context id
 * of the message it withdraws (the receiver searches that context's queue only); 0 in the
 * others. */
typedef struct f_ctrl {
    uint8_t kind, result, pad[2];
    uint32_t ctx;
    uint64_t sreq;
} f_ctrl_t;

_Static_assert(sizeof(f_match_t) == 16 && offsetof(f_eager_sync_t, sreq) == 16 &&
                   sizeof(f_rts_t) == 40 && sizeof(f_rts_typed_t) == 64 && sizeof(f_cts_t) == 32 &&
                   sizeof(f_data_t) == 24 && sizeof(f_ctrl_t) == 16 &&
                   offsetof(f_ctrl_t, ctx) == 4 && sizeof(f_coop_t) == 32,
               "the frames' layout is the same on every architecture of a job");

/* Host order <-> the wire's little-endian, in place (each is its own inverse). */
static inline void f_match_le(f_match_t *m)
{
    m->ctx = htole32(m->ctx);
    m->src = (int32_t)htole32((uint32_t)m->src);
    m->tag = (int32_t)htole32((uint32_t)m->tag);
}

static inline void f_eager_sync_le(f_eager_sync_t *s)
{
    f_match_le(&s->m);
    s->sreq = htole64(s->sreq);
}

static inline void f_rts_le(f_rts_t *r)
{
    f_match_le(&r->m);
    r->size = htole64(r->size);
    r->sreq = htole64(r->sreq);
    r->addr = htole64(r->addr);
}

static inline void f_rts_typed_le(f_rts_typed_t *t)
{
    f_rts_le(&t->r);
    t->layout_addr = htole64(t->layout_addr);
    t->layout_len = htole64(t->layout_len);
    t->count = htole64(t->count);
}

static inline void f_cts_le(f_cts_t *c)
{
    c->sreq = htole64(c->sreq);
    c->rreq = htole64(c->rreq);
    c->bytes = htole64(c->bytes);
}

static inline void f_data_le(f_data_t *d)
{
    d->rreq = htole64(d->rreq);
    d->offset = htole64(d->offset);
}

static inline void f_coop_le(f_coop_t *c)
{
    c->sreq = htole64(c->sreq);
    c->addr = htole64(c->addr);
    c->slot = htole32(c->slot);
    c->chunk = htole32(c->chunk);
    c->gen = htole32(c->gen);
}

static inline void f_ctrl_le(f_ctrl_t *c)
{
    c->ctx = htole32(c->ctx);
    c->sreq = htole64(c->sreq);
}

#endif
