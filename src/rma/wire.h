/*
 * The messages of one-sided emulation (rma/, tag RMA_TAG_OP on the window's context):
 *
 *   rma_hdr_t | target layout (layout_len bytes, padded to RMA_ALIGN) | data
 *
 * data: put, accumulate, get_accumulate: the origin's data, packed (bytes); compare_and_swap:
 * the new value then the compare value (bytes each); nothing for the others. The target
 * region is `bytes` packed bytes at offset from the window's base: contiguous when
 * layout_len is 0, else count elements of the layout (datatype/engine/layout.h) there.
 * Replies (on reply_tag): get, get_accumulate, compare_and_swap: the target's data as it was
 * before the operation, packed; lock, unlock, flush: empty.
 *
 * Between ranks of unlike architecture (issue 19) the header is little-endian (rma_hdr_le, as
 * on every rank), the target region is elements of one basic type of the same size on both
 * (api/win_checks.c), whose index `leaf` names, its layout travels in the origin's byte order
 * (the target turns it, rma_layout_from), and the receiver of data makes it
 * right: the target converts the origin's data, the origin's reply receive the target's.
 *
 * A message may hold several operations (gathered, rma/gather.c): records, each the format
 * above padded to RMA_ALIGN, one after another; the target applies them in order. A message
 * of one operation is the same as one record without its padding. The records of one message
 * are of one fence epoch (a fence sends the gathered records before its exchange), so the
 * target looks at the first record's epoch only.
 */
#ifndef METAMPI_RMA_WIRE_H
#define METAMPI_RMA_WIRE_H

#include <endian.h>
#include <stdint.h>

#define RMA_ALIGN 16

typedef struct rma_hdr {
    uint32_t kind;        /* rma_kind_t */
    int32_t reply_tag;
    int32_t lock_type;    /* lock, unlock: MPI_LOCK_SHARED / MPI_LOCK_EXCLUSIVE */
    int32_t leaf;         /* accumulates: what the data is made of (core/op.h op_leaf) */
    int32_t op;           /* accumulates: op_kind_t of a predefined op */
    uint32_t layout_len;
    uint32_t epoch;       /* the origin's fence count when it sent this (rma/win.h) */
    uint32_t unused[3];
    uint64_t offset;
    uint64_t count;
    uint64_t bytes;
    uint64_t lo, hi;      /* the bytes the target region spans, from the window's base (a
                           * dynamic window's target checks them against attached memory) */
} rma_hdr_t;

_Static_assert(sizeof(rma_hdr_t) % RMA_ALIGN == 0, "data after the header stays aligned");

/* Headers travel little-endian (issue 19, docs/heterogeneity.md): h converted in place from
 * host order to little-endian or back (the same swap); nothing on a little-endian host. */
static inline void rma_hdr_le(rma_hdr_t *h)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    h->kind = htole32(h->kind);
    h->reply_tag = (int32_t)htole32((uint32_t)h->reply_tag);
    h->lock_type = (int32_t)htole32((uint32_t)h->lock_type);
    h->leaf = (int32_t)htole32((uint32_t)h->leaf);
    h->op = (int32_t)htole32((uint32_t)h->op);
    h->layout_len = htole32(h->layout_len);
    h->epoch = htole32(h->epoch);
    h->offset = htole64(h->offset);
    h->count = htole64(h->count);
    h->bytes = htole64(h->bytes);
    h->lo = htole64(h->lo);
    h->hi = htole64(h->hi);
#else
    (void)h;
#endif
}

static inline uint64_t rma_padded(uint64_t n)
{
    return (n + RMA_ALIGN - 1) / RMA_ALIGN * RMA_ALIGN;
}

/* The origin's data an operation message carries after its header and layout (kinds of
 * rma/win.h's rma_kind_t: 1 put, 3 accumulate, 4 get_accumulate, 5 compare_and_swap; the
 * op 0 of a get_accumulate is MPI_NO_OP, core/op.h's OP_NO_OP, which carries none). */
uint64_t rma_data_bytes(const rma_hdr_t *h);

#endif
