/*
 * The context ids free at this process: a bitmask of pairs (recv_ctx = 2p even, 2p + 1 the
 * internal partner; comm.h). Pairs 0 and 1 are MPI_COMM_WORLD's and MPI_COMM_SELF's and are
 * never free. The agreement that finds a pair free at every member is core/ctxid.h; the pool
 * is apart from it so that destroying a communicator (comm.c) returns its pair without
 * depending on the collectives the agreement runs.
 */
#ifndef METAMPI_CTXID_POOL_H
#define METAMPI_CTXID_POOL_H

#include <stdint.h>

#define CTXID_PAIRS 16384   /* recv_ctx < 2 * CTXID_PAIRS; METAMPI_CONTEXT_IDS may lower it */
#define CTXID_WORDS (CTXID_PAIRS / 64)

/* Frees every pair but the predefined ones (METAMPI_CONTEXT_IDS: how many pairs exist). */
void ctxid_pool_init(void);
/* The free mask: bit p set = pair p is free at this process. */
extern uint64_t ctxid_free_mask[CTXID_WORDS];
static inline int ctxid_pool_is_free(int p)
{
    return (ctxid_free_mask[p / 64] >> (p % 64)) & 1;
}
/* Takes pair p (an agreement committed it). */
static inline void ctxid_pool_take(int p)
{
    ctxid_free_mask[p / 64] &= ~(1ull << (p % 64));
}
/* Returns recv_ctx (and its internal partner) to the free pool. */
void ctxid_release(uint32_t ctx);

#endif
