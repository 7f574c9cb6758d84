/*
 * Memory ordering of a pair (see ring.h for the counters):
 *  - The sender writes a cell's len and data (and the frame's chunk in the data ring) with
 *    plain stores, then stores the cell's seq with release. The receiver loads seq (acquire);
 *    when it equals next + 1, the whole frame is visible.
 *  - The receiver releases a cell and its chunk by storing cells_consumed / bytes_consumed
 *    (release) after deliver() returned; the sender loads them with acquire before reusing
 *    that memory, so its plain writes cannot overtake the receiver's reads.
 *  - After a batch the receiver stores cells_consumed once more with seq_cst and then loads
 *    waiting (seq_cst); the sender stores waiting = 1 (seq_cst) and then reloads the credits
 *    (seq_cst). Store-then-load on both sides in the single total order of seq_cst operations:
 *    either the sender sees the credits or the receiver sees waiting = 1 (and wakes it).
 */
#include "transport/shm/ring.h"
#include "transport/shm/segment.h"

#include <errno.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

static void pair_views(void *seg, uint32_t npairs, uint32_t idx, uint64_t cells,
                       uint64_t ring_bytes, shm_pair_ctl_t **ctl, shm_cell_t **c,
                       unsigned char **ring)
{
    unsigned char *s = seg;
    *ctl = (shm_pair_ctl_t *)(s + SHM_SEG_CTL_OFF) + idx;
    *c = (shm_cell_t *)(s + SHM_SEG_CELLS_OFF(npairs)) + (uint64_t)idx * cells;
    *ring = s + SHM_SEG_RINGS_OFF(npairs, cells) + (uint64_t)idx * ring_bytes;
}

void shm_tx_init(shm_tx_t *tx, void *seg, uint32_t npairs, uint32_t idx, uint64_t cells,
                 uint64_t ring_bytes)
{
    memset(tx, 0, sizeof *tx);
    pair_views(seg, npairs, idx, cells, ring_bytes, &tx->ctl, &tx->cells, &tx->ring);
    tx->cmask = cells - 1;
    tx->ring_bytes = ring_bytes;
}

void shm_rx_init(shm_rx_t *rx, void *seg, uint32_t npairs, uint32_t idx, uint64_t cells,
                 uint64_t ring_bytes)
{
    memset(rx, 0, sizeof *rx);
    pair_views(seg, npairs, idx, cells, ring_bytes, &rx->ctl, &rx->cells, &rx->ring);
    rx->cmask = cells - 1;
    rx->ring_bytes = ring_bytes;
}

static void tx_refresh(shm_tx_t *tx)
{
    tx->ccons = atomic_load_explicit(&tx->ctl->cells_consumed, memory_order_seq_cst);
    tx->bcons = atomic_load_explicit(&tx->ctl->bytes_consumed, memory_order_acquire);
}

/* n bytes from src to dst by a few fixed-size moves (the last one overlapping the one before)
 * instead of a call of memcpy: a frame in a cell is a 16-byte header and at most 36 bytes of
 * data, where the call costs more than the copy. Reads and writes stay within the n bytes. */
static inline void copy_small(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8)
            memcpy(dst + i, src + i, 8);
        memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
        memcpy(dst, src, 4);
        memcpy(dst + n - 4, src + n - 4, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    }
}

/* A frame that fits its cell (len <= SHM_INLINE): its iovecs copied by copy_small. */
static void gather_small(unsigned char *dst, const struct iovec *iov, int iovcnt,
                         const tr_packer_t *pk)
{
    for (int i = 0; i < iovcnt; i++) {
        copy_small(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    if (pk && pk->len)
        pk->pack(pk->ctx, dst, pk->len);
}

/* A frame of two cells (SHM_INLINE < len <= SHM_INLINE2): its first SHM_INLINE bytes to a,
 * the rest to b, each iovec split where it crosses; a packer's bytes go through a copy. */
static void gather_two(unsigned char *a, unsigned char *b, const struct iovec *iov, int iovcnt,
                       const tr_packer_t *pk)
{
    alignas(8) unsigned char f[SHM_INLINE2];
    if (pk && pk->len) {
        size_t len = pk->len;
        for (int i = 0; i < iovcnt; i++)
            len += iov[i].iov_len;
        gather_small(f, iov, iovcnt, pk);
        copy_small(a, f, SHM_INLINE);
        copy_small(b, f + SHM_INLINE, len - SHM_INLINE);
        return;
    }
    size_t at = 0;
    for (int i = 0; i < iovcnt; i++) {
        const unsigned char *src = iov[i].iov_base;
        size_t n = iov[i].iov_len;
        if (at < SHM_INLINE) {
            size_t k = n < SHM_INLINE - at ? n : SHM_INLINE - at;
            copy_small(a + at, src, k);
            at += k;
            src += k;
            n -= k;
        }
        if (n) {
            copy_small(b + (at - SHM_INLINE), src, n);
            at += n;
        }
    }
}

static void gather(unsigned char *dst, const struct iovec *iov, int iovcnt,
                   const tr_packer_t *pk)
{
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len)
            memcpy(dst, iov[i].iov_base, iov[i].iov_len);
        dst += iov[i].iov_len;
    }
    if (pk && pk->len)
        pk->pack(pk->ctx, dst, pk->len);
}

