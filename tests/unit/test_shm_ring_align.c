/* One pair of the shared-memory transport's rings (transport/shm/ring.c) in one process: a
 * frame's body — what follows its head, iov[0], whether gathered from iovecs or written by a
 * packer — starts on a cache line in the data ring (so packed typed data is copied line by
 * line on both sides), while the head stays 8-byte aligned, every byte arrives, and the
 * credits still let the ring wrap around many times with heads of every length; an empty ring
 * of the smallest size (2 x SHM_MAX_FRAME) takes every frame up to SHM_MAX_FRAME. */
#include "transport/shm/layout.h"
#include "transport/shm/ring.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

enum { CELLS = 8, RING = 2 * SHM_MAX_FRAME };

static size_t want_head, want_len;
static uint64_t want_seed, delivered;

static unsigned char byte_at(uint64_t seed, size_t i)
{
    return (unsigned char)(seed * 37 + i * 131 + (i >> 8) + 1);
}

static size_t pack_from(void *ctx, void *dst, size_t n)
{
    const unsigned char *src = ctx;
    memcpy(dst, src, n);
    return n;
}

static void deliver(int src, const void *frame, size_t len)
{
    (void)src;
    const unsigned char *f = frame;
    delivered++;
    EXPECTF(len == want_len, "frame of %zu bytes, sent %zu", len, want_len);
    if (len > SHM_INLINE2) { /* in the data ring (shorter frames travel in cells) */
        EXPECTF((uintptr_t)f % 8 == 0, "head %zu: frame at %p is not 8-byte aligned", want_head,
              frame);
        size_t skew = (SHM_LINE - want_head % SHM_LINE) % SHM_LINE;
        if (want_head % 8 == 0 && len > want_head && skew + len <= SHM_MAX_FRAME)
            EXPECTF((uintptr_t)(f + want_head) % SHM_LINE == 0,
                  "head %zu: body at %p is not on a cache line", want_head,
                  (const void *)(f + want_head));
    }
    for (size_t i = 0; i < len; i++)
        if (f[i] != byte_at(want_seed, i)) {
            EXPECTF(0, "head %zu, length %zu: byte %zu wrong", want_head, len, i);
            break;
        }
}

/* Sends one frame of head + body bytes (body by a packer or as a second iovec) and delivers
 * it; a full ring is drained first. */
static void one(shm_tx_t *tx, shm_rx_t *rx, size_t head, size_t body, int packed, uint64_t seed)
{
    static unsigned char buf[SHM_MAX_FRAME];
    size_t len = head + body;
    for (size_t i = 0; i < len; i++)
        buf[i] = byte_at(seed, i);
    struct iovec iov[2] = { { buf, head }, { buf + head, body } };
    tr_packer_t pk = { pack_from, buf + head, body };
    want_head = head;
    want_len = len;
    want_seed = seed;
    int taken = shm_tx_send(tx, iov, packed ? 1 : 2, packed ? &pk : NULL, len);
    EXPECTF(taken == 1, "head %zu body %zu: refused by an empty ring", head, body);
    char err[256];
    int waits;
    uint64_t before = delivered;
    int n = shm_rx_poll(rx, 1, deliver, 4, &waits, err, sizeof err);
    EXPECTF(n == 1 && delivered == before + 1, "head %zu body %zu: poll returned %d (%s)", head,
          body, n, n < 0 ? err : "");
}

int main(void)
{
    size_t bytes = SHM_SEG_BYTES(1, CELLS, RING);
    void *seg = aligned_alloc(SHM_PAGE, bytes);
    if (!seg)
        return 1;
    memset(seg, 0, bytes);
    shm_tx_t tx;
    shm_rx_t rx;
    shm_tx_init(&tx, seg, 1, 0, CELLS, RING);
    shm_rx_init(&rx, seg, 1, 0, CELLS, RING);
    static const size_t heads[] = { 8, 16, 24, 40, 56, 64, 72, 13 };
    static const size_t bodies[] = { 0,    1,    45,   64,    200,   4096,
                                     8192, 65000, SHM_MAX_FRAME - 128 };
    uint64_t seed = 1;
    /* several passes, so that frames start at every place of the ring and wrap its end */
    for (int pass = 0; pass < 6; pass++)
        for (size_t h = 0; h < sizeof heads / sizeof *heads; h++)
            for (size_t b = 0; b < sizeof bodies / sizeof *bodies; b++)
                for (int packed = 0; packed < 2; packed++) {
                    one(&tx, &rx, heads[h], bodies[b], packed, seed++);
                    /* the largest frames, which have no room for a skew */
                    one(&tx, &rx, heads[h], SHM_MAX_FRAME - heads[h] - b, packed, seed++);
                }
    /* frames of two cells (SHM_INLINE < len <= SHM_INLINE2) until the cells are full:
     * C / 2 of them, whichever cell the first starts at; then all of them at once, in order */
    char err[256];
    int waits, sent = 0;
    for (int start = 0; start < 3; start++) {
        one(&tx, &rx, 16, 1, 0, seed++); /* moves the first cell by one */
        static unsigned char two[CELLS][SHM_INLINE2];
        sent = 0;
        for (int k = 0; k < CELLS; k++) {
            size_t len = SHM_INLINE + 1 + (size_t)(k * 17) % (SHM_INLINE2 - SHM_INLINE);
            for (size_t i = 0; i < len; i++)
                two[k][i] = byte_at(seed + (uint64_t)k, i);
            struct iovec one_iov = { two[k], len };
            if (shm_tx_send(&tx, &one_iov, 1, NULL, len) != 1)
                break;
            sent++;
        }
        EXPECTF(sent == CELLS / 2, "%d frames of two cells fit %d cells", sent, CELLS);
        for (int k = 0; k < sent; k++) {
            want_head = 0;
            want_len = SHM_INLINE + 1 + (size_t)(k * 17) % (SHM_INLINE2 - SHM_INLINE);
            want_seed = seed + (uint64_t)k;
            uint64_t was = delivered;
            int n = shm_rx_poll(&rx, 1, deliver, 1, &waits, err, sizeof err);
            EXPECTF(n == 1 && delivered == was + 1, "two-cell frame %d: poll returned %d", k, n);
        }
        seed += CELLS;
    }
    /* a full ring of frames with bodies, then all of them at once */
    sent = 0;
    want_head = 24;
    want_len = 24 + 20000;
    want_seed = seed;
    static unsigned char buf[24 + 20000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = byte_at(seed, i);
    struct iovec iov[1] = { { buf, 24 } };
    tr_packer_t pk = { pack_from, buf + 24, 20000 };
    while (sent < 3 * CELLS && shm_tx_send(&tx, iov, 1, &pk, sizeof buf) == 1)
        sent++;
    EXPECTF(sent >= RING / 20100 - 1 && sent < 3 * CELLS, "%d frames of 20 KB fit a %d-byte ring",
          sent, RING);
    uint64_t before = delivered;
    while (shm_rx_poll(&rx, 1, deliver, 64, &waits, err, sizeof err) > 0)
        ;
    EXPECTF(delivered - before == (uint64_t)sent, "%llu of %d frames delivered",
          (unsigned long long)(delivered - before), sent);
    free(seg);
    printf("%llu frames\n", (unsigned long long)delivered);
    return expect_done("shm_ring_align");
}
