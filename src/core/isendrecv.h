/*
 * MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10): one request (kind REQ_PAIR) for a
 * send and a receive started together.
 *
 * Protocol: the pair's two handle-less requests are started at once; a poller registered
 * with the progress engine (only while pairs are pending) completes the user's request when
 * both parts are complete, with the receive's status and error, then frees the parts. A
 * request the user freed before that is freed there too. MPI_Cancel cancels both parts; the
 * status says cancelled when the receive was.
 */
#ifndef METAMPI_ISENDRECV_H
#define METAMPI_ISENDRECV_H

#include "core/p2p.h"
#include "core/request.h"

/* Starts the send of sd to dest (sendtag) and the receive of rd from source (recvtag) on c;
 * owned_copy (may be NULL) is freed with the pair (Isendrecv_replace's packed send data).
 * Returns the user's request, or NULL when out of memory (owned_copy then still the
 * caller's). */
request_t *isendrecv_start(comm_t *c, const p2p_data_t *sd, int dest, int sendtag,
                           const p2p_data_t *rd, int source, int recvtag, void *owned_copy,
                           const char *func);
/* Cancels both parts of r (a REQ_PAIR request). */
void isendrecv_cancel(request_t *r);

#endif
