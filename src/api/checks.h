/*
 * Argument checks shared by the point-to-point calls. Each returns MPI_SUCCESS, or raises
 * the right error class on comm in the name of func (and returns it, when the handler
 * returns).
 */
#ifndef METAMPI_API_CHECKS_H
#define METAMPI_API_CHECKS_H

#include <mpi.h>

#include "core/comm.h"
#include "core/p2p.h"
#include "datatype/predefined.h"

#include <stddef.h>

/* a predefined single-element datatype */
int check_datatype(MPI_Comm comm, MPI_Datatype t, const char *func);
/* (buf, count, datatype) of a predefined single-element type; sets *bytes to the size */
int check_buffer(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, size_t *bytes,
                 const char *func);
/* (buf, count, datatype) of any committed type, as the core takes it (*d): contiguous data
 * as (buf + true_lb, bytes), so predefined and contiguous derived types take the contiguous
 * paths; otherwise the type's layout and count at base buf (MPI_BOTTOM allowed). */
int check_data(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, p2p_data_t *d,
               const char *func);
/* destination rank (MPI_PROC_NULL allowed) and send tag (0..MPI_TAG_UB) */
int check_dest_tag(const comm_t *c, int dest, int tag, const char *func);
/* source rank (MPI_ANY_SOURCE, MPI_PROC_NULL allowed) and receive tag (MPI_ANY_TAG allowed) */
int check_source_tag(const comm_t *c, int source, int tag, const char *func);

/* The fast paths' checks (docs/p2p.md, "The small-message fast path"): nonzero only when the
 * general checks above would pass for contiguous data of a single-element predefined type
 * (sets *bytes) and a real peer (not MPI_PROC_NULL). Zero sends the call down the general
 * path, whose checks report any error with its usual message. */
static inline int check_data_fast(const void *buf, int count, MPI_Datatype t, size_t *bytes)
{
    if (count < 0 || (count > 0 && !buf) || !dtype_is_predefined(t))
        return 0;
    *bytes = (size_t)count * dtype_predefined_size(t);
    return 1;
}
static inline int check_dest_tag_fast(const comm_t *c, int dest, int tag)
{
    return dest >= 0 && dest < comm_peer_size(c) && tag >= 0;
}
static inline int check_source_tag_fast(const comm_t *c, int source, int tag)
{
    return (source == MPI_ANY_SOURCE || (source >= 0 && source < comm_peer_size(c))) &&
           (tag == MPI_ANY_TAG || tag >= 0);
}

/* The checks of MPI_Sendrecv_replace and MPI_Isendrecv_replace: (buf, count, datatype) as *d,
 * dest/sendtag and source/recvtag; then *copy, a packed copy of the data that the outgoing
 * message leaves from (so the incoming one can land in buf), described by *sd. The caller
 * frees *copy once the send no longer needs it. MPI_SUCCESS, or the raised class. */
int check_replace(MPI_Comm comm, const comm_t *c, void *buf, int count, MPI_Datatype datatype,
                  int dest, int sendtag, int source, int recvtag, p2p_data_t *d,
                  p2p_data_t *sd, void **copy, const char *func);

/* Reports MPI_ERR_BUFFER for a buffered send of `bytes` that does not fit the attached
 * buffer; returns the class. */
int raise_bsend_no_room(MPI_Comm comm, size_t bytes, const char *func);

#endif
