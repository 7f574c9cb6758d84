/*
 * Collectives on communicators with members of unlike architecture (issue 19,
 * docs/heterogeneity.md). Point-to-point data is converted by the receiver
 * (docs/heterogeneity-conversion.md); some collective paths still move typed data as bytes
 * (the site pipelines, packed bounce buffers), so a collective on such a communicator takes
 * bytes (MPI_BYTE, MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR) only, and refuses every other
 * datatype with MPI_ERR_TYPE, naming both ranks and architectures, on every member alike. In
 * a job of one architecture it costs one load (peer_arch_all_same).
 */
#ifndef METAMPI_CORE_HETERO_H
#define METAMPI_CORE_HETERO_H

#include <mpi.h>

#include "core/comm.h"

#include "runtime/peer_arch.h"

/* The check of a collective's datatype on c: MPI_ERR_TYPE raised as above when c has a
 * member of another architecture and type is not bytes. One load in a job of one
 * architecture; else a pass over c's members. */
int hetero_check_comm_unlike(const comm_t *c, MPI_Datatype type, const char *func);
static inline int hetero_check_comm_type(const comm_t *c, MPI_Datatype type, const char *func)
{
    return peer_arch_all_same() ? MPI_SUCCESS : hetero_check_comm_unlike(c, type, func);
}

#endif
