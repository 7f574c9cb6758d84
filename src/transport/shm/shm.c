/*
 * transport_shm: frames between ranks of one host through shared memory (the ops table, the
 * bootstrap, progress and the wake protocol; the pair rings are in ring.c, the layout in
 * layout.h, remote read in cma.c, sleeping in doorbell.c). See docs/shm-transport.md.
 *
 * Environment (read in open(), parsed and bounded by the registry, runtime/tunables.def):
 *   METAMPI_SHM_CELLS       default 128, or less with more than 32 ranks on the host (the
 *                           largest power of two <= 4096 / (local ranks - 1), at least 16).
 *                           Cells per ordered pair (a power of two, 4..65536): how many
 *                           frames a sender may have in flight to one receiver.
 *   METAMPI_SHM_RING_BYTES  default 1M, or less with more than 17 ranks on the host (the
 *                           largest power of two <= 16M / (local ranks - 1), at least 128K).
 *                           Data-ring bytes per ordered pair for frames longer than 52 bytes
 *                           (a power of two, 128K..1G; K, M, G suffixes).
 *   METAMPI_SHM_CMA         default 1. 0 disables the single-copy remote read: rma_readv then
 *                           returns TR_RMA_UNSUPPORTED and large messages go through the rings.
 * Each receiver's values govern its own segment: senders read the geometry from its header.
 *
 * max_frame is fixed at 64 KiB (SHM_MAX_FRAME), at most half of the smallest data ring.
 *
 * Wake protocol (no syscalls unless someone sleeps). Two Dekker-style handshakes, each a pair
 * "store my word, then load the other's" on both sides, all seq_cst, so that in the single total
 * order S of seq_cst operations at least one side sees the other's store:
 *  1. Frames. A sleeper stores sleeping = 1 (seq_cst: store and full fence), then waits
 *     SLEEP_GRACE_NS, then progress() loads the seq of every next cell. A sender stores a
 *     cell's seq with *release* (ring.c) and then loads the receiver's sleeping: a seq_cst
 *     store there would stall every frame on the cell line's ownership transfer, halving the
 *     small-message rate. Without the fence the sender's load may pass its own seq store,
 *     which may still sit in its store buffer: both sides can then read the old value (the
 *     store-buffering case). The grace period closes that window: a store buffer drains in
 *     far less than SLEEP_GRACE_NS (a descheduled CPU drains it on the way out), so a seq
 *     stored before the sender read sleeping = 0 is visible to the sleeper's progress(). If a
 *     wake-up were still lost, the caller's poll() timeout bounds the delay (core/progress.c).
 *     Otherwise the sender sees sleeping = 1 and rings the doorbell, and poll() returns.
 *  2. Credits. A sender whose send() found no room stores waiting = 1 in the pair and reloads
 *     the credits; when it sleeps it stores its own sleeping = 1 and progress() reloads the
 *     credits of every waiting pair. A receiver that released frames stores cells_consumed,
 *     then loads waiting and, if set, the sender's sleeping. Either the sender's reload sees
 *     the credits (progress() reports an event; the caller retries instead of sleeping) or
 *     the receiver's loads come after the sender's stores and it rings.
 * A doorbell may ring for nothing (a stale sleeping or waiting); that costs one wake-up.
 */
#include "transport/shm/cma.h"
#include "transport/shm/doorbell.h"
#include "transport/shm/layout.h"
#include "transport/shm/ring.h"
#include "transport/shm/segment.h"
#include "transport/transport.h"

#include "runtime/tunables.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

/* Default data ring: the registry's (512 KiB), halved as needed to keep a segment near 16 MiB
 * on hosts with many ranks (never below 128 KiB). A ring's pages have memory only once its
 * sender's frames reached them (ring.c). */
#define SHM_DEFAULT_SEG_BUDGET (16u << 20)
/* Default cells per pair: the registry's (128), halved while a segment would hold more than
 * SHM_CELL_BUDGET cells (256 KiB), never below SHM_MIN_DEFAULT_CELLS: at 256 ranks on a host,
 * 128 cells per pair made 2 MiB of cells per rank, 0.5 GB for the job. */
#define SHM_CELL_BUDGET 4096u
#define SHM_MIN_DEFAULT_CELLS 16u
/* Bounds on a peer's header before its geometry is used (the registry's bounds; far more
 * ranks on one host than any machine has): no offset computation can overflow. */
