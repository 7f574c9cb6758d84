/*
 * Point-to-point core: matching of incoming messages against the posted receive, and the
 * unexpected-message queue. Blocking only, in this issue; requests come with the next.
 *
 * Matching rule (MPI-3.1 §3.5): same context id; source equal or MPI_ANY_SOURCE; tag equal
 * or MPI_ANY_TAG. Messages from one sender on one context are matched in the order they were
 * sent: the transports keep per-pair order and the unexpected queue is searched oldest first.
 */
#ifndef METAMPI_P2P_H
#define METAMPI_P2P_H

#include "core/comm.h"

#include <stddef.h>

int p2p_open(char *err, int errlen);
void p2p_close(void);

/* Both return MPI_SUCCESS or an error class. A transport that cannot reach dest ends the
 * job with a report in the name of func (the calling MPI function). */
int p2p_send(const comm_t *c, const void *buf, size_t bytes, int dest, int tag,
             const char *func);
/* *msg_bytes: the size of the matched message, which exceeds capacity when the result is
 * MPI_ERR_TRUNCATE (status then counts the bytes delivered). */
int p2p_recv(const comm_t *c, void *buf, size_t capacity, int source, int tag,
             MPI_Status *status, size_t *msg_bytes);

#endif
