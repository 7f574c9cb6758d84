/*
 * The library's own collective operations over point-to-point, used to build communicators
 * and topologies (context-id agreement, split, distributed graphs). They run on the
 * communicator's internal context (recv_ctx + 1), so they never match user messages. Simple
 * algorithms; the collective-operations chapter has its own, faster engine.
 * Each returns MPI_SUCCESS or an error class.
 */
#ifndef METAMPI_COLL_INTERNAL_H
#define METAMPI_COLL_INTERNAL_H

#include "core/comm.h"

#include <stddef.h>

typedef enum { ICOLL_SUM, ICOLL_MAX, ICOLL_MIN, ICOLL_BAND, ICOLL_BOR } icoll_op_t;

int icoll_barrier(comm_t *c);
int icoll_bcast(comm_t *c, void *buf, size_t bytes, int root);
/* recv holds size * bytes: member i's block at i * bytes */
int icoll_allgather(comm_t *c, const void *send, size_t bytes, void *recv);
/* send/recv hold size blocks of bytes each */
int icoll_alltoall(comm_t *c, const void *send, size_t bytes, void *recv);
/* counts and displacements in bytes */
int icoll_alltoallv(comm_t *c, const void *send, const size_t *scounts, const size_t *sdispls,
                    void *recv, const size_t *rcounts, const size_t *rdispls);
int icoll_allreduce_int(comm_t *c, int *vals, int n, icoll_op_t op);
int icoll_allreduce_u64(comm_t *c, uint64_t *vals, int n, icoll_op_t op);

#endif