#define SHM_MAX_CELLS 65536u
#define SHM_MAX_RING (1ull << 30)
#define SHM_MAX_PAIRS (1u << 20)
/* Frames delivered per peer per progress() call: bounds the time one call takes and keeps a
 * busy sender from starving the others. */
#define SHM_BATCH 32

typedef struct shm_peer {
    int rank;
    void *seg;                /* the peer's segment, where our frames to it go */
    size_t seg_bytes;
    shm_seg_hdr_t *hdr;
    shm_tx_t tx;              /* our pair in its segment */
    shm_rx_t rx;              /* its pair in our segment */
    pid_t pid;
    int cma_off;              /* the kernel refused process_vm_readv for this peer */
} shm_peer_t;

static struct {
    int opened, created, unlinked;
    int rank, size;
    char *job_id;
    tr_deliver_fn deliver;
    int npeers;
    shm_peer_t *peers;        /* local peers by rank */
    int *peer_of;             /* rank -> index in peers, or -1 */
    void *seg;
    size_t seg_bytes;
    shm_seg_hdr_t *hdr;
    int bell;
    int cma;
    uint64_t cells, ring_bytes;
    int rr;                   /* the peer progress() polls first */
    uint32_t slot_used;       /* bit i: own slot i is taken */
    int slot_next;            /* the slot slot_take() tries first (they are taken in turn) */
} g = {.bell = -1};

static void shm_close(void);

static int shm_open_(const tr_boot_t *boot, tr_deliver_fn deliver, char *err, int errlen)
{
    if (g.opened) {
        snprintf(err, (size_t)errlen, "shm: rank %d: opened twice", boot->rank);
        return -1;
    }
    g.opened = 1;
    g.rank = boot->rank;
    g.size = boot->size;
    g.deliver = deliver;
    g.job_id = strdup(boot->job_id);
    g.peer_of = malloc(sizeof *g.peer_of * (size_t)boot->size);
    if (!g.job_id || !g.peer_of)
        goto oom;
    for (int r = 0; r < boot->size; r++) {
        g.peer_of[r] = -1;
        if (r != boot->rank && boot->host_of[r] == boot->host_of[boot->rank])
            g.peer_of[r] = g.npeers++;
    }
    if (g.npeers == 0)
        return 0;
    g.peers = calloc((size_t)g.npeers, sizeof *g.peers);
    if (!g.peers)
        goto oom;
    for (int r = 0; r < boot->size; r++)
        if (g.peer_of[r] >= 0)
            g.peers[g.peer_of[r]].rank = r;

    uint64_t ring_def = tun_info(TUN_SHM_RING_BYTES)->dflt;
    while (ring_def > 2 * SHM_MAX_FRAME && ring_def * (uint64_t)g.npeers > SHM_DEFAULT_SEG_BUDGET)
        ring_def /= 2;
    uint64_t cells_def = tun_info(TUN_SHM_CELLS)->dflt;
    while (cells_def > SHM_MIN_DEFAULT_CELLS && cells_def * (uint64_t)g.npeers > SHM_CELL_BUDGET)
        cells_def /= 2;
    /* powers of two (the rings' index masks), bounded by the registry: cells from 4 to 65536,
     * ring bytes from 2 * SHM_MAX_FRAME to 1 GiB (tests/unit/test_tunables.c) */
    g.cells = tun_is_set(TUN_SHM_CELLS) ? tun_size(TUN_SHM_CELLS) : cells_def;
    g.ring_bytes = tun_is_set(TUN_SHM_RING_BYTES) ? tun_size(TUN_SHM_RING_BYTES) : ring_def;
    g.cma = tun_bool(TUN_SHM_CMA);

    g.seg_bytes = (size_t)SHM_SEG_BYTES(g.npeers, g.cells, g.ring_bytes);
    if (shm_seg_create(g.job_id, g.rank, g.seg_bytes, &g.seg, err, errlen) < 0)
        goto fail;
    g.created = 1;
    /* the header and every pair's control words and cells; the rings wait for their senders */
    int backed = shm_seg_back(g.seg, (size_t)SHM_SEG_RINGS_OFF(g.npeers, g.cells));
    if (backed) {
        snprintf(err, (size_t)errlen,
                 "shm: rank %d cannot give memory to its %zu-byte shared-memory segment in "
                 "/dev/shm: %s",
                 g.rank, g.seg_bytes, backed == EFAULT ? "/dev/shm is full" : strerror(backed));
        goto fail;
    }
    g.hdr = g.seg;
    g.hdr->version = SHM_VERSION;
    g.hdr->rank = g.rank;
    g.hdr->pid = (int32_t)getpid();
    g.hdr->npairs = (uint32_t)g.npeers;
    g.hdr->cells = g.cells;
    g.hdr->ring_bytes = g.ring_bytes;
    g.hdr->seg_bytes = g.seg_bytes;
    g.hdr->magic = SHM_MAGIC;
    for (int i = 0; i < g.npeers; i++)
        shm_rx_init(&g.peers[i].rx, g.seg, (uint32_t)g.npeers, (uint32_t)i, g.cells,
                    g.ring_bytes);

    if ((g.bell = shm_bell_open(g.job_id, g.rank, err, errlen)) < 0)
        goto fail;
    if (g.cma)
        shm_cma_allow_readers();
    return 0;
oom:
    snprintf(err, (size_t)errlen, "shm: rank %d: out of memory", boot->rank);
fail:
    shm_close();
    return -1;
}

