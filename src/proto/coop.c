/*
 * Cooperative copy of a large contiguous rendezvous message (docs/p2p.md, "Cooperative
 * copy"). On one host the single-copy rendezvous has the receiver copy the whole message
 * (rma_readv) while the sender's core only waits for FIN. Here the sender helps when it is
 * inside the library, and only then: the message is cut into chunks, and each chunk is copied
 * by whoever claims it first in a shared atomic slot of the receiver's (the transport's,
 * transport.h "Shared atomic slots") — the receiver from the front (rma_readv), the sender
 * from the back (rma_writev):
 *
 *   sender                          receiver
 *     │ RTS size, addr ──────────────►│ match (contiguous, n >= METAMPI_RNDV_COOP)
 *     │                               │ take a slot: claim word := gen, front 0, back 0
 *     │◄── COOP slot, gen, chunk ─────│
 *     │ claim from the back, write    │ claim from the front, read      (at the same time)
 *     │ each chunk, done += 1         │ ... until front + back = nchunks
 *     │                               │ wait until done = back (the sender's claims)
 *     │◄──────────────────────── FIN ─│ give the slot back (done)
 *     │ (done)                        │
 *
 * A sender that is not in the library when COOP arrives claims nothing (it finds every chunk
 * taken once it reads COOP): the receiver copies the whole message alone and completes, as
 * with the plain single copy. The receiver never waits for a sender that has not claimed.
 *
 * The slot (TR_SLOT_WORDS words in the receiver's shared memory):
 *   w[0] claim word: gen (bits 40..63) | back (bits 20..39) | front (bits 0..19), changed only
 *        by compare-and-swap, and only while front + back < nchunks and gen is the
 *        transfer's: the receiver claims chunk `front` (front += 1), the sender chunk
 *        `nchunks - 1 - back` (back += 1);
 *   w[1] done: chunks the sender claimed and finished (release, after its write);
 *   w[2] refused: 1 + the chunk the sender claimed but could not write (its transport refused:
 *        TR_RMA_UNSUPPORTED), 0 when none; stored before that chunk's done.
 *
 * Invariants:
 *   - slot lifetime: the receiver takes the slot at the match, writes w[1] = w[2] = 0 and then
 *     w[0] with a generation one above the slot's last (release), then sends COOP naming both.
 *     The sender writes the slot only while it holds a claim it has not finished (w[1], w[2]);
 *     it claims only by a compare-and-swap that sees the COOP's generation and a chunk left.
 *     The receiver gives the slot back only after every chunk is claimed (front + back =
 *     nchunks, which no CAS undoes) and w[1] = back, i.e. after the sender's last write to the
 *     slot: from then on the sender's CAS fails (no chunk left, or another generation after
 *     the slot was taken again), so it at most loads the words of the slot's next user. All
 *     of this happens before the receiver sends FIN, and the sender has finished with the
 *     slot before it answers anything (it handles COOP in one call), so FIN carries no slot.
 *     The generation has 24 bits and a slot is taken again only after the transport's other
 *     slots (16 on shm): a stale CAS could succeed only after 2^28 transfers while one sender
 *     sat between its load and its CAS;
 *   - the receiver's wait is bounded: it waits only for chunks the sender has claimed, which
 *     the sender is copying inside the library (it claims the next only after finishing one),
 *     at most one chunk; it spins, yielding the CPU after COOP_SPINS loads (the sender may be
 *     descheduled on an oversubscribed host);
 *   - the receiver sends COOP only for a message it received whole (not truncated), both
 *     buffers contiguous, the peer of its own architecture, and only once a remote read from
 *     that peer has worked (peer_t.rma_ok): a peer whose transport refuses cross-memory attach
 *     never gets here and keeps the usual fallback (CTS and DATA frames);
 *   - FIN still means "the receiver is done with the sender's buffer", and it is sent only
 *     when every chunk is in place, so the sender's completion (buffer reusable) and the
 *     receiver's (data in place) keep their meaning; a synchronous send is matched by
 *     construction, as with any rendezvous;
 *   - the sender writes only after COOP, i.e. after the match: a CANCEL in flight is answered
 *     "already matched" by the receiver, and a CANCEL_REPLY that says "withdrawn" for an op in
 *     OP_WAIT_FIN is a bad frame (send.c);
 *   - a sender whose transport refuses the write (TR_RMA_UNSUPPORTED) records that chunk in
 *     w[2], stops claiming, and the receiver reads the chunk itself; any other failure ends the
 *     job with the transport's line naming the peer, reported by the rank that failed (the
 *     receiver, if it is the one that copies the bad part);
 *   - the frames are checked like any other (proto.c, "Checks"): ids name live operations in
 *     the right state; the slot is one the transport offers, the chunks cut the message into
 *     2 to COOP_MAX_CHUNKS parts; the address in COOP is the receiver's own memory, which the
 *     receiver could write anyway.
 */
