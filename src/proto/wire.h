/*
 * Frame formats of the message protocols (internal to proto/). Every frame starts with a
 * one-byte kind. Frames travel between ranks of one job built from the same library, so
 * fields are in host order; ids (sreq, rreq) are the sender's/receiver's wire ids of its own
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
 *   CANCEL      sreq                                        (withdraw an unmatched message)
 *   CANCEL_REPLY sreq, result                               (1: withdrawn, 0: already matched)
 */
#ifndef METAMPI_PROTO_WIRE_H
#define METAMPI_PROTO_WIRE_H

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

/* FIN, ACK, CANCEL, CANCEL_REPLY (result in `result`) */
typedef struct f_ctrl {
    uint8_t kind, result, pad[6];
    uint64_t sreq;
} f_ctrl_t;

#endif