/* Bytes a ring frame starts after its chunk's (line-aligned) start: so much that the frame's
 * body (what follows its head, iov[0]) begins on a cache line, rounded down to keep the head
 * 8-byte aligned. Packed typed data and DATA payloads are then copied line by line on both
 * sides instead of straddling two lines per store (measured: 10-25 % for 256 B-1 KiB blocks). */
static size_t body_skew(const struct iovec *iov, int iovcnt, const tr_packer_t *pk, size_t len)
{
    if (iovcnt < 1 || (iovcnt < 2 && !pk))
        return 0;
    size_t skew = (SHM_LINE - iov[0].iov_len % SHM_LINE) % SHM_LINE & ~(size_t)7;
    /* a chunk never exceeds SHM_MAX_FRAME (half the smallest ring), or an empty ring might
     * not take it: the largest frames go unskewed */
    return skew + len <= SHM_MAX_FRAME ? skew : 0;
}

/* Cells a frame takes: one, two for a frame that spills into the next cell. */
static inline uint64_t frame_cells(size_t len)
{
    return len > SHM_INLINE && len <= SHM_INLINE2 ? 2 : 1;
}

/* Where the frame's chunk would start, or UINT64_MAX when the credits do not allow the frame
 * (skew + len bytes in the ring). */
static uint64_t tx_room(const shm_tx_t *tx, size_t len, size_t skew, uint64_t *alen)
{
    uint64_t cells = frame_cells(len);
    if (tx->sent + cells - 1 - tx->ccons > tx->cmask)
        return UINT64_MAX;
    if (len <= SHM_INLINE2)
        return 0;
    uint64_t a = SHM_ALIGN_UP((uint64_t)(skew + len), SHM_LINE);
    uint64_t pos = tx->head, off = pos & (tx->ring_bytes - 1);
    if (off + a > tx->ring_bytes)
        pos += tx->ring_bytes - off;
    if (pos + a - tx->bcons > tx->ring_bytes)
        return UINT64_MAX;
    *alen = a;
    return pos;
}

/* Gives ring[0, end) memory (the ring is used from its start and wraps to it, so what has
 * memory is a prefix). Doubling bounds the calls to log2(B / page) per ring. */
static int back_ring(shm_tx_t *tx, uint64_t end)
{
    uint64_t want = SHM_ALIGN_UP(end, SHM_PAGE), twice = 2 * tx->ring_backed;
    if (want < twice)
        want = twice < tx->ring_bytes ? twice : tx->ring_bytes;
    int e = shm_seg_back(tx->ring + tx->ring_backed, (size_t)(want - tx->ring_backed));
    if (e) {
        errno = e;
        return -1;
    }
    tx->ring_backed = want;
    return 0;
}

