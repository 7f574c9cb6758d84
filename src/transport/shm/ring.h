/*
 * One direction of one pair: the cell ring and the data ring that a single sender writes and
 * a single receiver reads, without locks (SCI-MPICH's short protocol on coherent memory).
 * A frame of up to SHM_INLINE bytes takes one cell, of up to SHM_INLINE2 two consecutive
 * cells (layout.h), a longer one a cell naming its place in the data ring.
 *
 * Counters are absolute 64-bit counts that never wrap in practice:
 *   sent      cells the sender has filled (cell n carries seq n + 1)
 *   head      data-ring bytes the sender has allocated; a frame of len > SHM_INLINE2 takes the
 *             chunk [pos, pos + round_up(skew + len, 64)) at ring[pos % B], where pos = head,
 *             or the next multiple of B when the chunk would cross the end (the tail is
 *             skipped); the frame itself starts at pos + skew (skew < 64, a multiple of 8,
 *             chosen so that the frame's body after its head starts on a cache line; 0 when
 *             skew + len would exceed SHM_MAX_FRAME), and the cell names pos + skew
 *   cells_consumed / bytes_consumed   released by the receiver, in order, after deliver()
 * Credit invariants (checked by the sender before it writes anything):
 *   sent - cells_consumed <= C        head - bytes_consumed <= B
 * so the sender never writes a cell or a byte the receiver may still read. Since every chunk
 * (skew included) is at most SHM_MAX_FRAME <= B / 2 bytes, an empty ring always has room for one: the path never deadlocks.
 */
#ifndef METAMPI_SHM_RING_H
#define METAMPI_SHM_RING_H

#include "transport/shm/layout.h"
#include "transport/transport.h"

#include <stdint.h>
#include <sys/uio.h>

typedef struct shm_tx { /* sender's private view of a pair in the receiver's segment */
    shm_pair_ctl_t *ctl;
    shm_cell_t *cells;
    unsigned char *ring;
    uint64_t cmask, ring_bytes;
    uint64_t sent, head;
    uint64_t ccons, bcons;    /* last credits read from ctl (reading ctl is a cache miss) */
    int waiting;              /* ctl->waiting is 1 (set by us) */
    uint64_t ring_backed;     /* ring[0, ring_backed) has memory (segment.c, shm_seg_back) */
    uint64_t credit_seen;     /* cells_consumed when we last reported or failed */
} shm_tx_t;

typedef struct shm_rx { /* receiver's private view of a pair in its own segment */
    shm_pair_ctl_t *ctl;
    shm_cell_t *cells;
    unsigned char *ring;
    uint64_t cmask, ring_bytes;
    uint64_t next;            /* the cell expected next */
    uint64_t released;        /* bytes_consumed to publish */
} shm_rx_t;

/* Views of pair idx of the segment at seg, which holds npairs pairs of the given geometry
 * (layout.h). */
void shm_tx_init(shm_tx_t *tx, void *seg, uint32_t npairs, uint32_t idx, uint64_t cells,
                 uint64_t ring_bytes);
void shm_rx_init(shm_rx_t *rx, void *seg, uint32_t npairs, uint32_t idx, uint64_t cells,
                 uint64_t ring_bytes);

/* Writes the len-byte frame gathered from iov, followed by pk->len bytes from the packer (pk
 * may be NULL; len includes them), and publishes it: 1. Or, when the credits do not allow it,
 * writes nothing (the packer is not called) and marks the pair waiting: 0. A frame that
 * reaches further into the data ring than any before gives those pages their memory first
 * (at least doubling what has memory, so a ring takes few calls): -1 (errno) when it
 * cannot. */
int shm_tx_send(shm_tx_t *tx, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                size_t len);
/* Whether the receiver has returned credits since our last failed send or last report. */
int shm_tx_credit_event(shm_tx_t *tx);

/* Whether the next frame of the pair has arrived: the same load shm_rx_poll starts with, so
 * that an idle pass of the progress loop costs one load per peer, not a call. */
static inline int shm_rx_ready(const shm_rx_t *rx)
{
    return atomic_load_explicit(&rx->cells[rx->next & rx->cmask].seq, memory_order_seq_cst) ==
           rx->next + 1;
}

/* Delivers up to max arrived frames, oldest first, releasing each after deliver() returns.
 * Returns the count, or -1 when a cell is corrupt (message in err). *sender_waits is set when
 * frames were released and the sender marked the pair waiting (it may need a wake-up). */
int shm_rx_poll(shm_rx_t *rx, int src_rank, tr_deliver_fn deliver, int max, int *sender_waits,
                char *err, int errlen);

#endif
