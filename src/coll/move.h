/*
 * Building blocks of the data-movement collectives (bcast.c, gather.c, scatter.c,
 * allgather.c, alltoall.c): arrays of equal blocks, and the phases every one of them is made
 * of, run over a team (coll.h) so that the same code serves the whole communicator, the
 * members of one host and the host leaders.
 *
 * Invariants of every phase function (mv_*):
 *  - Team indices, never communicator ranks, are its arguments; messages go to
 *    coll_team_peer(t, index) over t->c.
 *  - Every member appends the messages of one pair (i -> j) in the same order as the other
 *    side appends the matching receives, with the same sizes; zero-byte pieces are skipped on
 *    both sides (the sizes are the same at both ends, so both skip).
 *  - It does not end with a fence: a local step (copy) waits for everything before it
 *    anyway, and a caller that sends or receives what a phase received fences first. (Inside
 *    a phase, a fence separates receiving from forwarding.)
 *  - Data: the packed stream of a p2p_data_t (typed or contiguous); what a member receives or
 *    sends is described at that member only, so layouts may differ between members as long
 *    as the type signatures (hence the byte counts) agree.
 */
#ifndef METAMPI_COLL_MOVE_H
#define METAMPI_COLL_MOVE_H

#include "coll/coll.h"
#include "coll/tune.h"

#include <stddef.h>

/* The predefined MPI_BYTE type (temporaries hold packed bytes). */
dtype_t *mv_byte(void);

/* coll_data() with the common case inline: a single-element predefined type is contiguous
 * from buf. */
static inline p2p_data_t mv_typed(const void *buf, size_t count, dtype_t *dt)
{
    if (dt->basic >= 0)
        return (p2p_data_t){ .buf = (void *)(uintptr_t)buf, .bytes = count * (size_t)dt->size,
                             .type = dt->handle };
    return coll_data(buf, count, dt);
}

/* An array of blocks: block i is `count` elements of dt at `base` + i * count extents. A
 * packed temporary of bb-byte blocks is { tmp, bb, mv_byte() }. */
typedef struct mv_blocks {
    void *base;
    size_t count;
    dtype_t *dt;
} mv_blocks_t;

/* Blocks i .. i+k-1 as one piece of data (consecutive blocks are one run of elements). */
static inline p2p_data_t mv_run(const mv_blocks_t *b, ptrdiff_t i, size_t k)
{
    char *at = (char *)b->base + i * (ptrdiff_t)b->count * (ptrdiff_t)coll_extent(b->dt);
    return mv_typed(at, k * b->count, b->dt);
}

static inline mv_blocks_t mv_bytes(void *base, size_t bb)
{
    return (mv_blocks_t){ base, bb, mv_byte() };
}

/* Contiguous bytes as data. */
static inline p2p_data_t mv_data(void *buf, size_t bytes)
{
    return (p2p_data_t){ .buf = buf, .bytes = bytes };
}

/* A message to / from team member idx, skipped when empty. */
static inline void mv_send(icoll_sched_t *s, const coll_team_t *t, int idx, const p2p_data_t *d)
{
    if (d->bytes)
        icoll_sched_send_data(s, t->c, coll_team_peer(t, idx), d);
}
static inline void mv_recv(icoll_sched_t *s, const coll_team_t *t, int idx, const p2p_data_t *d)
{
    if (d->bytes)
        icoll_sched_recv_data(s, t->c, coll_team_peer(t, idx), d);
}
static inline void mv_copy(icoll_sched_t *s, const p2p_data_t *from, const p2p_data_t *to)
{
    if (from->bytes)
        icoll_sched_copy_data(s, from, to);
}

/* Index of the highest set bit of x > 0, as a power of two. */
static inline int mv_top_bit(int x)
{
    int m = 1;
    while (m <= x / 2)
        m <<= 1;
    return m;
}
/* Members in the binomial subtree of relative index rel in a team of n (rel 0: n). */
static inline int mv_subtree(int rel, int n)
{
    if (rel == 0)
        return n;
    int low = rel & -rel;
    return low < n - rel ? low : n - rel;
}

/* Whether the hierarchical (host-aware) algorithms apply to intra-communicator c: it spans
 * more than one host and some host holds more than one member, and METAMPI_COLL_HIER is not
 * 0. *h is c's hierarchy (NULL only when out of memory: then the result is -1). */
int mv_use_hier(comm_t *c, const coll_hier_t **h);
/* Whether all of c's members share one host (its node team is the whole communicator);
 * -1 when out of memory. */
int mv_single_host(comm_t *c);
/* Whether the shared-memory exchange (allgather, alltoall) may serve c for operation kind: more
 * than one member, all on one host, of like architectures (a packed block reaches the others
 * unconverted), and no point-to-point algorithm forced for kind -- alike at every member. */
