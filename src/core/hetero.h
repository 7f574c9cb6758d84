/*
 * Data between ranks of unlike architecture (issue 19, docs/heterogeneity.md): the one place
 * where a point-to-point message to or from such a rank, or a collective on a communicator
 * with such a member, meets its datatype. Bytes
 * (MPI_BYTE, MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR) mean the same everywhere and pass;
 * every other datatype is refused with MPI_ERR_TYPE, naming both ranks and architectures,
 * until the datatype engine converts it (the xdr work replaces hetero_check_peer_type's
 * refusal by conversion). Between like ranks, and in a job of one architecture, it costs one
 * load (peer_arch_all_same).
 */
#ifndef METAMPI_CORE_HETERO_H
#define METAMPI_CORE_HETERO_H

#include <mpi.h>

#include "core/comm.h"

#include "runtime/peer_arch.h"

/* The check between a rank and an unlike one (hetero.c). */
int hetero_check_unlike_peer(const comm_t *c, int peer, MPI_Datatype type, const char *func);

/* MPI_SUCCESS, or MPI_ERR_TYPE raised on c in the name of func when data of type cannot
 * travel between this rank and rank peer of c (MPI_PROC_NULL and MPI_ANY_SOURCE pass: the
 * peer is not known here). Inline: in a job of one architecture it is one load. */
static inline int hetero_check_peer_type(const comm_t *c, int peer, MPI_Datatype type,
                                         const char *func)
{
    return peer_arch_all_same() ? MPI_SUCCESS : hetero_check_unlike_peer(c, peer, type, func);
}

/* The check of a collective's datatype on c: MPI_ERR_TYPE raised as above when c has a
 * member of another architecture and type is not bytes. One load in a job of one
 * architecture; else a pass over c's members. */
int hetero_check_comm_unlike(const comm_t *c, MPI_Datatype type, const char *func);
static inline int hetero_check_comm_type(const comm_t *c, MPI_Datatype type, const char *func)
{
    return peer_arch_all_same() ? MPI_SUCCESS : hetero_check_comm_unlike(c, type, func);
}

#endif
