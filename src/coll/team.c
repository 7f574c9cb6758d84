#include "coll/cache.h"

#include "core/p2p.h"
#include "runtime/tunables.h"

#include <stdlib.h>

/* The host of a job rank as the collective algorithms see it. METAMPI_COLL_VIRTUAL_HOSTS=k
 * (a testing knob) makes them treat the job as k hosts of consecutive world ranks, so that
 * the hierarchical algorithms run — over the real transports — on a single machine. */
static int host_of_world(int world_rank)
{
    int virtual_hosts = tun_int(TUN_COLL_VIRTUAL_HOSTS);
    if (virtual_hosts > 0) {
        int size = comm_lookup(MPI_COMM_WORLD)->size;
        return (int)((long long)world_rank * virtual_hosts / size);
    }
    return p2p_host_of(world_rank);
}

static void cache_free(void *p)
{
    coll_cache_t *cc = p;
    if (cc->shm_free) {
        cc->shm_free(cc->shm[COMM_BLOCKING]);
        cc->shm_free(cc->shm[COMM_NONBLOCKING]);
    }
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

/* Everything cached for one communicator: the host hierarchy and the site level. */
typedef struct hier_all {
    coll_hier_t hier;
    coll_sites_t sites;
} hier_all_t;

/* int arrays of n (+1) entries: the host hierarchy's, and the site level's (only when the
 * members span more than one site: a one-site communicator pays nothing for it) */
enum { HOST_INTS = 6, SITE_INTS = 12 };

/* One allocation: the structs, then the int arrays. */
static hier_all_t *build(comm_t *c)
{
    int n = c->size, me = c->rank;
    int *tmp = malloc(3 * (size_t)n * sizeof *tmp);
    if (!tmp)
        return NULL;
    int *whost = tmp, *wsite = tmp + n, *local_host = tmp + 2 * n, multi = 0, parts = 0;
    for (int r = 0; r < n; r++)
        parts |= p2p_other_part(comm_peer_world_rank(c, r));
    for (int r = 0; r < n; r++) {
        int w = comm_peer_world_rank(c, r);
        /* Members of several parts of the job (spawned, docs/dynproc.md): each member sees
         * only its own part's hosts, so all of them see every member on a host of its own
         * and choose the same algorithms. */
        whost[r] = parts ? r : host_of_world(w);
        wsite[r] = p2p_site_of(w);
        multi |= wsite[r] != wsite[0];
    }
    size_t ints = (HOST_INTS + (multi ? SITE_INTS : 0)) * (size_t)n + 1;
    hier_all_t *a = calloc(1, sizeof *a + ints * sizeof(int));
    if (!a) {
        free(tmp);
        return NULL;
    }
    int *p = (int *)(a + 1);
#define TAKE(k) (p += (k), p - (k))
    int *node = TAKE(n), *leaders = TAKE(n), *host_of = TAKE(n), *node_rank = TAKE(n),
        *node_size = TAKE(n), *host_first = TAKE(n);
    /* hosts (a host at a site), in order of their lowest rank: rank r's host is new when no
     * lower rank shares it */
    int nhosts = 0;
    for (int r = 0; r < n; r++) {
        int found = -1;
        for (int k = 0; k < nhosts && found < 0; k++)
            if (whost[leaders[k]] == whost[r] && wsite[leaders[k]] == wsite[r])
                found = k;
        if (found < 0) {
            found = nhosts++;
            leaders[found] = r;
            node_size[found] = 0;
        }
        host_of[r] = found;
        node_rank[r] = node_size[found]++;
    }
    int mine = host_of[me], nn = 0;
    for (int r = 0; r < n; r++)
        if (host_of[r] == mine)
            node[nn++] = r;
    for (int k = 0; k < nhosts; k++)
        host_first[k] = leaders[k];
    coll_hier_t *h = &a->hier;
    h->all = coll_team_all(c);
    h->nhosts = nhosts;
    h->node = (coll_team_t){ .c = c, .size = nn, .rank = node_rank[me],
                             .ranks = nn == n ? NULL : node };
    h->leaders = (coll_team_t){ .c = c, .size = nhosts,
                                .rank = node_rank[me] == 0 ? mine : -1, .ranks = leaders };
    h->host_of = host_of;
    h->node_rank = node_rank;
    h->node_size = node_size;
    h->host_first = host_first;
    coll_sites_t *S = &a->sites;
    S->nsites = 1;
    if (!multi) {
        free(tmp);
        return a;
    }

    /* the site level: sites in order of their lowest rank */
    int *sleaders = TAKE(n), *site_of = TAKE(n), *site_index = TAKE(n), *site_size = TAKE(n),
        *site_start = TAKE(n + 1), *site_ranks = TAKE(n), *contiguous = TAKE(n);
    int *l_host_of = TAKE(n), *l_node_rank = TAKE(n), *l_node_size = TAKE(n),
        *l_host_first = TAKE(n), *l_leaders = TAKE(n);
#undef TAKE
    int nsites = 0;
    for (int r = 0; r < n; r++) {
        int found = -1;
        for (int k = 0; k < nsites && found < 0; k++)
            if (wsite[sleaders[k]] == wsite[r])
                found = k;
        if (found < 0) {
            found = nsites++;
            sleaders[found] = r;
            site_size[found] = 0;
        }
        site_of[r] = found;
        site_index[r] = site_size[found]++;
    }
    site_start[0] = 0;
    for (int t = 0; t < nsites; t++)
        site_start[t + 1] = site_start[t] + site_size[t];
    for (int r = 0; r < n; r++)
        site_ranks[site_start[site_of[r]] + site_index[r]] = r;
    S->ordered = 1;
    S->local_ordered = 1;
    for (int t = 0; t < nsites; t++) {
        const int *m = site_ranks + site_start[t];
        contiguous[t] = 1;
        for (int i = 1; i < site_size[t]; i++) {
            contiguous[t] &= m[i] == m[i - 1] + 1;
            S->local_ordered &= host_of[m[i]] >= host_of[m[i - 1]];
        }
        S->ordered &= contiguous[t] && m[0] == site_start[t];
    }
    int my = site_of[me];
    S->nsites = nsites;
    S->site = my;
    S->leaders = (coll_team_t){ .c = c, .size = nsites,
                                .rank = site_index[me] == 0 ? my : -1, .ranks = sleaders };
    S->site_of = site_of;
    S->site_index = site_index;
    S->site_size = site_size;
    S->site_start = site_start;
    S->site_ranks = site_ranks;
    S->contiguous = contiguous;

    /* my site's hosts, numbered in the order of the whole communicator's (lowest rank) */
    coll_hier_t *l = &S->local;
    int m = site_size[my], nl = 0;
    const int *members = site_ranks + site_start[my];
    for (int k = 0; k < nhosts; k++) {
        local_host[k] = -1;
        if (site_of[leaders[k]] != my)
            continue;
        local_host[k] = nl;
        l_host_first[nl] = site_index[leaders[k]];
        l_node_size[nl] = node_size[k];
        l_leaders[nl++] = leaders[k];
    }
    for (int i = 0; i < m; i++) {
        l_host_of[i] = local_host[host_of[members[i]]];
        l_node_rank[i] = node_rank[members[i]];
    }
    l->all = (coll_team_t){ .c = c, .size = m, .rank = site_index[me],
                            .ranks = m == n ? NULL : members };
    l->nhosts = nl;
    l->node = h->node;
    l->leaders = (coll_team_t){ .c = c, .size = nl,
                                .rank = node_rank[me] == 0 ? local_host[mine] : -1,
                                .ranks = l_leaders };
    l->host_of = l_host_of;
    l->node_rank = l_node_rank;
    l->node_size = l_node_size;
    l->host_first = l_host_first;
    free(tmp);
    return a;
}

static hier_all_t *get(comm_t *c)
{
    coll_cache_t *cc = coll_cache_of(c);
    if (!cc)
        return NULL;
    if (!cc->hier)
        cc->hier = build(c);
    return cc->hier;
}

const coll_hier_t *coll_hier(comm_t *c)
{
    hier_all_t *a = get(c);
    return a ? &a->hier : NULL;
}

const coll_sites_t *coll_sites(comm_t *c)
{
    hier_all_t *a = get(c);
    return a ? &a->sites : NULL;
}
