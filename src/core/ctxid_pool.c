/* The pool of context ids free at this process (ctxid_pool.h). */
#include "core/ctxid_pool.h"

#include "runtime/tunables.h"

#include <string.h>

enum { PREDEFINED_PAIRS = 2 };

uint64_t ctxid_free_mask[CTXID_WORDS];

void ctxid_pool_init(void)
{
    /* METAMPI_CONTEXT_IDS: the size of the pool (tests use a small one to force conflicts
     * between concurrent agreements and exhaustion) */
    int pairs = tun_int(TUN_CONTEXT_IDS);
    /* the registry's bounds are these (tests/unit/test_tunables.c); the mask never overflows */
    pairs = pairs < PREDEFINED_PAIRS + 1 ? PREDEFINED_PAIRS + 1
          : pairs > CTXID_PAIRS          ? CTXID_PAIRS
                                         : pairs;
    memset(ctxid_free_mask, 0, sizeof ctxid_free_mask);
    for (int p = PREDEFINED_PAIRS; p < pairs; p++)
        ctxid_free_mask[p / 64] |= 1ull << (p % 64);
}

void ctxid_release(uint32_t ctx)
{
    uint32_t p = ctx / 2;
    if (p >= PREDEFINED_PAIRS && p < CTXID_PAIRS)
        ctxid_free_mask[p / 64] |= 1ull << (p % 64);
}
