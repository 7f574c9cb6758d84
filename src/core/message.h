/* Matched messages (MPI_Mprobe/MPI_Improbe): MPI_Message handles for messages taken out of
 * matching, waiting for MPI_Mrecv/MPI_Imrecv. */
#ifndef METAMPI_MESSAGE_H
#define METAMPI_MESSAGE_H

#include "core/match.h"

#include <mpi.h>

/* A handle for u, received later on comm c; MPI_MESSAGE_NULL when out of memory. The handle
 * holds a reference on c (MPI_Comm_free before MPI_Mrecv is legal). */
MPI_Message message_new(unexpected_t *u, comm_t *c);
/* The message behind h, removed from the table (its handle becomes invalid); NULL for
 * MPI_MESSAGE_NULL, MPI_MESSAGE_NO_PROC and invalid handles. The handle's reference on *c
 * passes to the caller, who releases it. */
unexpected_t *message_take(MPI_Message h, comm_t **c);
/* Nonzero when h is a live message handle (MPI_Message_f2c). */
int message_exists(MPI_Message h);

#endif
