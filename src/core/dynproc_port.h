/*
 * Ports and the name service (MPI-3.1 §10.4), between processes of one mpirun job (any parts:
 * the first, spawned ones): docs/dynproc.md, "Ports and names".
 *
 * A port is a mailbox at mpirun (tools/mpirun/jobspace.h) named
 * "metampi-port:<kvsname>:<rank>:<n>" by the process that opened it. MPI_Comm_connect's root
 * puts its group into its part's space (metampi.xg.<its rank>.<seq>.<i> = "<kvsname>,<rank>")
 * and posts
 * "<kvsname>,<rank>,<seq>,<size>,<recv_ctx>" to the port; MPI_Comm_accept's root takes it,
 * puts its own group the same way and posts the same line about its side to the connector's
 * reply box "reply:<kvsname>:<rank>:<seq>". Each root broadcasts the other side's line over
 * its communicator; every member reads the other group from the other root's space, numbers
 * it (runtime/procs.h) and makes the inter-communicator. Both sides listen (p2p_grow) and
 * agree on their contexts before their root posts, so every card exists before anyone
 * connects. The roots wait by polling mpirun; a connect gives up after the peer timeout with
 * MPI_ERR_PORT, an accept waits for ever (as the standard's does).
 */
#ifndef METAMPI_DYNPROC_PORT_H
#define METAMPI_DYNPROC_PORT_H

#include "core/comm.h"

/* Each returns an MPI error class (MPI_SUCCESS) and the reason in why. */
int dynproc_open_port(char *port, int cap, char *why, int whylen);
int dynproc_close_port(const char *port, char *why, int whylen);
int dynproc_accept(const char *port, comm_t *comm, int root, comm_t **out, char *why,
                   int whylen);
int dynproc_connect(const char *port, comm_t *comm, int root, comm_t **out, char *why,
                    int whylen);
int dynproc_publish(const char *service, const char *port, char *why, int whylen);
/* port: cap bytes */
int dynproc_lookup(const char *service, char *port, int cap, char *why, int whylen);
int dynproc_unpublish(const char *service, char *why, int whylen);
/* MPI_Comm_join: the two ends of connected socket fd are processes of one mpirun job; each
 * writes one line about itself ("<kvsname>,<rank>,0,1,<recv_ctx>\n", after listening) and
 * reads the other's, then both make the inter-communicator of the two. */
int dynproc_join(int fd, comm_t **out, char *why, int whylen);

#endif
