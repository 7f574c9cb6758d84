/*
 * The shared-memory layout: what a rank's segment holds, shared by every process that maps it.
 *
 * Each rank R owns one segment, /dev/shm/metampi.<job_id>.shm.<R>, for the frames R
 * *receives*. It holds a header and, for each of the P other ranks S on the same host (pair i
 * = the i-th of them by rank), the pair S writes and R reads: control words, C cells and a
 * data ring. Like parts of all pairs sit together, so that a pair costs 256 + 64 C bytes of
 * memory (plus the pages of its ring its sender used) instead of whole pages:
 *
 *   segment:  | header page | ctl[0..P) | cells[0..P) | page | ring[0..P) |
 *   header:   line 0: magic, version, owner rank and pid, geometry   (written once in open())
 *             line 2: sleeping                                         (owner R writes)
 *             from byte 2048: SHM_SLOTS shared atomic slots, two lines each (the owner
 *             takes one for a peer; their words belong to the layer above, transport.h)
 *   ctl[i]:   line 0: waiting                 (sender S writes: "my send() found no room")
 *             line 2: cells/bytes consumed    (receiver R writes: credits)
 *   cells[i]: C cells of 64 bytes             (S writes, R reads)
 *   ring[i]:  data ring of B bytes, page-aligned (S writes, R reads)
 *
 * Control words sit two lines apart (128 bytes) so that the adjacent-line prefetcher does not
 * couple a line one process writes with a line the other writes.
 *
 * A segment is only ever mapped by processes of one build; the header's magic, version and
 * geometry are checked when a peer attaches.
 */
#ifndef METAMPI_SHM_LAYOUT_H
#define METAMPI_SHM_LAYOUT_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHM_LINE 64
#define SHM_PAGE 4096
#define SHM_MAGIC 0x736d6170696d7465ull /* "etmipams" */
#define SHM_VERSION 3u

/* Frames up to SHM_INLINE bytes travel inside their cell; up to SHM_INLINE2 in two
 * consecutive cells (the first SHM_INLINE bytes in the first, the rest in the second's data);
 * longer ones in the data ring. */
#define SHM_INLINE 52
#define SHM_INLINE2 (2 * SHM_INLINE)
/* The largest frame (transport_shm.max_frame). Fixed because the ops table is const; the data
 * ring is at least twice this, so an empty ring always has room for any frame. */
#define SHM_MAX_FRAME (64u * 1024u)

#if ATOMIC_LLONG_LOCK_FREE != 2 || ATOMIC_INT_LOCK_FREE != 2
#error "shared-memory atomics must be lock-free (they are shared between processes)"
#endif

/* One cache line. Cell n of a pair (n = cells ever filled on that pair, from 0) is
 * cells[n % C] and carries seq = n + 1, which is stored last (release or stronger) and never
 * cleared: the receiver, expecting cell n, knows it has arrived when seq == n + 1, and then
 * len and data are complete. len <= SHM_INLINE: the frame is data[0..len). len <=
 * SHM_INLINE2: the frame is data[0..SHM_INLINE) followed by the data of cell n + 1, which the
 * sender filled first (with its seq n + 2, so that it never looks like a later lap's frame)
 * and the receiver skips. Otherwise data begins with the uint64_t ring position (absolute
 * byte count, see ring.h) of the frame. */
typedef struct shm_cell {
    alignas(SHM_LINE) unsigned char data[SHM_INLINE];
    uint32_t len;
    _Atomic uint64_t seq;
} shm_cell_t;
_Static_assert(sizeof(shm_cell_t) == SHM_LINE, "a cell is one cache line");

typedef struct shm_seg_hdr {
    alignas(SHM_LINE) uint64_t magic;
    uint32_t version;
    int32_t rank;              /* owner */
    int32_t pid;               /* owner's pid, for process_vm_readv */
    uint32_t npairs;           /* pair regions that follow */
    uint64_t cells;            /* C, a power of two */
    uint64_t ring_bytes;       /* B, a power of two >= 2 * SHM_MAX_FRAME */
    uint64_t seg_bytes;        /* size of the whole segment */
    /* 1 while the owner sleeps (between prepare_sleep and end_sleep): senders ring its
     * doorbell. Stored seq_cst; see the wake protocol in shm.c. */
    alignas(2 * SHM_LINE) _Atomic uint32_t sleeping;
} shm_seg_hdr_t;

/* Shared atomic slots (transport.h, "Shared atomic slots") in the second half of the header
 * page, which open() gives memory with the rest of the header: SHM_SLOTS of them, each two
 * lines apart from the next and from the header's words. */
#define SHM_SLOTS 16
#define SHM_SLOTS_OFF 2048u
typedef struct shm_slot {
    alignas(2 * SHM_LINE) _Atomic uint64_t w[4];
} shm_slot_t;
_Static_assert(sizeof(shm_seg_hdr_t) <= SHM_SLOTS_OFF &&
                   SHM_SLOTS_OFF + SHM_SLOTS * sizeof(shm_slot_t) <= SHM_PAGE,
               "the slots fit in the header page, after the header");

typedef struct shm_pair_ctl {
    /* 1 while the sender's last send() on this pair found no room; the receiver, after it
     * frees credits, rings the sender's doorbell if the sender sleeps. */
    alignas(2 * SHM_LINE) _Atomic uint32_t waiting;
    /* Credits: cells and data-ring bytes the receiver has released, both absolute and only
     * increasing. Written only by the receiver. */
    alignas(2 * SHM_LINE) _Atomic uint64_t cells_consumed;
    _Atomic uint64_t bytes_consumed;
} shm_pair_ctl_t;

_Static_assert(sizeof(shm_pair_ctl_t) == 4 * SHM_LINE, "a pair's control words take 4 lines");

#define SHM_ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uint64_t)(a) - 1))
/* Offsets within a segment of P pairs of C cells and B ring bytes (B a power of two >= a
 * page, so every ring is page-aligned). Everything before SHM_SEG_RINGS_OFF is given memory
 * in open(); a ring's pages by its sender as it first reaches them (ring.c). */
#define SHM_SEG_CTL_OFF ((uint64_t)SHM_PAGE)
#define SHM_SEG_CELLS_OFF(P) (SHM_SEG_CTL_OFF + (uint64_t)(P) * sizeof(shm_pair_ctl_t))
#define SHM_SEG_RINGS_OFF(P, C) \
    SHM_ALIGN_UP(SHM_SEG_CELLS_OFF(P) + (uint64_t)(P) * (uint64_t)(C) * SHM_LINE, SHM_PAGE)
#define SHM_SEG_BYTES(P, C, B) (SHM_SEG_RINGS_OFF(P, C) + (uint64_t)(P) * (uint64_t)(B))

#endif