#include "proto/ids.h"
#include "proto/internal.h"

#include "runtime/job.h"
#include "runtime/peer_arch.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

size_t proto_coop_min;

#define COOP_FIELD_BITS 20
#define COOP_FIELD_MASK ((1ull << COOP_FIELD_BITS) - 1)
#define COOP_GEN_SHIFT (2 * COOP_FIELD_BITS)
#define COOP_GEN_MASK ((1ull << (64 - COOP_GEN_SHIFT)) - 1)
#define COOP_MAX_CHUNKS COOP_FIELD_MASK
/* Chunks: half the message on a page boundary (two chunks up to 512 KiB: each process_vm
 * call costs about a microsecond, and a quarter made 32-128 KiB ping-pongs slower), at least
 * 8 KiB, at most COOP_CHUNK_MAX (cache-sized, so that neither side is left with a large part
 * once the other stops: 4 chunks at 1 MiB, 16 at 4 MiB; 1 MiB chunks moved less, measured in
 * docs/p2p.md). */
#define COOP_CHUNK_MIN (8u << 10)
#define COOP_CHUNK_MAX (256u << 10)
#define COOP_PAGE 4096u
/* Loads of the done word before each yield of the CPU while the receiver waits. */
#define COOP_SPINS 1000u

enum { W_CLAIM, W_DONE, W_REFUSED };
_Static_assert((int)W_REFUSED < (int)TR_SLOT_WORDS, "the transport's slot holds the coop words");

static size_t round_page(size_t x)
{
    return (x + COOP_PAGE - 1) & ~(size_t)(COOP_PAGE - 1);
}

static size_t coop_chunk(size_t n)
{
    size_t c = round_page(n / 2);
    if (c < COOP_CHUNK_MIN)
        c = COOP_CHUNK_MIN;
    if (c > COOP_CHUNK_MAX)
        c = COOP_CHUNK_MAX;
    size_t least = round_page(n / COOP_MAX_CHUNKS + 1); /* at most COOP_MAX_CHUNKS of them */
    return c > least ? c : least;
}

/* Claims one chunk of the transfer of generation gen: from the front (receiver) or the back
 * (sender). 1 and *idx, or 0 when none is left or the slot now serves another transfer. */
