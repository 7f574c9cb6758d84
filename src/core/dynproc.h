/*
 * Process creation (MPI-3.1 chapter 10, docs/dynproc.md): the parents' side of
 * MPI_Comm_spawn(_multiple) and the children's (the parent inter-communicator made in
 * MPI_Init).
 *
 * Protocol between the two sides, through mpirun's PMI spaces (runtime/job_spawn.h):
 *   1. every parent makes its TCP transport listen (p2p_grow: its card is in its part's
 *      space), then the parents agree on two context ids (ctxid_agree over comm);
 *   2. the root asks mpirun for the children, preputting into their space the parent group
 *      (metampi.pgroup.n, metampi.pgroup.<i> = "<kvsname>,<rank>") and the parents'
 *      recv_ctx (metampi.pctx);
 *   3. each child, at the end of MPI_Init, numbers the parents after its world
 *      (runtime/procs.h), listens and publishes its card (p2p_grow), takes context pairs 2
 *      and 3 (free in every new part: only MPI_COMM_WORLD's and MPI_COMM_SELF's are taken)
 *      for the inter-communicator and its local_comm, passes a PMI barrier of its part, and
 *      rank 0 puts metampi.ready; the parents' root waits for that key (bounded by the peer
 *      timeout), so that every card exists before anyone connects;
 *   4. the root broadcasts the outcome over comm; the parents number the children and make
 *      the inter-communicator (their recv_ctx from step 1, the children's 4).
 * A process that receives a TCP HELLO from a process it does not know yet drops it, and the
 * connector tries again (transport/tcp): numbering may happen in any order.
 */
#ifndef METAMPI_DYNPROC_H
#define METAMPI_DYNPROC_H

#include "core/comm.h"
#include "runtime/job_spawn.h"

/* Collective over comm: starts the applications (significant at root only) and makes *out,
 * the inter-communicator to the children. MPI_SUCCESS, MPI_ERR_SPAWN (the launcher refused;
 * why says so at every member, *out NULL) or another class. nspawned: the children started
 * (0 on failure). root_rc != MPI_SUCCESS at root: its arguments are bad (root_why says how),
 * nothing is started and every member returns that class and text. */
int dynproc_spawn(comm_t *comm, int root, const job_spawn_app_t *apps, int napps,
                  int root_rc, const char *root_why, comm_t **out, int *nspawned, char *why,
                  int whylen);
/* The end of MPI_Init: a spawned process makes its parent inter-communicator. 0, or -1 (err). */
int dynproc_init(char *err, int errlen);
/* MPI_Comm_get_parent: the parent inter-communicator while its handle lives, else NULL. */
comm_t *dynproc_parent(void);
/* Before comm_finalize. */
void dynproc_finalize(void);

#endif
