/*
 * The context table: one matching entry per receive context (docs/threads.md, "Splitting the
 * lock", step (c)). An entry holds the posted receives and the unexpected messages of its
 * context and their counts; core/match.c does the matching, this file keeps the entries.
 *
 * Why a table indexed by context and not the communicator alone: a message may arrive before
 * this process has created the communicator its context belongs to (a member that created it
 * first), and some contexts belong to no communicator object (MPI_Finalize's barrier,
 * core/p2p.c; the federated architecture exchange). Schedules and the direct collectives
 * match through copies of a communicator on its internal context (views, core/schedule.c),
 * so the context id is what names the queue.
 *
 * Layout: an array of one pointer per context of the pool (MCTX_CONTEXTS, 256 KiB of address
 * space of which only the pages of contexts in use become memory: the agreement spreads
 * contexts over the whole pool, core/ctxid.c), to entries allocated one by one, which never
 * move. Contexts outside the pool (>= 2 * CTXID_PAIRS, core/ctxid_pool.h) share the entry
 * mctx_shared, which is never freed, so matching still compares the context id of every
 * message.
 *
 * Life of an entry: made by the first of: a communicator taking the context
 * (comm_set_context binds recv_ctx and recv_ctx + 1: `users`, and keeps the pointers), a
 * message arriving, a receive posted. Freed when nothing holds it: no communicator bound, no
 * posted receive, no unexpected message (mctx_unbind when a communicator is destroyed;
 * mctx_put when a queue of an unbound entry empties). So the memory of the table follows the
 * contexts in use, whatever the churn of communicators (tests/mpi/comm/churn.c bounds it).
 *
 * Context ids reused: the pair of a destroyed communicator goes back to the pool. Posted
 * receives hold a reference to their communicator, so none is left; unexpected messages
 * nobody received keep the entry alive, and a later communicator on the same pair binds it
 * and finds them, as with the single queue before the table (the program sent messages it
 * never received).
 *
 * Threads. mctx_get takes no lock: an entry is published with release (read with acquire)
 * complete. Making, binding, unbinding and freeing entries (mctx_make, mctx_bind,
 * mctx_unbind, mctx_put, mctx_close) are serialised by their callers (the core lock; the
 * object lock once split, when freeing must also wait for the context's lock), and so is
 * everything inside an entry (the core lock; the context lock, 3, once split).
 */
#ifndef METAMPI_MATCH_CTX_H
#define METAMPI_MATCH_CTX_H

#include "core/ctxid_pool.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct request;
struct unexpected;

typedef struct match_ctx {
    struct request *posted_head, *posted_tail;   /* receives, oldest first */
    struct unexpected *uq_head, *uq_tail;        /* messages, oldest first */
    uint32_t posted, unexpected;                 /* the queues' lengths */
    uint64_t arrivals;                           /* messages ever appended to uq */
    uint32_t ctx;
    int users;                                   /* communicators bound to it */
} match_ctx_t;

#define MCTX_CONTEXTS (2u * CTXID_PAIRS) /* the pool's contexts */

extern _Atomic(match_ctx_t *) mctx_table[MCTX_CONTEXTS];
extern match_ctx_t mctx_shared;

/* ctx's entry, or NULL when it has none (then its queues are empty). */
static inline match_ctx_t *mctx_get(uint32_t ctx)
{
    if (__builtin_expect(ctx < MCTX_CONTEXTS, 1))
        return atomic_load_explicit(&mctx_table[ctx], memory_order_acquire);
    return &mctx_shared;
}

/* ctx's entry, made when it has none; NULL only when out of memory. The making is out of line
 * and cold: inlined (LTO did), it kept registers saved on every receive. */
match_ctx_t *mctx_make_new(uint32_t ctx) __attribute__((noinline, cold));
static inline match_ctx_t *mctx_make(uint32_t ctx)
{
    match_ctx_t *e = mctx_get(ctx);
    return __builtin_expect(e != NULL, 1) ? e : mctx_make_new(ctx);
}

/* A communicator takes ctx: its entry (made when needed) with one more user; NULL only when
 * out of memory. mctx_unbind: the communicator is destroyed (NULL: a no-op). */
match_ctx_t *mctx_bind(uint32_t ctx);
void mctx_unbind(match_ctx_t *e);
/* Frees e when nothing holds it any more (above); match.c calls it when a queue of e empties.
 * For an entry a communicator holds, one load and branch. */
void mctx_free(match_ctx_t *e) __attribute__((noinline, cold));
static inline void mctx_put(match_ctx_t *e)
{
    if (__builtin_expect(!e->users && !e->posted && !e->unexpected, 0) && e != &mctx_shared)
        mctx_free(e);
}

/* Calls fn(entry, arg) for every entry that exists (the shared one last). */
void mctx_foreach(void (*fn)(match_ctx_t *e, void *arg), void *arg);

/* MPI_Finalize, after match.c freed every queue's content: the entries no communicator holds
 * are freed, the others emptied (their communicators unbind them when destroyed). */
void mctx_close(void);

#endif
