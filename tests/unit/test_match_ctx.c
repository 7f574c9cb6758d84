/* The context table (core/match_ctx.c) and matching per receive context (core/match.c,
 * docs/threads.md, "Splitting the lock", step (c)), without MPI_Init:
 *  - the table's contract: no entry until a communicator binds the context or a queue needs
 *    it, freed when nothing holds it (no communicator, no posted receive, no unexpected
 *    message), entries never move, contexts outside the pool share one entry that is never
 *    freed, foreach visits what exists, close frees the unbound ones;
 *  - lookups without a lock while another thread makes and frees other entries: a reader
 *    always finds a bound context's entry, complete; under ThreadSanitizer (label threads,
 *    make test-tsan) also the orderings;
 *  - matching per context: an unexpected message is found on its own context only (also
 *    among the contexts outside the pool, which share an entry), match_withdraw finds it
 *    only when given its context, match_lengths sums every context's queues, match_arrivals
 *    counts per context, match_close frees what is left (LeakSanitizer in make test-asan). */
#include "core/comm.h"
#include "core/match.h"
#include "core/match_ctx.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

static void count_cb(match_ctx_t *e, void *arg)
{
    (void)e;
    ++*(unsigned *)arg;
}

static unsigned count_entries(void)
{
    unsigned n = 0;
    mctx_foreach(count_cb, &n);
    return n;
}

static void contract(void)
{
    EXPECT(mctx_get(0) == NULL && mctx_get(MCTX_CONTEXTS - 1) == NULL);
    EXPECT(count_entries() == 1); /* the shared entry only */
    match_ctx_t *e = mctx_bind(300), *f = mctx_bind(301);
    EXPECT(e && f && e != f && mctx_get(300) == e && mctx_get(301) == f);
    EXPECT(e->users == 1 && e->ctx == 300 && e->posted == 0 && e->unexpected == 0 &&
           !e->uq_head && !e->posted_head);
    EXPECT(mctx_bind(300) == e && e->users == 2 && mctx_make(300) == e);
    EXPECT(count_entries() == 3);
    mctx_unbind(e);
    EXPECT(mctx_get(300) == e); /* one communicator still holds it */
    mctx_unbind(e);
    mctx_unbind(f);
    EXPECT(mctx_get(300) == NULL && mctx_get(301) == NULL && count_entries() == 1);
    mctx_unbind(NULL); /* a communicator that never got its entries */
    /* an entry nobody binds lives while a queue holds something */
    e = mctx_make(5);
    EXPECT(e && e->users == 0 && mctx_get(5) == e);
    e->unexpected = 1;
    mctx_put(e);
    EXPECT(mctx_get(5) == e);
    e->unexpected = 0;
    mctx_put(e);
    EXPECT(mctx_get(5) == NULL);
    /* outside the pool: the one shared entry, never NULL, never freed */
    EXPECT(mctx_get(MCTX_CONTEXTS) == &mctx_shared && mctx_get(0xfffffff0u) == &mctx_shared);
    EXPECT(mctx_make(0xffffffffu) == &mctx_shared);
    mctx_put(&mctx_shared);
    EXPECT(mctx_get(0xfffffff0u) == &mctx_shared);
    /* the last context of the pool has an entry of its own; entries never move */
    match_ctx_t *last = mctx_bind(MCTX_CONTEXTS - 1);
    EXPECT(last && last != &mctx_shared && mctx_get(MCTX_CONTEXTS - 1) == last);
    for (uint32_t c = 0; c < MCTX_CONTEXTS - 1; c += 97)
        EXPECT(mctx_bind(c) != NULL);
    EXPECT(mctx_get(MCTX_CONTEXTS - 1) == last);
    /* closing: unbound entries go, bound ones are emptied and go with their last unbind */
    e = mctx_make(7);
    EXPECT(e && mctx_get(7) == e);
    mctx_close();
    EXPECT(mctx_get(7) == NULL && mctx_get(MCTX_CONTEXTS - 1) == last && last->users == 1);
    mctx_unbind(last);
    for (uint32_t c = 0; c < MCTX_CONTEXTS - 1; c += 97)
        mctx_unbind(mctx_get(c));
    EXPECT(count_entries() == 1);
}

/* Readers look up contexts bound for the whole run without a lock, while the writer binds
 * and unbinds others (the table's neighbouring slots change under them). */
static atomic_int writer_done;
enum { STABLE = 64 };

static void *reader(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    long found = 0;
    while (!atomic_load_explicit(&writer_done, memory_order_acquire) || found < 1000) {
        seed = seed * 1103515245u + 12345u;
        uint32_t ctx = ((seed >> 8) % STABLE) * 512; /* the stable ones */
        match_ctx_t *e = mctx_get(ctx);
        if (!e || e->ctx != ctx) {
            fprintf(stderr, "FAIL: context %u's entry lost or not initialised\n", ctx);
            return (void *)1;
        }
        found++;
    }
    return NULL;
}

