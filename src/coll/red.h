/*
 * Building blocks of the synchronisation and reduction collectives (barrier.c, reduce.c,
 * allreduce.c, reduce_scatter.c, scan.c, red_inter.c): typed steps on element ranges, and
 * algorithms that run over a team (the whole communicator, the node or leaders team of the
 * host hierarchy, the local group of an inter-communicator), so each phase of a hierarchical
 * or inter-communicator collective is the same code as the flat one.
 *
 * Operand order. Every reduction here combines operands in an order fixed at build time from
 * the team size, the member's index and the count only, with the lower-indexed operand on the
 * left (op_apply's `in`): results are bitwise reproducible, identical at every member for the
 * all-to-all forms, and correct for non-commutative ops. The only exceptions are marked
 * "commutative only" (a rotated or ring order) and are never chosen for non-commutative ops.
 *
 * Buffers. `in` may be read-only (the user's send buffer); `out` is written only where the
 * collective defines a result (the root of a reduction). in == out means MPI_IN_PLACE.
 * Temporaries come from coll_temp (typed arrays with the type's extent), so derived types and
 * op_apply work on them exactly as on user buffers.
 */
#ifndef METAMPI_COLL_RED_H
#define METAMPI_COLL_RED_H

#include "coll/coll.h"
#include "coll/tune.h"

#include <stdint.h>

/* Element i of a dt array at buf, by integer arithmetic (buf may be MPI_BOTTOM). */
static inline void *red_at(const void *buf, size_t i, const dtype_t *dt)
{
    return (void *)((uintptr_t)buf + (uintptr_t)((ptrdiff_t)i * (ptrdiff_t)(dt->ub - dt->lb)));
}

/* ---- steps on element ranges [off, off + cnt) of typed arrays --------------------------
 * Each does nothing when cnt == 0: both sides of a message always know its count. */
void red_send(icoll_sched_t *s, const coll_team_t *t, int i, const void *buf, size_t off,
              size_t cnt, dtype_t *dt);
void red_recv(icoll_sched_t *s, const coll_team_t *t, int i, void *buf, size_t off, size_t cnt,
              dtype_t *dt);
/* dst[doff..] = src[soff..]; nothing when both are the same memory */
void red_copy(icoll_sched_t *s, const void *src, size_t soff, void *dst, size_t doff,
              size_t cnt, dtype_t *dt);
/* inout[off..] = in[off..] op inout[off..] */
void red_op(icoll_sched_t *s, op_t *op, const void *in, void *inout, size_t off, size_t cnt,
            dtype_t *dt);
/* A temporary of count elements (NULL when out of memory, recorded on s). */
static inline void *red_temp(icoll_sched_t *s, size_t count, dtype_t *dt)
{
    return coll_temp(s, count, dt);
}

/* ---- power-of-two folding --------------------------------------------------------------
 * The algorithms that need 2^k members fold the first 2*rem members in pairs (index 2j sends
 * its data to 2j+1, which combines x(2j) op x(2j+1)), leaving p2 active members whose order
 * is the team order: active j is member 2j+1 for j < rem, else j + rem. */
typedef struct red_fold {
    int p2, rem, steps; /* p2 = 2^steps <= n < 2^(steps+1) */
    int me;             /* team index */
    int nr;             /* my active index, or -1 (folded out: an even index < 2*rem) */
} red_fold_t;

red_fold_t red_fold(int n, int me);
static inline int red_fold_member(const red_fold_t *f, int nr)
{
    return nr < f->rem ? 2 * nr + 1 : nr + f->rem;
}

/* ---- team algorithms -------------------------------------------------------------------- */

/* Binomial tree reduction: out at member root = in(0) op ... op in(n-1). Non-commutative:
 * reduced at member 0 in team order, then forwarded to root; commutative: a tree rooted at
 * root (a rotated, fixed order). */
void red_reduce_binomial(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                         size_t count, dtype_t *dt, op_t *op, int root);
/* Reduce-scatter by recursive vector halving, then a binomial gather to root (Rabenseifner);
 * any op (team order). Needs count >= p2 to be worth it, works for any count. */
void red_reduce_rabenseifner(icoll_sched_t *s, const coll_team_t *t, const void *in,
                             void *out, size_t count, dtype_t *dt, op_t *op, int root);
/* Recursive doubling with folding: every member ends with the same bits. */
void red_allreduce_rd(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                      size_t count, dtype_t *dt, op_t *op);
/* Reduce-scatter by recursive vector halving + allgather by recursive doubling. */
void red_allreduce_rabenseifner(icoll_sched_t *s, const coll_team_t *t, const void *in,
                                void *out, size_t count, dtype_t *dt, op_t *op);
/* Ring reduce-scatter + ring allgather; commutative only. */
void red_allreduce_ring(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                        size_t count, dtype_t *dt, op_t *op);
/* Binomial broadcast of buf from member root. */
void red_bcast_binomial(icoll_sched_t *s, const coll_team_t *t, void *buf, size_t count,
                        dtype_t *dt, int root);

/* Reduce_scatter over a team (algo/reduce_scatter.c): member i of the team ends with block i
 * (elements displ[i] .. displ[i+1]-1 of the whole vector). Pairwise: all blocks at once,
 * combined in rank order (any op); halving: recursive halving, commutative only. */