/* The peer's header must describe a segment of this build that holds a pair for us. */
static int check_header(const shm_peer_t *p, int idx, char *err, int errlen)
{
    const shm_seg_hdr_t *h = p->hdr;
    const char *why = NULL;
    if (p->seg_bytes < sizeof *h || h->magic != SHM_MAGIC || h->version != SHM_VERSION)
        why = "not a segment of this metampi version";
    else if (h->rank != p->rank)
        why = "it belongs to another rank";
    else if (h->seg_bytes != p->seg_bytes || !h->cells || h->cells > SHM_MAX_CELLS ||
             (h->cells & (h->cells - 1)) || h->ring_bytes < 2 * SHM_MAX_FRAME ||
             h->ring_bytes > SHM_MAX_RING || (h->ring_bytes & (h->ring_bytes - 1)) ||
             h->npairs > SHM_MAX_PAIRS ||
             SHM_SEG_BYTES(h->npairs, h->cells, h->ring_bytes) != p->seg_bytes)
        why = "inconsistent geometry";
    else if ((uint32_t)idx >= h->npairs)
        why = "it has no pair for this rank (do the ranks disagree on who shares the host?)";
    if (why)
        snprintf(err, (size_t)errlen, "shm: rank %d: the segment of rank %d is unusable: %s",
                 g.rank, p->rank, why);
    return why ? -1 : 0;
}

static int shm_connect(char *err, int errlen)
{
    for (int i = 0; i < g.npeers; i++) {
        shm_peer_t *p = &g.peers[i];
        if (shm_seg_attach(g.job_id, p->rank, &p->seg, &p->seg_bytes, err, errlen) < 0)
            return -1;
        p->hdr = p->seg;
        /* Our pair in its segment: its local peers are ours, minus it, plus us, by rank. */
        int idx = 0;
        for (int j = 0; j < g.npeers; j++)
            if (g.peers[j].rank != p->rank && g.peers[j].rank < g.rank)
                idx++;
        if (check_header(p, idx, err, errlen) < 0)
            return -1;
        shm_tx_init(&p->tx, p->seg, p->hdr->npairs, (uint32_t)idx, p->hdr->cells,
                    p->hdr->ring_bytes);
        p->pid = p->hdr->pid;
        shm_bell_addr_t bell;
        if (shm_bell_addr(&bell, g.job_id, p->rank) < 0) {
            snprintf(err, (size_t)errlen, "shm: job id too long for the doorbell of rank %d",
                     p->rank);
            return -1;
        }
    }
    return 0;
}

/* Every local rank has attached every segment of the host by now, so each rank unlinks them
 * all (its own and its peers'; whoever comes first wins, ENOENT is fine). Invariant: when
 * ready() returns on any rank, no segment of the host has a name left that a crash could
 * leak — not only once the slowest rank gets here. */
