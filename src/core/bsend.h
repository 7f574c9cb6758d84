/*
 * Buffered sends (MPI-3.1 §3.6): the user attaches one buffer; MPI_Bsend copies the message
 * into it and sends the copy, so the call returns at once whatever the receiver does.
 *
 * The attached buffer is tiled by blocks in address order: a header (MPI_BSEND_OVERHEAD
 * bytes, which holds the send's own request) followed by the data. Allocation is first fit;
 * adjacent free blocks merge as allocation walks over them. A block is freed when its send
 * completes.
 */
#ifndef METAMPI_BSEND_H
#define METAMPI_BSEND_H

#include "core/request.h"

#include <stddef.h>

/* MPI_SUCCESS, or MPI_ERR_BUFFER when a buffer is already attached. */
int bsend_attach(void *buf, size_t size);
/* Waits until every buffered message has left, then detaches. *buf = NULL, *size = 0 when
 * no buffer is attached. */
void bsend_detach(void **buf, size_t *size);
/* Waits until every buffered message sent on comm has left (MPI_Comm_disconnect); the
 * buffer stays attached. */
void bsend_wait_comm(const comm_t *comm);
/* Copies the message described by r (a send with buf, bytes, peer, tag) into the attached
 * buffer and starts sending the copy. MPI_SUCCESS, or MPI_ERR_BUFFER when it does not fit. */
int bsend_start(const request_t *r, const char *func);
/* Bytes a message of `bytes` needs in the attached buffer, for error messages. */
size_t bsend_needed(size_t bytes);

#endif