typedef struct red_blocks {
    const size_t *cnt, *displ; /* n counts; n+1 displacements (displ[n] = total) */
} red_blocks_t;
void red_rs_pairwise(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     const red_blocks_t *b, dtype_t *dt, op_t *op);
void red_rs_halving(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                    const red_blocks_t *b, dtype_t *dt, op_t *op);

/* Scan (excl = 0) and Exscan (excl = 1) over a team (algo/scan.c): recursive doubling, or the
 * linear chain. Failures (no memory) are recorded on s. */
void red_scan_rd(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                 size_t count, dtype_t *dt, op_t *op, int excl);
void red_scan_linear(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     size_t count, dtype_t *dt, op_t *op, int excl);

/* Zero-byte synchronisation: fan-in to member 0 / fan-out from member 0 (binomial trees), and
 * the dissemination barrier. */
void red_fan_in(icoll_sched_t *s, const coll_team_t *t);
void red_fan_out(icoll_sched_t *s, const coll_team_t *t);
void red_dissemination(icoll_sched_t *s, const coll_team_t *t);

/* ---- algorithm choice ------------------------------------------------------------------- */

typedef enum { RED_AR_AUTO = -1, RED_AR_SHM, RED_AR_RD, RED_AR_RABENSEIFNER, RED_AR_RING } red_ar_alg_t;
typedef enum { RED_R_AUTO = -1, RED_R_SHM, RED_R_BINOMIAL, RED_R_RABENSEIFNER } red_r_alg_t;

/* Whether Barrier / Reduce / Allreduce on a communicator of n members tries the
 * shared-memory algorithm first (forced, or automatic unless n == 2: two members use
 * point-to-point, the same messages as the direct path; n = 0 for a node phase), and which
 * point-to-point algorithm their tables choose (a forced one counts; forced shm counts as
 * automatic). */
int red_barrier_shm(int n);
int red_reduce_shm(int n);
int red_reduce_choice(int n, size_t count, const dtype_t *dt);
int red_allreduce_shm(int n);
int red_allreduce_choice(int n, size_t count, const dtype_t *dt, const op_t *op);

/* The blocking calls between the two members of an intra-communicator, without a schedule
 * (red_direct.c): MPI_SUCCESS or an error class, or COLL_DECLINED (nothing done, no
 * collective sequence number taken: use the schedule). */
int red_direct_barrier(comm_t *c);
int red_direct_reduce(comm_t *c, const void *sbuf, void *rbuf, size_t count, dtype_t *dt,
                      op_t *op, int root);
int red_direct_allreduce(comm_t *c, const void *sbuf, void *rbuf, size_t count, dtype_t *dt,
                         op_t *op);
/* excl: Exscan */
int red_direct_scan(comm_t *c, const void *sbuf, void *rbuf, size_t count, dtype_t *dt,
                    op_t *op, int excl);

/* The point-to-point allreduce / reduce over a team chosen by size (tune tables in
 * allreduce.c / reduce.c). */
void red_allreduce_team(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                        size_t count, dtype_t *dt, op_t *op);
void red_reduce_team(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     size_t count, dtype_t *dt, op_t *op, int root);

/* Hierarchical allreduce of an intra-communicator (h = red_hier(c, op)): node reduce to each
 * host's leader, allreduce among the leaders; with bcast, then a broadcast within each host
 * (otherwise the result is only at the leaders, in out). These two return MPI_SUCCESS or the
 * error class of a shared-memory step that failed to set up. */
int red_allreduce_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const void *in,
                        void *out, size_t count, dtype_t *dt, op_t *op, int bcast);
/* Reduction over the members of hierarchy h (the whole communicator, or one site) to member
 * index root: node reductions to each host's representative (root on its host, the leader
 * elsewhere), then among the representatives. Keeps rank order only when h's hosts hold
 * consecutive members (the caller's test). */
int red_reduce_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const void *in,
                    void *out, size_t count, dtype_t *dt, op_t *op, int root);
/* Node phase: out at node member root = reduction of in over the host (shared memory when
 * shm is set and it accepts, else point to point). */
int red_node_reduce(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const void *in,
                     void *out, size_t count, dtype_t *dt, op_t *op, int root, int shm);

/* Inter-communicator forms (red_inter.c), MPI-3.1 §5.2.2: every member of both groups calls
 * them. reduce: root is MPI_ROOT, MPI_PROC_NULL or a rank of the remote group. reduce_scatter:
 * cnts (local group size entries) says how the other group's reduction is scattered here. */
void red_inter_barrier(icoll_sched_t *s, comm_t *c);
void red_inter_reduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                      dtype_t *dt, op_t *op, int root);
void red_inter_allreduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                         dtype_t *dt, op_t *op);
void red_inter_reduce_scatter(icoll_sched_t *s, comm_t *c, const void *in, void *out,
                              const size_t *cnts, dtype_t *dt, op_t *op);

/* The host hierarchy of intra-communicator c when a reduction should run through it: more
 * than one host, fewer hosts than ranks, and op commutative or every host's ranks one
 * contiguous range (so host order keeps rank order); never with METAMPI_COLL_HIER=0. NULL:
 * run flat. */
const coll_hier_t *red_hier(comm_t *c, const op_t *op);

/* For the shared-memory algorithms: whether count elements of dt at buf are contiguous, and
 * then their address (*addr, shifted by true_lb). */
int red_contig(const void *buf, size_t count, dtype_t *dt, void **addr);

#endif
