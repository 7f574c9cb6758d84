/*
 * Site-aware collectives: the third level of the hierarchy (docs/collectives.md,
 * "Collectives across sites"). A collective over members at several sites runs as
 *   phases within each site (over coll_sites_t.local: hosts, shared memory)
 *   -> one exchange among the site leaders or the root (the WAN)
 *   -> phases within each site,
 * so that each call moves its data across each WAN link (an ordered pair of sites) at most
 * once in each direction: one message per link and direction, except where a table in the
 * architecture document says otherwise (large allreduces over more than two sites: two
 * messages of 1/S of the vector each).
 *
 * Invariants:
 *  - Used when the communicator spans more than one site and has at least three members
 *    (two members already exchange at most one message each way), unless METAMPI_COLL_HIER=0
 *    or METAMPI_COLL_SITES=0. With one site nothing here runs: single-site jobs keep the
 *    two-level algorithms unchanged.
 *  - Every member decides alone, from the site map (the same everywhere) and the arguments
 *    MPI requires to be consistent, so all members run the same phases.
 *  - Reductions combine the sites' partial results in site order (sites numbered by lowest
 *    rank) with the lower sites on the left, and each site's partial in its hierarchy's rank
 *    order: rank order, hence right for non-commutative ops, whenever every site holds
 *    consecutive ranks (coll_sites_t.ordered); otherwise non-commutative reductions do not
 *    come here (red_sites). The order depends only on the communicator and the count, so
 *    results are the same bits on every run and (allreduce) at every member.
 *  - One tag serves all phases: a pair of processes meets in one phase, or in phases both
 *    sides append in the same order (a member and its site leader: the member's own
 *    messages first, then what the leader forwards).
 */
#ifndef METAMPI_COLL_SITES_H
#define METAMPI_COLL_SITES_H

#include "coll/coll.h"

/* c's site level when the site-aware algorithms apply to it (see above), else NULL (also when
 * out of memory: the caller's own path reports that). */
const coll_sites_t *coll_use_sites(comm_t *c);
/* The same for a reduction with op: NULL also when op is not commutative and the sites do not
 * hold consecutive ranks. */
const coll_sites_t *red_sites(comm_t *c, const op_t *op);

/* A message between two sites: contiguous bytes cut into pieces of at most site_segment()
 * bytes (METAMPI_COLL_SITES_SEGMENT, 32 KiB: within the protocol's eager limit, so no piece
 * waits for a rendezvous handshake across the WAN), posted together. Both ends cut alike (they
 * agree on the size); 0 bytes is one empty message. */
size_t site_segment(void);
void site_wan_send(icoll_sched_t *s, comm_t *c, int peer, const void *buf, size_t bytes);
void site_wan_recv(icoll_sched_t *s, comm_t *c, int peer, void *buf, size_t bytes);

/* Whether alltoall with blocks of bb bytes combines each site pair's blocks (the largest such
 * message is at most METAMPI_COLL_SITES_ALLTOALL_MAX, 1 MiB); otherwise every rank pair
 * exchanges directly (still once per pair). */
int site_alltoall_combines(const coll_sites_t *S, size_t bb);

/* The collectives over several sites (the same arguments as the coll_* builders, checked;
 * intra-communicators; return MPI_SUCCESS or an error class). Bcast takes contiguous bytes
 * (coll_bcast packs a non-contiguous layout). mine: NULL for MPI_IN_PLACE. */
int site_barrier(icoll_sched_t *s, comm_t *c, const coll_sites_t *S);
int site_bcast(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, void *buf, size_t bytes,
               int root);
int site_gather(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const p2p_data_t *mine,
                void *rbuf, size_t rcount, dtype_t *rtype, size_t bb, int root);
int site_scatter(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *sbuf,
                 size_t scount, dtype_t *stype, const p2p_data_t *mine, size_t bb, int root);
int site_gatherv(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const p2p_data_t *mine,
                 void *rbuf, const int *rcounts, const int *displs, dtype_t *rtype, int root);
int site_scatterv(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *sbuf,
                  const int *scounts, const int *displs, dtype_t *stype,
                  const p2p_data_t *mine, int root);
int site_allgather(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const p2p_data_t *mine,
                   void *rbuf, size_t rcount, dtype_t *rtype);
int site_allgatherv(icoll_sched_t *s, comm_t *c, const coll_sites_t *S,
                    const p2p_data_t *mine, void *rbuf, const int *rcounts, const int *displs,
                    dtype_t *rtype);
int site_reduce(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *in, void *out,
                size_t count, dtype_t *dt, op_t *op, int root);
/* bcast 0: the result only at every host's leader, in out (reduce_scatter.c). */
int site_allreduce(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const void *in,
                   void *out, size_t count, dtype_t *dt, op_t *op, int bcast);

/* Alltoall(v,w) across sites (site_alltoall.c): pairs within a site exchange directly; what
 * a site's members send to another site's travels as one message between the two site
 * leaders (gathered at the sending leader, split at the receiving one). The sides are the
 * blocks of alltoall.c (side_t), described by blk: block i is what goes to / comes from rank
 * i. srun / rrun: the side as an array of equal blocks (runs of consecutive ranks travel
 * straight from / into it), or NULL. uniform: every block of the operation has one size
 * (MPI_Alltoall), which every member then knows. */
struct side;
struct mv_blocks;
typedef p2p_data_t (*site_block_fn)(const struct side *x, int i);
int site_alltoall(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, const struct side *sd,
                  const struct side *rd, site_block_fn blk, const struct mv_blocks *srun,
                  const struct mv_blocks *rrun, int uniform);

/* A neighbourhood collective's messages across sites (site_neighbor.c): the blocks of this
 * process (snd[k] to dsts[k], rcv[l] from srcs[l]; MPI_PROC_NULL skipped; cart: the Cartesian
 * pairing of neighbor.c) to and from neighbours at other sites travel in one combined message
 * per pair of sites, between the site leaders; neighbours at this site exchange directly.
 * Blocks to self are left to the caller (local copies, appended after this). */
int site_neighbor(icoll_sched_t *s, comm_t *c, const coll_sites_t *S, int indeg,
                  const int *srcs, const p2p_data_t *rcv, int outdeg, const int *dsts,
                  const p2p_data_t *snd, int cart);

#endif
