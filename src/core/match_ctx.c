/* The context table: one entry per receive context in use (match_ctx.h). */
#include "core/match_ctx.h"

#include <stdlib.h>
#include <string.h>

_Atomic(match_ctx_t *) mctx_table[MCTX_CONTEXTS];
match_ctx_t mctx_shared = { .ctx = MCTX_CONTEXTS };

match_ctx_t *mctx_make_new(uint32_t ctx)
{
    match_ctx_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->ctx = ctx;
    /* complete (empty) before it is published */
    atomic_store_explicit(&mctx_table[ctx], e, memory_order_release);
    return e;
}

match_ctx_t *mctx_bind(uint32_t ctx)
{
    match_ctx_t *e = mctx_make(ctx);
    if (e)
        e->users++;
    return e;
}

void mctx_free(match_ctx_t *e)
{
    atomic_store_explicit(&mctx_table[e->ctx], NULL, memory_order_relaxed);
    free(e);
}

void mctx_unbind(match_ctx_t *e)
{
    if (!e)
        return;
    e->users--;
    mctx_put(e);
}

void mctx_foreach(void (*fn)(match_ctx_t *e, void *arg), void *arg)
{
    for (uint32_t c = 0; c < MCTX_CONTEXTS; c++) {
        match_ctx_t *e = atomic_load_explicit(&mctx_table[c], memory_order_acquire);
        if (e)
            fn(e, arg);
    }
    fn(&mctx_shared, arg);
}

static void close_one(match_ctx_t *e, void *arg)
{
    (void)arg;
    int users = e->users;
    uint32_t ctx = e->ctx;
    memset(e, 0, sizeof *e);
    e->users = users;
    e->ctx = ctx;
    mctx_put(e);
}

void mctx_close(void)
{
    mctx_foreach(close_one, NULL);
}