static void concurrent(void)
{
    match_ctx_t *stable[STABLE];
    for (int i = 0; i < STABLE; i++)
        stable[i] = mctx_bind((uint32_t)i * 512);
    pthread_t r[3];
    atomic_store(&writer_done, 0);
    for (int i = 0; i < 3; i++)
        pthread_create(&r[i], NULL, reader, (void *)(uintptr_t)(i + 1));
    /* under the caller's serialisation: this thread alone makes and frees entries */
    for (int round = 0; round < 20; round++)
        for (uint32_t c = 1; c < MCTX_CONTEXTS; c += 7) {
            match_ctx_t *e = mctx_bind(c);
            EXPECT(e != NULL);
            if (c % 512)
                mctx_unbind(e);
        }
    atomic_store_explicit(&writer_done, 1, memory_order_release);
    for (int i = 0; i < 3; i++) {
        void *res;
        pthread_join(r[i], &res);
        EXPECT(res == NULL);
    }
    for (int i = 0; i < STABLE; i++) {
        EXPECT(mctx_get((uint32_t)i * 512) == stable[i]);
        while (stable[i]->users > 1)
            mctx_unbind(stable[i]);
        mctx_unbind(stable[i]);
    }
    EXPECT(count_entries() == 1);
}

/* Matching per context, through the core's own functions (no transport: unexpected
 * messages and withdrawals only, which need no protocol). */
static void arrive(uint32_t ctx, int peer, int tag, uint64_t id, const char *data)
{
    proto_msg_t m = { .env = { .ctx = ctx, .src = peer, .tag = tag }, .peer = peer,
                      .size = strlen(data), .remote_id = id, .data = data };
    match_incoming(&m);
}

static void per_context(void)
{
    comm_init_predefined(0, 2);
    comm_t *world = comm_lookup(MPI_COMM_WORLD);
    comm_t far = *world, out1 = *world, out2 = *world;
    far.recv_ctx = far.send_ctx = 1000;          /* no communicator binds it */
    far.mctx[0] = far.mctx[1] = NULL;
    out1.recv_ctx = out1.send_ctx = 0xfffffff0u; /* outside the pool: the shared entry */
    out2.recv_ctx = out2.send_ctx = 0xfffffff2u;

    arrive(1000, 1, 5, 77, "far");
    arrive(0, 1, 5, 78, "world");
    arrive(0xfffffff0u, 1, 5, 79, "out1");
    match_lengths_t l = match_lengths();
    EXPECT(l.posted == 0 && l.unexpected == 3 && l.unexpected_max == 3);
    EXPECT(match_arrivals(&far) == 1 && match_arrivals(world) == 1);
    EXPECT(match_arrivals(&out1) == 1 && match_arrivals(&out2) == 1); /* shared: one count */
    unexpected_t *u = match_peek(&far, MPI_ANY_SOURCE, MPI_ANY_TAG);
    EXPECT(u && u->m.size == 3 && memcmp(u->m.data, "far", 3) == 0);
    u = match_peek(world, 1, 5);
    EXPECT(u && u->m.size == 5 && memcmp(u->m.data, "world", 5) == 0);
    EXPECT(match_peek(&out2, MPI_ANY_SOURCE, MPI_ANY_TAG) == NULL); /* same entry, other ctx */
    u = match_peek(&out1, 1, MPI_ANY_TAG);
    EXPECT(u && u->m.size == 4);
    EXPECT(match_peek(world, 1, 6) == NULL);

    /* a CANCEL names the message's context: found there only */
    EXPECT(match_withdraw(1, 0, 77) == 0);
    EXPECT(match_withdraw(0, 1000, 77) == 0); /* another peer's operation id */
    EXPECT(mctx_get(1000) != NULL);
    EXPECT(match_withdraw(1, 1000, 77) == 1);
    EXPECT(mctx_get(1000) == NULL);           /* empty and unbound: freed */
    EXPECT(match_withdraw(1, 1000, 77) == 0); /* gone */
    EXPECT(match_withdraw(1, 0xfffffff2u, 79) == 0 && match_withdraw(1, 0xfffffff0u, 79) == 1);
    EXPECT(match_withdraw(1, 12345u, 78) == 0); /* a context without an entry: nothing */
    EXPECT(match_peek(&far, MPI_ANY_SOURCE, MPI_ANY_TAG) == NULL);
    l = match_lengths();
    EXPECT(l.unexpected == 1 && l.unexpected_max == 3);

    /* take leaves the other messages of the context in order */
    arrive(0, 1, 6, 80, "second");
    u = match_take(world, 1, MPI_ANY_TAG);
    EXPECT(u && u->m.size == 5);
    free(u);
    u = match_take(world, MPI_ANY_SOURCE, 6);
    EXPECT(u && u->m.size == 6);
    free(u);
    EXPECT(match_lengths().unexpected == 0 && match_arrivals(world) == 2);
    EXPECT(mctx_get(0) == world->mctx[0]); /* empty, but world holds it */

    /* match_close frees what is left, in every context */
    arrive(2000, 1, 1, 81, "left");
    arrive(2, 1, 1, 82, "left too");
    match_close();
    l = match_lengths();
    EXPECT(l.unexpected == 0 && l.posted == 0);
    EXPECT(mctx_get(2000) == NULL && match_arrivals(&far) == 0);
    EXPECT(mctx_get(0) == world->mctx[0] && world->mctx[0]->arrivals == 0);
    comm_finalize(); /* unbinds world's and self's */
    EXPECT(count_entries() == 1);
}

int main(void)
{
    contract();
    concurrent();
    per_context();
    return expect_done("match_ctx");
}
