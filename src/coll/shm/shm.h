/*
 * Shared-memory collective algorithms within one host: they act on the node team of c's
 * hierarchy (coll_hier(c)->node; the whole communicator when it lives on one host) through a
 * shared area mapped by every member of that team, instead of messages.
 *
 * Each function appends its steps to schedule s and returns MPI_SUCCESS, an error class, or
 * COLL_DECLINED when it cannot serve this call (no area could be set up, the data does not
 * suit it, the algorithm is switched off): then it appended nothing and the caller uses its
 * point-to-point algorithm. Whether it declines depends only on arguments that are the same
 * at every member of the node team (sizes, op, root), so the team never disagrees.
 *
 * Data is contiguous: bytes at buf, or count elements of a type whose layout is contiguous
 * (buf already shifted by true_lb). root is an index in the node team.
 */
#ifndef METAMPI_COLL_SHM_H
#define METAMPI_COLL_SHM_H

#include "coll/coll.h"


int coll_shm_barrier(icoll_sched_t *s, comm_t *c);
int coll_shm_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t bytes, int root);
/* Whether coll_shm_bcast would serve a broadcast of bytes in s (setting the area up as it
 * would), without appending anything: so that a caller can prepare the data first. */
int coll_shm_bcast_takes(icoll_sched_t *s, comm_t *c, size_t bytes);
/* Whether a broadcast of bytes in a team of two is worth the area at any size: both members
 * copy at once by remote access (cma.c), which beats one message's single copier. Knobs only,
 * so every member answers alike. */
int coll_shm_bcast_pair(size_t bytes);
/* out (at root only; at other members it may be NULL) = in[0] op in[1] op ... in rank order
 * of the node team; in == out is allowed (MPI_IN_PLACE at the root). */
int coll_shm_reduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                    dtype_t *dt, op_t *op, int root);
int coll_shm_allreduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                       dtype_t *dt, op_t *op);
/* Allgather and alltoall of bb-byte blocks over the node team, which must be the whole
 * communicator (one host): `in` holds my block (allgather) or my n blocks in rank order
 * (alltoall), `out` receives n blocks in rank order. Allgather: in may be my block of out
 * (MPI_IN_PLACE); alltoall: in and out must not overlap. Small blocks only (the _takes
 * functions say whether the call is served, setting the area up as the call would). */
int coll_shm_allgather_takes(icoll_sched_t *s, comm_t *c, size_t bb);
int coll_shm_allgather(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t bb);
int coll_shm_alltoall_takes(icoll_sched_t *s, comm_t *c, size_t bb);
int coll_shm_alltoall(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t bb);

#endif
