/*
 * The shared area of one communicator on one host (internal to coll/shm/): what it holds,
 * how it is set up, and the flag protocol every shared-memory algorithm follows.
 *
 * Layout (one POSIX segment per communicator, stream and host, mapped by every member of the
 * node team; n members, K slots per member):
 *
 *   | header (page) | ctl[0] ... ctl[n-1] (256 B each) | member 0: K slots | member 1 | ... |
 *   ctl[m]:  post (member m writes; barriers) in a 128 B block | ack (member m writes) in one
 *   slot:    line 0: 56 bytes of inline data, then pos (the slot's writer publishes it)
 *            C bytes of data
 *
 * Each word is written by one member only and sits in a line (control words: a 128-byte
 * block, the adjacent-line prefetcher couples pairs of lines) of its own or with the data it
 * publishes. Data of up to SHM_INLINE bytes per member and round travels in the slot's first
 * line, next to the position that publishes it, so a reader takes a single cache miss.
 *
 * Streams. The blocking and the nonblocking collectives of a communicator are two streams
 * that members may interleave differently (core/comm.h); each stream has an area of its own
 * (the nonblocking one set up by the first nonblocking collective that offers itself here),
 * so nothing below ever relates operations of different streams.
 *
 * Operations. Every shared-memory collective of the stream is an operation with a sequence
 * number s = 1, 2, ... given in build order, the same at every member (all members call the
 * coll_shm_* functions in the same order per stream with consistent arguments, and decline
 * consistently). Operations run in sequence order at each member (op s waits until op s-1
 * has finished here), so per member "finished s" implies "finished every op before s".
 * Words hold positions pos(s, x) = s * 2^24 + x, compared as numbers:
 *   slot pos >= pos(s, x): its writer has published phase x of op s there (the data of the
 *                         op's round that uses the slot); post[m] likewise, for barriers;
 *   ack[m]  >= pos(s, x): member m will read nothing more of rounds < x of op s, nor of any
 *                         earlier op; pos(s, POS_MAX) once it is done reading in op s.
 * Both only grow and are never reset, so no barrier is needed between operations.
 *
 * Slots. Data moves in rounds of at most C bytes per member. Rounds are numbered globally
 * (the area's round counter, advanced at build time by each op's round count, hence the same
 * at every member): round g of any op uses slot g % K of each member that writes in it.
 * Before member m writes its slot i it waits until every other member's ack >= need[i], the
 * position that frees the slot's previous contents (pos(s', r'+1) for round r' of op s'). With
 * K >= 2 a writer runs ahead of its readers by up to K rounds: consecutive small operations
 * never wait for each other's readers, and large ones are pipelined.
 *
 * Waking. A waiting member polls in its schedule callback (ICOLL_AGAIN) and may fall asleep in
 * the progress engine; every store that someone may wait for (a position, post, ack) is
 * followed by p2p_wake() of the members that may wait for it (transport.h, "Waking"). The
 * store is a release store, not seq_cst (which would stall the writer until the line is
 * owned, ~100 ns per operation): as in the shm transport's handshake 1, the sleeper's grace
 * period after announcing its sleep outlasts a store still in the writer's store buffer.
 *
 * Order check. A member publishes which operation it runs (sequence number and the collective
 * it belongs to) in its control block; a member that waits looks there now and then, and a
 * member whose operation of the same sequence number belongs to another collective called
 * another collective at that point:
 * the operation ends with MPI_ERR_NOT_SAME instead of waiting for what cannot come.
 *
 * Setup (once per communicator and stream, its own schedule with tag COLL_SHM_SETUP_TAG -
 * stream on the internal context, started by the stream's first coll_shm_* call, which then
 * waits for the verdict like any operation built before it: so the first call runs the same
 * algorithm as the later ones, and a reduction gives the same bits every time): member 0 of the node team creates the segment (exclusively, sized and backed,
 * named /metampi.<job>.coll.<world rank of member 0>.<communicator key>.<stream>) and sends
 * each member a status; each member attaches when
 * the status is good and answers; member 0 unlinks the name once all have answered and sends
 * each one the verdict: usable only if everyone attached. So every member ends in the same
 * state, READY or FAILED (FAILED also when member 0 already has METAMPI_COLL_SHM_AREAS areas).
 * The same exchange agrees on remote reads (cma): the status carries the address of a word of
 * member 0's, each member tries to read it with p2p_read and answers whether that worked; the
 * verdict allows them only if it did everywhere (and METAMPI_COLL_SHM_CMA is not 0), so every
 * member chooses the same algorithms. Operations built before a member knows the verdict wait
 * for it; in FAILED state an operation inserts a point-to-point algorithm instead
 * (fallback.c), the same at every member.
 */
#ifndef METAMPI_COLL_SHM_AREA_H
#define METAMPI_COLL_SHM_AREA_H

#include "coll/shm/shm.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define POS_BITS 24
#define POS_MAX ((UINT64_C(1) << POS_BITS) - 1)
static inline uint64_t shm_pos(uint64_t s, uint64_t x)
{
    return (s << POS_BITS) | x;
}

/* the setup's tag: COLL_SHM_SETUP_TAG - stream (-2 blocking, -3 nonblocking) */
#define COLL_SHM_SETUP_TAG (-2)

