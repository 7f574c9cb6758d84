/*
 * What the collective layer caches on a communicator (comm_t.coll_cache): created on first
 * use by coll_cache_of(), freed with the communicator. Each part is owned by one module.
 */
#ifndef METAMPI_COLL_CACHE_H
#define METAMPI_COLL_CACHE_H

#include "coll/coll.h"

typedef struct coll_cache {
    struct hier_all *hier;        /* team.c: the host hierarchy and the site level */
    void *shm[2];                 /* shm/: the node's shared-memory collective area of each
                                   * stream (comm_stream_t), created on its first use */
    void (*shm_free)(void *shm);
} coll_cache_t;

/* c's cache, created empty on first call; NULL when out of memory. */
coll_cache_t *coll_cache_of(comm_t *c);

#endif
