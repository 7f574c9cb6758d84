/*
 * The library's own collective operations, used to build communicators and topologies
 * (context-id agreement, split, distributed graphs): simple algorithms over point-to-point on
 * the schedule engine (core/schedule.h), on the communicator's internal context, so they never
 * match user messages. The MPI collectives (coll/) run on the same engine with their own
 * algorithms. Each returns MPI_SUCCESS or an error class.
 *
 * The blocking icoll_* functions take an intra-communicator (for an inter-communicator, pass
 * its local_comm); each is one collective operation on it, so every member must call them in
 * the same order (tags come from the communicator's blocking stream, comm_next_op()).
 */
#ifndef METAMPI_CORE_ICOLL_H
#define METAMPI_CORE_ICOLL_H

#include "core/schedule.h"

#include <endian.h>
#include <stddef.h>
#include <stdint.h>

int icoll_barrier(comm_t *c);
int icoll_bcast(comm_t *c, void *buf, size_t bytes, int root);
/* recv holds size * bytes: member i's block at i * bytes */
int icoll_allgather(comm_t *c, const void *send, size_t bytes, void *recv);
/* send/recv hold size blocks of bytes each */
int icoll_alltoall(comm_t *c, const void *send, size_t bytes, void *recv);
/* counts and displacements in bytes */
int icoll_alltoallv(comm_t *c, const void *send, const size_t *scounts, const size_t *sdispls,
                    void *recv, const size_t *rcounts, const size_t *rdispls);
/* The members may differ in byte order (docs/heterogeneity.md): the functions above move
 * bytes as given, so a caller sends words little-endian (icoll_le32/64 before and after);
 * the reductions and the typed broadcasts below do that themselves. A reduction appended to
 * a schedule (icoll_sched_allreduce*) takes and leaves its values little-endian. */
int icoll_allreduce_int(comm_t *c, int *vals, int n, icoll_op_t op);
int icoll_allreduce_u64(comm_t *c, uint64_t *vals, int n, icoll_op_t op);
int icoll_bcast_ints(comm_t *c, int *vals, int n, int root);
int icoll_bcast_i64(comm_t *c, int64_t *vals, int n, int root);
/* n words in host order from each member (recv: member i's at i * n; alltoall: send and recv
 * hold size blocks of n), little-endian on the wire; send is turned in place and back. */
int icoll_allgather_ints(comm_t *c, int *send, size_t n, int *recv);
int icoll_allgather_u64(comm_t *c, uint64_t *send, size_t n, uint64_t *recv);
int icoll_alltoall_u64(comm_t *c, uint64_t *send, size_t n, uint64_t *recv);
/* icoll_alltoallv of 32- or 64-bit words: counts and displacements in bytes (multiples of the
 * word), blocks of send that do not overlap; words in host order, little-endian on the wire,
 * send turned in place and back. */
int icoll_alltoallv_u32(comm_t *c, void *send, const size_t *scounts, const size_t *sdispls,
                        void *recv, const size_t *rcounts, const size_t *rdispls);
int icoll_alltoallv_u64(comm_t *c, void *send, const size_t *scounts, const size_t *sdispls,
                        void *recv, const size_t *rcounts, const size_t *rdispls);
/* Not a collective: n ints to partner on c and rn ints from it, under tag (the caller's own
 * range, e.g. two leaders on a peer communicator); host order, little-endian on the wire. */
int icoll_sendrecv_ints(comm_t *c, int partner, int tag, int *send, size_t n, int *recv,
                        size_t rn);

/* n 32- or 64-bit words between host order and little-endian, in place (the same swap both
 * ways; nothing on a little-endian host). */
static inline void icoll_le32(void *words, size_t n)
{
    uint32_t *w = words;
    for (size_t i = 0; i < n; i++)
        w[i] = htole32(w[i]);
}
static inline void icoll_le64(void *words, size_t n)
{
    uint64_t *w = words;
    for (size_t i = 0; i < n; i++)
        w[i] = htole64(w[i]);
}

/* Collectives appended to a schedule. c is an intra-communicator, except for allreduce,
 * which also takes an inter-communicator and then combines both groups (reduction in each
 * local group, exchange between the two leaders, broadcast in each group; the operation
 * must be commutative). */
void icoll_sched_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t bytes, int root);
/* scratch: n elements of type the reduction receives into (NULL: allocated from s), so that an
 * operation appended again and again (context-id agreement rounds) allocates nothing. */
void icoll_sched_allreduce(icoll_sched_t *s, comm_t *c, void *vals, int n, icoll_type_t type,
                           icoll_op_t op, void *scratch);

/* The members of an internal collective: intra-communicator c, or a subgroup of it whose
 * messages travel on c's internal context addressed by c's ranks (MPI_Comm_create_group:
 * consecutive calls over different groups with one tag stay apart because a member's rank
 * in c names it in every call, while its rank in the group may name another process in the
 * next call). */
typedef struct icoll_team {
    comm_t *c;
    int size, rank;           /* team size, this process's index */
    const int *ranks;         /* index -> rank in c; NULL: the identity (the whole of c) */
} icoll_team_t;
icoll_team_t icoll_team_all(comm_t *c);
void icoll_sched_bcast_team(icoll_sched_t *s, const icoll_team_t *t, void *buf, size_t bytes,
                            int root);
void icoll_sched_allreduce_team(icoll_sched_t *s, const icoll_team_t *t, void *vals, int n,
                                icoll_type_t type, icoll_op_t op, void *scratch);
void icoll_sched_allgather(icoll_sched_t *s, comm_t *c, const void *send, size_t bytes,
                           void *recv);
void icoll_sched_alltoallv(icoll_sched_t *s, comm_t *c, const void *send, const size_t *scounts,
                           const size_t *sdispls, void *recv, const size_t *rcounts,
                           const size_t *rdispls);

#endif
