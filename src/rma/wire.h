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
 */
#ifndef METAMPI_RMA_WIRE_H
#define METAMPI_RMA_WIRE_H

#include <stdint.h>

#define RMA_ALIGN 16

typedef struct rma_hdr {
    uint32_t kind;        /* rma_kind_t */
    int32_t reply_tag;
    int32_t lock_type;    /* lock, unlock: MPI_LOCK_SHARED / MPI_LOCK_EXCLUSIVE */
    int32_t leaf;         /* accumulates: what the data is made of (core/op.h op_leaf) */
    int32_t op;           /* accumulates: op_kind_t of a predefined op */
    uint32_t layout_len;
    uint64_t offset;
    uint64_t count;
    uint64_t bytes;
    uint64_t lo, hi;      /* the bytes the target region spans, from the window's base (a
                           * dynamic window's target checks them against attached memory) */
} rma_hdr_t;

_Static_assert(sizeof(rma_hdr_t) % RMA_ALIGN == 0, "data after the header stays aligned");

static inline uint64_t rma_padded(uint64_t n)
{
    return (n + RMA_ALIGN - 1) / RMA_ALIGN * RMA_ALIGN;
}

#endif
