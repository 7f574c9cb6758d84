/*
 * Collective operations (MPI-3.1 chapter 5 and §7.6). Each collective is a family of levels
 * (coll/level.h) of which the first that takes a call appends the whole operation to a
 * schedule (core/schedule.h); the API layer runs that schedule to completion (blocking call)
 * or starts it and hands back a request (the I-forms), so both forms share one
 * implementation and nonblocking collectives are advanced by the progress engine.
 *
 * Conventions of every level's build and coll_* builder:
 *  - Arguments are already checked and handles translated (src/api/coll_api.h). Counts are
 *    elements of the given type; types are committed dtype_t objects (predefined ones too).
 *  - MPI_IN_PLACE arrives as COLL_IN_PLACE in the send buffer argument.
 *  - The builder holds (icoll_sched_hold_dtype/hold_op) every type and op it uses, allocates
 *    temporaries with icoll_sched_alloc (or coll_temp), and reads count/displacement arrays
 *    while building only: what a later step needs it copies into schedule memory.
 *  - It returns MPI_SUCCESS or an error class (no memory); schedule errors recorded on the
 *    schedule (icoll_sched_failed) are reported when it runs.
 *  - Messages travel on the communicator's internal context with the schedule's tag, so they
 *    never match user point-to-point traffic, and concurrent collectives on one communicator
 *    are kept apart by their tags (every member starts collectives in the same order).
 *  - c may be an inter-communicator where MPI defines the collective on one (§5.2.2); then
 *    root is MPI_ROOT, MPI_PROC_NULL or a rank of the remote group.
 *  - The algorithm is chosen by coll/tune.h from message size, rank count and layout; the
 *    choice must be the same at every member (it may only depend on arguments that MPI
 *    requires to be consistent: counts and type signatures at every rank, root, op).
 *
 * Hierarchy (teams): a team is an ordered subset of a communicator's ranks that runs one phase
 * of an algorithm, its messages addressed by communicator rank. coll_hier() splits an
 * intra-communicator by host: the node team (members on this host) and the leaders team (the
 * lowest rank on each host). A collective over several hosts runs as phases: within each host
 * (node team, shared memory) -> among the leaders -> within each host. Within one schedule the
 * messages of the phases never share a pair of processes in conflicting order (two leaders are
 * never on one host), so one tag serves all phases.
 * coll_sites() adds the level above: the members of each site, the site leaders (lowest rank
 * of each site), and the host hierarchy of this process's site alone (coll_sites_t.local,
 * whose member indices are indices in the site). A collective over several sites runs as
 * phases within each site (over that local hierarchy) -> among the site leaders (the WAN) ->
 * within each site (coll/sites.h).
 */
#ifndef METAMPI_COLL_COLL_H
#define METAMPI_COLL_COLL_H

#include "coll/level.h"
#include "core/schedule.h"
#include "core/comm.h"
#include "core/op.h"
#include "core/p2p.h"
#include "datatype/dtype.h"

#include <stddef.h>
#include <stdint.h>

/* MPI_IN_PLACE as the builders see it */
#define COLL_IN_PLACE ((const void *)MPI_IN_PLACE)

/* ---- typed buffers ----------------------------------------------------------------------- */

static inline size_t coll_extent(const dtype_t *dt)
{
    return (size_t)(dt->ub - dt->lb);
}
/* Address of element i of an array of dt at buf (may be negative offsets for negative lb
 * only through the type itself; extents are positive for the buffers MPI collectives take). */
static inline void *coll_at(const void *buf, size_t i, const dtype_t *dt)
{
    return (char *)(uintptr_t)buf + (ptrdiff_t)i * (ptrdiff_t)(dt->ub - dt->lb);
}
/* The p2p description of count elements of dt at buf: contiguous (buf + true_lb, bytes) when
 * the layout is contiguous for count, else the layout (dtype field set, not referenced). */
p2p_data_t coll_data(const void *buf, size_t count, dtype_t *dt);
/* A contiguous temporary able to hold count elements of dt as an array (extent-based, with
 * room for a negative true_lb): returns the base address to use as buf, i.e. already shifted
 * by -true_lb. NULL when out of memory (recorded on s). */
void *coll_temp(icoll_sched_t *s, size_t count, dtype_t *dt);

/* ---- teams and hierarchy ------------------------------------------------------------------ */