static int claim(_Atomic uint64_t *w, uint64_t gen, uint64_t nchunks, int back, uint64_t *idx)
{
    uint64_t cur = atomic_load_explicit(w, memory_order_acquire);
    for (;;) {
        uint64_t f = cur & COOP_FIELD_MASK, b = (cur >> COOP_FIELD_BITS) & COOP_FIELD_MASK;
        if (cur >> COOP_GEN_SHIFT != gen || f + b >= nchunks)
            return 0;
        uint64_t next = cur + (back ? 1ull << COOP_FIELD_BITS : 1);
        if (atomic_compare_exchange_weak_explicit(w, &cur, next, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *idx = back ? nchunks - 1 - b : f;
            return 1;
        }
    }
}

static void send_fin(int peer, uint64_t sreq)
{
    f_ctrl_t c = { .kind = F_FIN, .sreq = sreq };
    f_ctrl_le(&c);
    proto_send_ctrl(peer, &c, sizeof c);
}

/* Reads [from, to) of the sender's message at remote into op's buffer. */
static void read_part(proto_op_t *op, uint64_t remote, size_t from, size_t to)
{
    const transport_t *tr = proto_peers[op->peer].tr;
    char err[256];
    struct iovec li = { (char *)op->buf + from, to - from };
    struct iovec ri = { (void *)(uintptr_t)(remote + from), to - from };
    int rc = tr->rma_readv(op->peer, &li, 1, &ri, 1, err, sizeof err);
    if (rc == TR_RMA_UNSUPPORTED) {
        snprintf(err, sizeof err,
                 "rank %d refused a remote read of rank %d's memory after earlier ones had "
                 "worked (cooperative copy)",
                 proto_my_rank, op->peer);
        job_abort(1, err);
    }
    if (rc != TR_RMA_OK)
        job_abort(1, err);
}

static size_t chunk_end(size_t i, size_t chunk, size_t n)
{
    return (i + 1) * chunk < n ? (i + 1) * chunk : n;
}

int proto_coop_start(proto_op_t *op, const proto_msg_t *m, size_t n)
{
    const peer_t *p = &proto_peers[m->peer];
    const transport_t *tr = p->tr;
    if (!proto_coop_min || n < proto_coop_min || n != m->size || m->typed || op->layout ||
        op->prefix || !p->rma_ok || p->no_rma || !tr->rma_writev || !tr->slot_take)
        return 0;
    if (!peer_arch_all_same() && !arch_same(peer_arch(m->peer), arch_local()))
        return 0;
    size_t chunk = coop_chunk(n), nchunks = (n + chunk - 1) / chunk;
    if (nchunks < 2)
        return 0;
    int slot = tr->slot_take(m->peer);
    if (slot < 0)
        return 0; /* none free: the receiver copies alone */
    _Atomic uint64_t *w = tr->slot_own(slot);
    uint64_t gen = ((atomic_load_explicit(&w[W_CLAIM], memory_order_relaxed) >> COOP_GEN_SHIFT) +
                    1) & COOP_GEN_MASK;
    atomic_store_explicit(&w[W_DONE], 0, memory_order_relaxed);
    atomic_store_explicit(&w[W_REFUSED], 0, memory_order_relaxed);
    atomic_store_explicit(&w[W_CLAIM], gen << COOP_GEN_SHIFT, memory_order_release);
    f_coop_t c = { .kind = F_COOP, .slot = (uint32_t)slot, .sreq = m->remote_id,
                   .addr = (uintptr_t)op->buf, .chunk = (uint32_t)chunk,
                   .gen = (uint32_t)gen };
    f_coop_le(&c);
    proto_send_ctrl(m->peer, &c, sizeof c);

    uint64_t i, mine = 0;
    while (claim(&w[W_CLAIM], gen, nchunks, 0, &i)) {
        read_part(op, m->remote_addr, i * chunk, chunk_end(i, chunk, n));
        mine++;
    }
    /* every chunk is claimed: wait for the sender's (it is copying them, see the top) */
    uint64_t theirs = nchunks - mine;
    for (unsigned k = 0; atomic_load_explicit(&w[W_DONE], memory_order_acquire) < theirs; k++)
        if (k >= COOP_SPINS)
            sched_yield();
    uint64_t refused = atomic_load_explicit(&w[W_REFUSED], memory_order_relaxed);
    tr->slot_give(slot);
    if (refused) /* the sender could not write that chunk: read it */
        read_part(op, m->remote_addr, (refused - 1) * chunk, chunk_end(refused - 1, chunk, n));
    op->got = n;
    send_fin(m->peer, m->remote_id);
    proto_complete(op);
    return 1;
}

void proto_on_coop(int src, const void *frame, size_t len)
{
    f_coop_t c;
    if (len != sizeof c)
        proto_bad_frame(src, "a COOP of %zu bytes", len);
    memcpy(&c, frame, sizeof c);
    f_coop_le(&c);
    proto_op_t *op = proto_named_op(src, c.sreq, "COOP");
    if (op->state != OP_WAIT_RNDV)
        proto_bad_frame(src, "COOP for operation %#llx, which is %s", (unsigned long long)c.sreq,
                        proto_state_name(op->state));
    uint64_t nchunks = c.chunk ? (op->bytes + c.chunk - 1) / c.chunk : 0;
    if (op->layout || nchunks < 2 || nchunks > COOP_MAX_CHUNKS || c.gen > COOP_GEN_MASK)
        proto_bad_frame(src, "COOP cuts operation %#llx (%zu %s bytes) into chunks of %u bytes",
                        (unsigned long long)c.sreq, op->bytes,
                        op->layout ? "typed" : "contiguous", c.chunk);
    const transport_t *tr = proto_peers[src].tr;
    _Atomic uint64_t *w = tr->slot_peer ? tr->slot_peer(src, (int)c.slot) : NULL;
    if (!w)
        proto_bad_frame(src, "COOP names shared slot %u, which its transport does not offer",
                        c.slot);
    op->state = OP_WAIT_FIN;
    if (!tr->rma_writev)
        return; /* the receiver copies every chunk */
    uint64_t i;
    char err[256];
    while (claim(&w[W_CLAIM], c.gen, nchunks, 1, &i)) {
        size_t from = i * c.chunk, to = chunk_end(i, c.chunk, op->bytes);
        struct iovec li = { (char *)op->buf + from, to - from };
        struct iovec ri = { (void *)(uintptr_t)(c.addr + from), to - from };
        int rc = tr->rma_writev(src, &li, 1, &ri, 1, err, sizeof err);
        if (rc != TR_RMA_OK && rc != TR_RMA_UNSUPPORTED)
            job_abort(1, err);
        if (rc == TR_RMA_UNSUPPORTED) /* the receiver reads it; we claim no more */
            atomic_store_explicit(&w[W_REFUSED], i + 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&w[W_DONE], 1, memory_order_release);
        if (rc == TR_RMA_UNSUPPORTED)
            break;
    }
}