int shm_tx_send(shm_tx_t *tx, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                size_t len)
{
    size_t skew = len <= SHM_INLINE2 ? 0 : body_skew(iov, iovcnt, pk, len);
    uint64_t alen = 0, pos = tx_room(tx, len, skew, &alen);
    if (pos == UINT64_MAX) {
        tx_refresh(tx);
        pos = tx_room(tx, len, skew, &alen);
    }
    if (pos == UINT64_MAX) {
        if (!tx->waiting) {
            atomic_store_explicit(&tx->ctl->waiting, 1, memory_order_seq_cst);
            tx->waiting = 1;
            tx_refresh(tx);
            pos = tx_room(tx, len, skew, &alen);
        }
        tx->credit_seen = tx->ccons;
        if (pos == UINT64_MAX)
            return 0;
    }
    if (len > SHM_INLINE2 && (pos & (tx->ring_bytes - 1)) + alen > tx->ring_backed &&
        back_ring(tx, (pos & (tx->ring_bytes - 1)) + alen) < 0)
        return -1;
    uint64_t n = tx->sent;
    shm_cell_t *c = &tx->cells[n & tx->cmask];
    uint64_t cells = 1;
    if (len <= SHM_INLINE) {
        gather_small(c->data, iov, iovcnt, pk);
    } else if (len <= SHM_INLINE2) {
        /* the second cell first, with its own seq (so that it never looks like a frame of
         * the next lap), then the first, whose seq (release) publishes both */
        shm_cell_t *c2 = &tx->cells[(n + 1) & tx->cmask];
        gather_two(c->data, c2->data, iov, iovcnt, pk);
        atomic_store_explicit(&c2->seq, n + 2, memory_order_relaxed);
        cells = 2;
    } else {
        uint64_t at = pos + skew; /* the frame; its chunk ends at pos + alen */
        gather(tx->ring + (at & (tx->ring_bytes - 1)), iov, iovcnt, pk);
        memcpy(c->data, &at, sizeof at);
        tx->head = pos + alen;
    }
    c->len = (uint32_t)len;
    /* release, not seq_cst: a locked store would stall every frame until the cell's line
     * arrives from the receiver's cache (shm.c, "Wake protocol", explains why this is safe) */
    atomic_store_explicit(&c->seq, n + 1, memory_order_release);
    tx->sent = n + cells;
    if (tx->waiting) {
        atomic_store_explicit(&tx->ctl->waiting, 0, memory_order_relaxed);
        tx->waiting = 0;
    }
    return 1;
}

int shm_tx_credit_event(shm_tx_t *tx)
{
    if (!tx->waiting)
        return 0;
    uint64_t c = atomic_load_explicit(&tx->ctl->cells_consumed, memory_order_seq_cst);
    if (c == tx->credit_seen)
        return 0;
    tx->credit_seen = c;
    tx_refresh(tx);
    return 1;
}

int shm_rx_poll(shm_rx_t *rx, int src_rank, tr_deliver_fn deliver, int max, int *sender_waits,
                char *err, int errlen)
{
    shm_pair_ctl_t *ctl = rx->ctl;
    uint64_t next = rx->next;
    int n = 0;
    *sender_waits = 0;
    while (n < max) {
        shm_cell_t *c = &rx->cells[next & rx->cmask];
        if (atomic_load_explicit(&c->seq, memory_order_seq_cst) != next + 1)
            break;
        uint32_t len = c->len;
        if (len <= SHM_INLINE) {
            deliver(src_rank, c->data, len);
        } else if (len <= SHM_INLINE2) {
            /* two cells: their data joined in a copy, so the frame is contiguous (both data
             * parts whole: fixed-size copies, which the compiler makes a few vector moves) */
            alignas(SHM_LINE) unsigned char f[SHM_INLINE2];
            const shm_cell_t *c2 = &rx->cells[(next + 1) & rx->cmask];
            memcpy(f, c->data, SHM_INLINE);
            memcpy(f + SHM_INLINE, c2->data, SHM_INLINE);
            deliver(src_rank, f, len);
            next++;
        } else {
            uint64_t pos;
            memcpy(&pos, c->data, sizeof pos);
            /* the frame may start up to a line after its chunk (body_skew) */
            uint64_t end = SHM_ALIGN_UP(pos + len, SHM_LINE);
            uint64_t off = pos & (rx->ring_bytes - 1);
            if (len > SHM_MAX_FRAME || pos > UINT64_MAX - 2 * SHM_MAX_FRAME ||
                off + len > rx->ring_bytes || pos < rx->released ||
                end - rx->released > rx->ring_bytes) {
                snprintf(err, (size_t)errlen,
                         "shm: corrupt frame from rank %d (cell %llu: length %u, ring position "
                         "%llu, expected at or after %llu)",
                         src_rank, (unsigned long long)next, len, (unsigned long long)pos,
                         (unsigned long long)rx->released);
                return -1;
            }
            deliver(src_rank, rx->ring + off, len);
            rx->released = end;
            atomic_store_explicit(&ctl->bytes_consumed, rx->released, memory_order_release);
        }
        rx->next = ++next;
        n++;
        atomic_store_explicit(&ctl->cells_consumed, next, memory_order_release);
    }
    if (n) {
        atomic_store_explicit(&ctl->cells_consumed, next, memory_order_seq_cst);
        *sender_waits = (int)atomic_load_explicit(&ctl->waiting, memory_order_seq_cst);
    }
    return n;
}