typedef struct coll_team {
    comm_t *c;        /* messages go over c, addressed by c's ranks */
    int size, rank;   /* team size and this process's index in it (-1: not a member) */
    const int *ranks; /* team index -> rank in c; NULL: the identity (the whole communicator) */
} coll_team_t;

static inline int coll_team_peer(const coll_team_t *t, int i)
{
    return t->ranks ? t->ranks[i] : i;
}
/* The whole (intra-)communicator as a team. */
coll_team_t coll_team_all(comm_t *c);

typedef struct coll_hier {
    coll_team_t all;        /* the members it covers: the whole communicator, or one site's
                             * members (coll_sites_t.local); "member index" below is the index
                             * in this team, which is the rank for the whole communicator */
    int nhosts;             /* distinct hosts among the members */
    coll_team_t node;       /* the members on this host, in rank order (node.rank: my index) */
    coll_team_t leaders;    /* the lowest rank of each host, hosts ordered by that rank
                             * (leaders.rank: my index, or -1 when I am not a leader) */
    const int *host_of;     /* member index -> index of its host in leaders order */
    const int *node_rank;   /* member index -> its index within its host's node team */
    const int *node_size;   /* host index -> members on that host */
    const int *host_first;  /* host index -> member index of its leader */
} coll_hier_t;

/* The hierarchy of intra-communicator c, computed on first use from the job's host and site
 * maps (no communication) and cached on c; NULL when out of memory. A "host" here is one host
 * at one site (the pair), so hosts always nest in sites even under METAMPI_VIRTUAL_SITES. */
const coll_hier_t *coll_hier(comm_t *c);

/* The site level above the hosts (runtime/sites.h): sites are numbered in order of their
 * lowest rank, and each site's members in rank order. */
typedef struct coll_sites {
    int nsites;             /* distinct sites among the members */
    coll_team_t leaders;    /* the lowest rank of each site (leaders.rank: my site, or -1) */
    int site;               /* my site */
    const int *site_of;     /* rank -> site */
    const int *site_index;  /* rank -> index among its site's members */
    const int *site_size;   /* site -> members */
    const int *site_start;  /* site -> first entry of its members in site_ranks (nsites + 1
                             * entries: site_start[nsites] is the size) */
    const int *site_ranks;  /* the members site by site, each site's in rank order */
    const int *contiguous;  /* site -> whether its members are consecutive ranks */
    int ordered;            /* site_ranks is 0, 1, ..., n-1 */
    coll_hier_t local;      /* my site's hosts: local.all is my site's members */
    int local_ordered;      /* every site's hosts hold consecutive ranks of that site (host
                             * order keeps rank order within each site) */
} coll_sites_t;

/* The site level of intra-communicator c (cached with coll_hier); NULL when out of memory.
 * When all members are at one site only nsites (1) is set: no memory is spent on the rest. */
const coll_sites_t *coll_sites(comm_t *c);

/* ---- the collectives ----------------------------------------------------------------------- *
 * The entry points are the families of coll/level.h (coll_start); these build into an existing
 * schedule: a broadcast as a phase of another collective (through the dispatcher) ... */

int coll_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t count, dtype_t *dt, int root);

/* ... and the neighbourhood collectives (§7.6), whose blocks they prepare before asking the
 * dispatcher for the sites or p2p level, on a communicator with a Cartesian, graph or distributed
 * graph topology; neighbours in the order of MPI_Cart_shift / MPI_Graph_neighbors /
 * MPI_Dist_graph_neighbors, MPI_PROC_NULL neighbours skipped (their blocks untouched). */
int coll_neighbor_allgather(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                            dtype_t *stype, void *rbuf, size_t rcount, dtype_t *rtype);
int coll_neighbor_allgatherv(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                             dtype_t *stype, void *rbuf, const int *rcounts, const int *displs,
                             dtype_t *rtype);
int coll_neighbor_alltoall(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                           dtype_t *stype, void *rbuf, size_t rcount, dtype_t *rtype);
int coll_neighbor_alltoallv(icoll_sched_t *s, comm_t *c, const void *sbuf, const int *scounts,
                            const int *sdispls, dtype_t *stype, void *rbuf, const int *rcounts,
                            const int *rdispls, dtype_t *rtype);
int coll_neighbor_alltoallw(icoll_sched_t *s, comm_t *c, const void *sbuf, const int *scounts,
                            const MPI_Aint *sdispls, dtype_t *const *stypes, void *rbuf,
                            const int *rcounts, const MPI_Aint *rdispls,
                            dtype_t *const *rtypes);

#endif
