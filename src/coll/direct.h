/*
 * Blocking data-movement collectives between two members, straight over point-to-point
 * (the latency path: no schedule, no entries, no allocation). With two members every
 * scheduled algorithm of bcast.c, gather.c, scatter.c, allgather.c and alltoall.c reduces to
 * the same messages — at most one from each member to the other, on the communicator's
 * internal context with the operation's tag — which is what these functions send, so each
 * member may take this path or the scheduled one independently (e.g. by its own layout).
 *
 * Each function takes the operation's tag (comm_next_op) exactly as coll_begin() would, and
 * returns MPI_SUCCESS or an error class (MPI_ERR_TRUNCATE: the other member sent more than
 * fits) — or COLL_DECLINED without taking a tag or doing anything, when c is not an
 * intra-communicator of two or the case needs the scheduled path (MPI_IN_PLACE alltoall).
 * Arguments are checked and translated as for the coll_* builders (coll.h).
 */
#ifndef METAMPI_COLL_DIRECT_H
#define METAMPI_COLL_DIRECT_H

#include "coll/coll.h"


int coll_direct_bcast(comm_t *c, void *buf, size_t count, dtype_t *dt, int root);
int coll_direct_gather(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype, void *rbuf,
                       size_t rcount, dtype_t *rtype, int root);
int coll_direct_scatter(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype, void *rbuf,
                        size_t rcount, dtype_t *rtype, int root);
int coll_direct_allgather(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                          void *rbuf, size_t rcount, dtype_t *rtype);
int coll_direct_alltoall(comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                         void *rbuf, size_t rcount, dtype_t *rtype);

#endif