static int shm_ready(char *err, int errlen)
{
    if (!g.created || g.unlinked)
        return 0;
    g.unlinked = 1;
    for (int i = -1; i < g.npeers; i++) {
        int r = i < 0 ? g.rank : g.peers[i].rank;
        if (shm_seg_unlink(g.job_id, r) < 0 && errno != ENOENT) {
            snprintf(err, (size_t)errlen, "shm: rank %d cannot unlink the segment of rank %d: %s",
                     g.rank, r, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Rings p's doorbell. Its address is made here, not kept per peer (112 bytes per peer and
 * rank; at 256 ranks on a host, 7 MB for the job): a ring is a system call anyway, and
 * shm_connect() checked that the address can be made. */
static void ring_bell(const shm_peer_t *p)
{
    shm_bell_addr_t bell;
    if (shm_bell_addr(&bell, g.job_id, p->rank) == 0)
        shm_bell_ring(g.bell, &bell);
}

static int shm_reaches(int peer)
{
    return g.peer_of && peer >= 0 && peer < g.size && g.peer_of[peer] >= 0;
}

static shm_peer_t *peer_or_error(int rank, const char *what, char *err, int errlen)
{
    if (shm_reaches(rank) && g.peers[g.peer_of[rank]].seg)
        return &g.peers[g.peer_of[rank]];
    snprintf(err, (size_t)errlen, "shm: rank %d cannot %s rank %d: not connected on this host",
             g.rank, what, rank);
    return NULL;
}

static int shm_send(int dst, const struct iovec *iov, int iovcnt, const tr_packer_t *pk,
                    char *err, int errlen)
{
    shm_peer_t *p = shm_reaches(dst) ? &g.peers[g.peer_of[dst]] : NULL;
    if (__builtin_expect(!p || !p->seg, 0) && !(p = peer_or_error(dst, "send to", err, errlen)))
        return -1;
    size_t len = pk ? pk->len : 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > SHM_MAX_FRAME) {
        snprintf(err, (size_t)errlen, "shm: a %zu-byte frame to rank %d exceeds max_frame (%u)",
                 len, dst, SHM_MAX_FRAME);
        return -1;
    }
    int sent = shm_tx_send(&p->tx, iov, iovcnt, pk, len);
    if (sent < 0) {
        int e = errno;
        snprintf(err, (size_t)errlen,
                 "shm: rank %d cannot give memory to its %llu-byte ring in rank %d's "
                 "shared-memory segment: %s",
                 g.rank, (unsigned long long)p->tx.ring_bytes, dst,
                 e == EFAULT ? "/dev/shm is full" : strerror(e));
        return -1;
    }
    if (!sent)
        return 0;
    if (atomic_load_explicit(&p->hdr->sleeping, memory_order_relaxed)) /* handshake 1 */
        ring_bell(p);
    return 1;
}

static int shm_progress(char *err, int errlen)
{
    int events = 0, np = g.npeers;
    if (!np)
        return 0;
    int i = g.rr;
    g.rr = i + 1 < np ? i + 1 : 0;
    for (int k = 0; k < np; k++, i = i + 1 < np ? i + 1 : 0) {
        shm_peer_t *p = &g.peers[i];
        if (!p->seg)
            continue;
        if (shm_rx_ready(&p->rx)) { /* shm_rx_poll would find nothing and do nothing */
            int waits;
            int n = shm_rx_poll(&p->rx, p->rank, g.deliver, SHM_BATCH, &waits, err, errlen);
            if (n < 0)
                return -1;
            events += n;
            if (waits && atomic_load_explicit(&p->hdr->sleeping, memory_order_seq_cst))
                ring_bell(p); /* handshake 2, receiver side */
        }
        if (p->tx.waiting) /* shm_tx_credit_event reports nothing otherwise */
            events += shm_tx_credit_event(&p->tx);
    }
    return events;
}

static int rma(int peer, const struct iovec *local, int nlocal, const struct iovec *remote,
               int nremote, int write, char *err, int errlen)
{
    if (!g.cma)
        return TR_RMA_UNSUPPORTED;
    shm_peer_t *p = peer_or_error(peer, write ? "write to" : "read from", err, errlen);
    if (!p)
        return -1;
    if (p->cma_off)
        return TR_RMA_UNSUPPORTED;
    int r = (write ? shm_cma_writev : shm_cma_readv)(p->pid, peer, local, nlocal, remote,
                                                      nremote, err, errlen);
    if (r == TR_RMA_UNSUPPORTED)
        p->cma_off = 1;
    return r;
}

static int shm_rma_readv(int src, const struct iovec *local, int nlocal,
                         const struct iovec *remote, int nremote, char *err, int errlen)
{
    return rma(src, local, nlocal, remote, nremote, 0, err, errlen);
}

static int shm_rma_writev(int dst, const struct iovec *local, int nlocal,
                          const struct iovec *remote, int nremote, char *err, int errlen)
{
    return rma(dst, local, nlocal, remote, nremote, 1, err, errlen);
}

/* ---- shared atomic slots (transport.h): in the header page of the owner's segment, which
 * every local peer maps from connect() to close() ---------------------------------------- */

_Static_assert(TR_SLOT_WORDS <= sizeof(((shm_slot_t *)0)->w) / sizeof(uint64_t),
               "a slot holds the interface's words");

static shm_slot_t *slots_of(void *seg)
{
    return (shm_slot_t *)((char *)seg + SHM_SLOTS_OFF);
}

static int shm_slot_take(int peer)
{
    if (!g.hdr || !shm_reaches(peer) || !g.peers[g.peer_of[peer]].seg)
        return -1;
    for (int k = 0; k < SHM_SLOTS; k++) {
        int i = (g.slot_next + k) % SHM_SLOTS;
        if (!(g.slot_used & (1u << i))) {
            g.slot_used |= 1u << i;
            g.slot_next = (i + 1) % SHM_SLOTS;
            return i;
        }
    }
    return -1;
}

static _Atomic uint64_t *shm_slot_own(int index)
{
    return g.hdr && index >= 0 && index < SHM_SLOTS ? slots_of(g.seg)[index].w : NULL;
}

static _Atomic uint64_t *shm_slot_peer(int owner, int index)
{
    if (!shm_reaches(owner) || index < 0 || index >= SHM_SLOTS)
        return NULL;
    shm_peer_t *p = &g.peers[g.peer_of[owner]];
    return p->seg ? slots_of(p->seg)[index].w : NULL;
}

static void shm_slot_give(int index)
{
    if (index >= 0 && index < SHM_SLOTS)
        g.slot_used &= ~(1u << index);
}

/* See "Wake protocol", handshake 1. */
enum { SLEEP_GRACE_NS = 5000 };

static void shm_prepare_sleep(void)
{
    if (!g.hdr)
        return;
    atomic_store_explicit(&g.hdr->sleeping, 1, memory_order_seq_cst);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < SLEEP_GRACE_NS);
}

static void shm_end_sleep(void)
{
    if (!g.hdr)
        return;
    atomic_store_explicit(&g.hdr->sleeping, 0, memory_order_relaxed);
    shm_bell_drain(g.bell);
}

/* transport.h, "Waking": handshake 1, with the caller's store in place of the cell's seq. */
static void shm_wake(int peer)
{
    if (!shm_reaches(peer))
        return;
    shm_peer_t *p = &g.peers[g.peer_of[peer]];
    if (p->hdr && atomic_load_explicit(&p->hdr->sleeping, memory_order_relaxed))
        ring_bell(p);
}

static int shm_pollfds(struct pollfd *fds, int max)
{
    if (g.bell < 0 || max < 1)
        return 0;
    fds[0] = (struct pollfd){.fd = g.bell, .events = POLLIN};
    return 1;
}

static void shm_close(void)
{
    for (int i = 0; g.peers && i < g.npeers; i++)
        if (g.peers[i].seg)
            munmap(g.peers[i].seg, g.peers[i].seg_bytes);
    if (g.seg)
        munmap(g.seg, g.seg_bytes);
    if (g.created && !g.unlinked)
        shm_seg_unlink(g.job_id, g.rank);
    if (g.bell >= 0)
        close(g.bell);
    free(g.peers);
    free(g.peer_of);
    free(g.job_id);
    memset(&g, 0, sizeof g);
    g.bell = -1;
}

const transport_t transport_shm = {
    .name = "shm",
    .open = shm_open_,
    .connect = shm_connect,
    .ready = shm_ready,
    .reaches = shm_reaches,
    .max_frame = SHM_MAX_FRAME,
    .send = shm_send,
    .progress = shm_progress,
    .rma_readv = shm_rma_readv,
    .rma_writev = shm_rma_writev,
    .prepare_sleep = shm_prepare_sleep,
    .end_sleep = shm_end_sleep,
    .pollfds = shm_pollfds,
    .wake = shm_wake,
    .slot_take = shm_slot_take,
    .slot_own = shm_slot_own,
    .slot_peer = shm_slot_peer,
    .slot_give = shm_slot_give,
    .close = shm_close,
};
