/*
 * Communicators. This issue has the two predefined intra-communicators only; the general
 * machinery (groups, context-id allocation, handle tables) comes with the communicator issue.
 *
 * Invariant: a message carries the context id of its communicator and the *communicator*
 * rank of its source; comm_world_rank() maps a communicator rank to the job (world) rank
 * that transports address.
 */
#ifndef METAMPI_COMM_H
#define METAMPI_COMM_H

#include <mpi.h>
#include <stdint.h>

typedef struct comm {
    MPI_Comm handle;
    uint32_t context_id;
    int rank, size;
    int world_rank_of_self;   /* for MPI_COMM_SELF: the only member's world rank */
    MPI_Errhandler errhandler;
} comm_t;

void comm_init_predefined(int world_rank, int world_size);
/* The communicator behind a handle, or NULL for MPI_COMM_NULL and invalid handles. */
comm_t *comm_lookup(MPI_Comm handle);
int comm_world_rank(const comm_t *c, int rank);
/* "MPI_COMM_WORLD", "MPI_COMM_SELF", ... for messages */
const char *comm_name(MPI_Comm handle);

#endif
