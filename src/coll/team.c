#include "coll/cache.h"

#include "core/p2p.h"

#include <stdlib.h>

/* The host of a job rank as the collective algorithms see it. METAMPI_COLL_VIRTUAL_HOSTS=k
 * (a testing knob) makes them treat the job as k hosts of consecutive world ranks, so that
 * the hierarchical algorithms run — over the real transports — on a single machine. */
static int host_of_world(int world_rank)
{
    static int virtual_hosts = -1;
    if (virtual_hosts < 0) {
        const char *v = getenv("METAMPI_COLL_VIRTUAL_HOSTS");
        virtual_hosts = v && *v ? atoi(v) : 0;
        if (virtual_hosts < 0)
            virtual_hosts = 0;
    }
    if (virtual_hosts > 0) {
        int size = comm_lookup(MPI_COMM_WORLD)->size;
        return (int)((long long)world_rank * virtual_hosts / size);
    }
    return p2p_host_of(world_rank);
}

static void cache_free(void *p)
{
    coll_cache_t *cc = p;
    if (cc->shm_free)
        cc->shm_free(cc->shm);
    free(cc->hier);
    free(cc);
}

coll_cache_t *coll_cache_of(comm_t *c)
{
    if (!c->coll_cache) {
        coll_cache_t *cc = calloc(1, sizeof *cc);
        if (!cc)
            return NULL;
        c->coll_cache = cc;
        c->coll_cache_free = cache_free;
    }
    return c->coll_cache;
}

coll_team_t coll_team_all(comm_t *c)
{
    return (coll_team_t){ .c = c, .size = c->size, .rank = c->rank, .ranks = NULL };
}

/* One allocation: the struct, then ranks of the node team, leaders, host_of, node_rank,
 * node_size (all int arrays of at most n entries). */
static coll_hier_t *build(comm_t *c)
{
    int n = c->size;
    coll_hier_t *h = calloc(1, sizeof *h + 5 * (size_t)n * sizeof(int));
    if (!h)
        return NULL;
    int *node = (int *)(h + 1), *leaders = node + n, *host_of = leaders + n,
        *node_rank = host_of + n, *node_size = node_rank + n;
    /* hosts in order of their lowest rank: rank r's host is new when no lower rank shares it */
    int nhosts = 0;
    for (int r = 0; r < n; r++) {
        int hr = host_of_world(comm_peer_world_rank(c, r)), found = -1;
        for (int k = 0; k < nhosts && found < 0; k++)
            if (host_of_world(comm_peer_world_rank(c, leaders[k])) == hr)
                found = k;
        if (found < 0) {
            found = nhosts++;
            leaders[found] = r;
            node_size[found] = 0;
        }
        host_of[r] = found;
        node_rank[r] = node_size[found]++;
    }
    int mine = host_of[c->rank], nn = 0;
    for (int r = 0; r < n; r++)
        if (host_of[r] == mine)
            node[nn++] = r;
    h->nhosts = nhosts;
    h->node = (coll_team_t){ .c = c, .size = nn, .rank = node_rank[c->rank],
                             .ranks = nn == n ? NULL : node };
    h->leaders = (coll_team_t){ .c = c, .size = nhosts,
                                .rank = node_rank[c->rank] == 0 ? mine : -1,
                                .ranks = leaders };
    h->host_of = host_of;
    h->node_rank = node_rank;
    h->node_size = node_size;
    return h;
}

const coll_hier_t *coll_hier(comm_t *c)
{
    coll_cache_t *cc = coll_cache_of(c);
    if (!cc)
        return NULL;
    if (!cc->hier)
        cc->hier = build(c);
    return cc->hier;
}
