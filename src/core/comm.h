/*
 * Communicators: groups, context ids, inter-communicators, names, attributes, hints and the
 * topology a communicator may carry.
 *
 * Invariants:
 *  - A message carries the *receiver-side* context id of its communicator and the sender's
 *    rank in the sender's local group. For an intra-communicator send_ctx == recv_ctx; for an
 *    inter-communicator send_ctx is the remote group's recv_ctx (exchanged at creation).
 *  - comm_peer_world_rank() maps a destination/source rank (remote group for an
 *    inter-communicator) to the job (world) rank transports address.
 *  - Context ids come in pairs: recv_ctx is even, recv_ctx + 1 carries the library's internal
 *    collective traffic on the communicator, so user messages never match it.
 */
#ifndef METAMPI_COMM_H
#define METAMPI_COMM_H

#include "core/attr.h"
#include "core/group.h"
#include "core/info.h"

#include <mpi.h>
#include <stdint.h>

struct topo;

typedef struct comm {
    MPI_Comm handle;
    uint32_t recv_ctx, send_ctx;
    int rank, size;              /* in the local group */
    group_t *group;              /* local group */
    group_t *remote_group;       /* inter-communicators; NULL otherwise */
    struct comm *local_comm;     /* inter-communicators: intra-communicator over the local group */
    int refs;                    /* the user handle + pending operations */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    attr_list_t attrs;
    info_t *info;                /* hints set by the user (NULL: none) */
    struct topo *topo;           /* Cartesian/graph/distributed-graph topology, or NULL */
} comm_t;

void comm_init_predefined(int world_rank, int world_size);
/* The communicator behind a handle, or NULL for MPI_COMM_NULL and invalid handles. */
comm_t *comm_lookup(MPI_Comm handle);
static inline int comm_peer_world_rank(const comm_t *c, int rank)
{
    return group_world_rank(c->remote_group ? c->remote_group : c->group, rank);
}
/* The communicator's name for messages ("MPI_COMM_WORLD", a user-set name, ...). */
const char *comm_name(MPI_Comm handle);

/* Collective creation (internal: no attributes copied, no handle checks). Each returns
 * MPI_SUCCESS or an error class; *out is NULL for processes outside the new communicator
 * (color MPI_UNDEFINED). New communicators get a handle and inherit the parent's error
 * handler. */
int comm_split(comm_t *parent, int color, int key, comm_t **out);
int comm_dup(comm_t *parent, comm_t **out);
/* Drops a reference (the user's MPI_Comm_free, a completed operation); the last one frees. */
void comm_retain(comm_t *c);
void comm_release(comm_t *c);

#endif