int mv_shm_exchange_ok(comm_t *c, comm_op_kind_t kind);
/* Whether every host's members are consecutive ranks (then host-major order is rank order). */
int mv_hier_ordered(const coll_hier_t *h, int n);
/* The first block of host k in host-major order (sum of the sizes of hosts before k). */
int mv_host_start(const coll_hier_t *h, int k);
/* Copies between a packed temporary of n bb-byte blocks in host-major order and the blocks
 * rb in rank order: tmp -> rb (pack 0) or rb -> tmp (pack 1); ranks consecutive in both
 * orders travel as one copy. */
void mv_hosts_copy(icoll_sched_t *s, const coll_hier_t *h, int n, char *tmp, size_t bb,
                   const mv_blocks_t *rb, int pack);

/* ---- broadcast (algorithms: algo/bcast.c; over hosts: level/hier.c) ------------------- */

enum { MV_BCAST_AUTO = -1, MV_BCAST_BINOMIAL, MV_BCAST_SCATTER_ALLGATHER, MV_BCAST_CHAIN };
/* The forced broadcast algorithm (METAMPI_COLL_BCAST), or MV_BCAST_AUTO. */
int mv_bcast_forced(void);
/* The algorithm the selection table (coll/table.c) gives bytes over a team of n (never
 * MV_BCAST_AUTO), and the name of the one mv_bcast_bytes runs for algo (for the trace). */
int mv_bcast_pick(int n, size_t bytes);
const char *mv_bcast_algo_name(int n, size_t bytes, int algo);
/* Binomial tree from team index root; d is every member's buffer (same bytes everywhere).
 * Member `skip` (-1: none) already holds the data: nobody sends it, it sends to its subtree.
 * A leaf's part is one receive. */
void mv_bcast_binomial(icoll_sched_t *s, const coll_team_t *t, int root, const p2p_data_t *d,
                       int skip);
/* Broadcast of contiguous bytes over the members of hierarchy h (the whole communicator, or
 * one site: coll_sites_t.local) from member index root: root -> its host's leader (shared
 * memory or a message), the leaders (algo), each leader to its host. MPI_SUCCESS or the error
 * class of a shared-memory step. */
int mv_bcast_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, void *buf, size_t bytes,
                  int root, int algo);
/* Broadcast of contiguous bytes over a team with algorithm algo (MV_BCAST_AUTO: the one for
 * the team's size and the message's). Point-to-point only. */
void mv_bcast_bytes(icoll_sched_t *s, const coll_team_t *t, int root, void *buf, size_t bytes,
                    int algo);

/* ---- gather / scatter of equal blocks (algo/gather.c, algo/scatter.c; level/hier.c) --- */

/* The algorithms of gather and scatter over a team (in the order of the selection table,
 * coll/table.c), and the one each runs for n members and bb-byte blocks (the forced one,
 * else the table's rules). */
enum { MV_ROOTED_BINOMIAL, MV_ROOTED_LINEAR };
int mv_gather_pick(int n, size_t bb);
int mv_scatter_pick(int n, size_t bb);

/* Gather of one bb-byte block per member to team index root. mine: this member's block
 * (NULL at the root when its block is already in place in out). out: at the root, the
 * blocks in team order (ignored elsewhere). */
void mv_gather_team(icoll_sched_t *s, const coll_team_t *t, int root, const p2p_data_t *mine,
                    const mv_blocks_t *out, size_t bb);
/* Scatter of bb-byte blocks from team index root. in: at the root, the blocks in team order;
 * mine: where this member's block goes (NULL at the root: leave it in place). */
void mv_scatter_team(icoll_sched_t *s, const coll_team_t *t, int root, const mv_blocks_t *in,
                     const p2p_data_t *mine, size_t bb);

/* The same over the members of hierarchy h (the whole communicator or one site) to / from
 * member index root: each host gathers at its local root (root on root's host, the leader
 * elsewhere), other hosts' leaders send / receive their host's blocks in one message. Blocks
 * (rb, sb) are indexed by member index; mine as above. */
void mv_gather_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const p2p_data_t *mine,
                    const mv_blocks_t *rb, size_t bb, int root);
void mv_scatter_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const mv_blocks_t *sb,
                     const p2p_data_t *mine, size_t bb, int root);

/* ---- allgather (allgather.c) ------------------------------------------------------------ */

/* A set of n blocks in team order: uniform (start NULL: block i is block i of b, and runs of
 * consecutive blocks travel as one message), or block i = start[i] .. start[i]+len[i]-1 of b
 * (each block its own message; the lengths must be the same at every member). */
typedef struct mv_set {
    mv_blocks_t b;
    const int *start, *len;
} mv_set_t;

enum { MV_AG_AUTO = -1, MV_AG_RECURSIVE_DOUBLING, MV_AG_BRUCK, MV_AG_RING };
/* Allgather over team t: every member's block (its index) is in set, except that `mine`
 * (NULL: already in place) holds this member's block and is copied into the set. */
void mv_allgather_set(icoll_sched_t *s, const coll_team_t *t, const mv_set_t *set,
                      const p2p_data_t *mine, int algo);
/* Bytes of block i of a set. */
size_t mv_set_bytes(const mv_set_t *set, int i);

#endif