typedef struct shm_ctl {
    alignas(128) _Atomic uint64_t post;
    _Atomic uint64_t op;      /* (seq << 8) | (call + 1) of the operation the member runs */
    alignas(128) _Atomic uint64_t ack;
} shm_ctl_t;
_Static_assert(sizeof(shm_ctl_t) == 256, "a member's control block is 256 bytes");

#define SHM_INLINE 56

typedef struct shm_slot_hdr {
    alignas(64) unsigned char inl[SHM_INLINE];
    _Atomic uint64_t pos;
} shm_slot_hdr_t;
_Static_assert(sizeof(shm_slot_hdr_t) == 64, "a slot header is one cache line");

typedef struct shm_hdr {
    uint64_t magic;
    uint32_t version, n;
    uint64_t chunk, slots, bytes;
} shm_hdr_t;

enum { AREA_PENDING, AREA_READY, AREA_FAILED };

/* Setup messages (see "Setup"): member 0's status and the address of a word the others
 * read remotely; their answers and its verdict are bit sets. */
typedef struct shm_hello {
    uint64_t status;
    uint64_t probe;           /* address of member 0's probe word */
} shm_hello_t;
enum { SETUP_GOOD = 1, SETUP_CMA = 2 };

struct shm_op;

typedef struct coll_area {
    int state;
    int n, me;                /* node team size, my index */
    const int *crank;         /* member -> communicator rank (NULL: identity) */
    int *world;               /* member -> job rank (wake-ups) */
    uint64_t next_seq;        /* operations built (the last one's sequence number) */
    uint64_t done_seq;        /* the last operation finished here */
    uint64_t rounds;          /* global round counter (build order) */
    size_t chunk;             /* C */
    int slots;                /* K */
    /* the mapping (READY) */
    unsigned char *base;
    size_t bytes;
    shm_ctl_t *ctl;
    unsigned char *data;
    uint64_t need[8];         /* per own slot: the ack that frees it (K <= 8) */
    uint64_t ack_min;         /* lowest ack of the others seen last */
    int cma;                  /* every member can read every other's memory (p2p_read) */
    /* private buffers of the running operation (cma.c), kept for the next: operations run
     * one at a time per member, and a fresh large allocation costs page faults every time */
    unsigned char *buf[2];
    size_t buf_bytes[2];
    /* setup */
    char name[256];
    int created, unlinked;
    int counted;              /* member 0: counts against METAMPI_COLL_SHM_AREAS */
    shm_hello_t hello;        /* member 0 -> the others */
    unsigned char answer;     /* the others -> member 0 (answers[k] there) */
    unsigned char verdict;    /* member 0 -> the others */
    unsigned char *answers;
    uint64_t probe;           /* member 0: the word the others read to try remote reads */
    struct shm_op *spare_ops; /* finished operations' records, for the next ones (shm.c) */
} coll_area_t;

/* ---- tunables (shm.c) ---- */
size_t coll_shm_chunk(void);
int coll_shm_slots(void);     /* K, 2..8 */
int coll_shm_fail_member(void); /* testing: the member whose setup fails, or -1 */
int coll_shm_cma_allowed(void);
int coll_shm_max_areas(void);  /* areas a process creates at most (as member 0) */

/* ---- area.c ---- */
/* c's area of stream, whatever its state (operations wait for the verdict, and run as
 * messages if it is FAILED); NULL when it did not exist before this call, which starts its
 * setup, or cannot exist (team of one, out of memory). */
coll_area_t *coll_shm_area(comm_t *c, comm_stream_t stream);

/* Member's slot for global round g: its header, and where `bytes` of data go. */
static inline shm_slot_hdr_t *shm_slot_hdr(const coll_area_t *a, int member, uint64_t g)
{
    size_t i = (size_t)member * (size_t)a->slots + (size_t)(g % (uint64_t)a->slots);
    return (shm_slot_hdr_t *)(a->data + i * (sizeof(shm_slot_hdr_t) + a->chunk));
}
static inline unsigned char *shm_slot(const coll_area_t *a, int member, uint64_t g,
                                      size_t bytes)
{
    shm_slot_hdr_t *h = shm_slot_hdr(a, member, g);
    return bytes <= SHM_INLINE ? h->inl : (unsigned char *)(h + 1);
}
/* Private buffer i (0, 1) of at least bytes, kept with the area; NULL when out of memory. */
unsigned char *shm_area_buffer(coll_area_t *a, int i, size_t bytes);

static inline uint64_t shm_load(_Atomic uint64_t *w)
{
    return atomic_load_explicit(w, memory_order_acquire);
}
/* Publishes v in one of my words and wakes whoever may sleep waiting for it: member who, or
 * every other member (who < 0). */
void shm_store_wake(coll_area_t *a, _Atomic uint64_t *w, uint64_t v, int who);
/* Nonzero when my slot for global round g may be written (the others are done with what it
 * held); records that readers must ack `freed` before the slot is written again. */
int shm_slot_free(coll_area_t *a, uint64_t g, uint64_t freed);
/* Nonzero when every member in [*from, n) other than me has post >= v (posted: the post
 * words; slots: the position of its slot for round g); *from remembers how far the check
 * got. */
int shm_all_posted(coll_area_t *a, int *from, uint64_t v);
int shm_all_slots(coll_area_t *a, int *from, uint64_t g, uint64_t v);

#endif
