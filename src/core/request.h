/*
 * Requests: the core's record of one send or receive, from start to completion, and the
 * MPI_Request handle table.
 *
 * Life cycle: a nonblocking call allocates a request with a handle and starts it; the
 * protocol completes it (request_t.complete) through the op's done callback; Wait/Test then
 * report its status and free it — or, for a persistent request, make it inactive until the
 * next MPI_Start. MPI_Request_free on an active request marks it user_freed: it is freed at
 * completion. Blocking calls use requests on their stack, without handles.
 */
#ifndef METAMPI_REQUEST_H
#define METAMPI_REQUEST_H

#include "core/comm.h"
#include "proto/proto.h"

#include <mpi.h>

/* REQ_COLL: a nonblocking collective operation (MPI_Comm_idup, ...) run by an internal
 * schedule, which completes the request itself (request_complete_internal); it can be neither
 * freed nor cancelled (MPI-3.1 §5.12). REQ_RMA: a request-based one-sided operation (MPI_Rput,
 * ...), completed by the rma layer at local completion; REQ_IO: a nonblocking file access
 * (MPI_File_iread, ...), completed by the io layer; both can be freed, and a cancel leaves them
 * to complete. REQ_GREQ: a generalized request (core/grequest.h), completed by the program.
 * REQ_PAIR: MPI_Isendrecv's (core/isendrecv.h), completed when its send and receive are. */
typedef enum { REQ_SEND = 1, REQ_RECV, REQ_COLL, REQ_RMA, REQ_IO, REQ_GREQ, REQ_PAIR } req_kind_t;
typedef enum { MODE_STANDARD = 0, MODE_BUFFERED, MODE_SYNC, MODE_READY } send_mode_t;

typedef struct request {
    proto_op_t op;            /* the protocol's part; first member */
    req_kind_t kind;
    volatile int complete;    /* the operation finished (set by the done callback) */
    int active;               /* started, not yet reported by Wait/Test */
    int persistent;
    int user_freed;
    int posted;               /* receive: waiting in the posted queue */
    int error;                /* MPI error class of the completed operation */
    MPI_Request handle;       /* MPI_REQUEST_NULL for requests without a handle */
    comm_t *comm;
    MPI_Status status;        /* filled at completion; MPI_ERROR unused */
    /* the call's arguments (persistent requests restart from them) */
    void *buf;
    size_t bytes;             /* packed bytes */
    const dt_layout_t *layout; /* non-contiguous data: count elements of it at base buf */
    size_t count;
    struct dtype *dtype;      /* a derived type the request holds (a reference): its layout,
                               * or its typemap for a conversion */
    MPI_Datatype type;        /* receive: the datatype's handle, 0 for raw bytes (p2p_data_t) */
    int peer, tag;            /* communicator rank (or MPI_ANY_SOURCE), tag (or MPI_ANY_TAG) */
    send_mode_t mode;
    struct grequest *greq;    /* REQ_GREQ: the program's callbacks (owned; freed with r) */
    struct pair *pair;        /* REQ_PAIR until complete: its parts (core/isendrecv.c's) */
    struct request *next;     /* posted queue */
} request_t;

/* A request initialised for kind on comm, with a handle; NULL when out of memory. It holds
 * a reference to comm until it is freed. */
request_t *request_new(req_kind_t kind, comm_t *comm);
/* Initialises a handle-less request (blocking calls). */
void request_init_local(request_t *r, req_kind_t kind, comm_t *comm);
/* The request behind a handle, or NULL for MPI_REQUEST_NULL and invalid handles. Lock-free
 * (util/handles.h). */
request_t *request_lookup(MPI_Request h);
/* Releases the request and its handle (and its datatype reference). */
void request_free(request_t *r);
/* Sets r's data: contiguous (layout NULL), or count elements of layout at base buf. r
 * references dtype (when not NULL: a derived type, whose layout or typemap the operation
 * reads) until it is freed. */
void request_set_data(request_t *r, void *buf, size_t bytes, const dt_layout_t *layout,
                      size_t count, struct dtype *dtype);
/* MPI_Finalize: returns the memory of freed requests kept for reuse, every thread's
 * (core/request_cache.h), and the handle table's (a request still live is the program's; its
 * handle means nothing afterwards). */
void request_finalize(void);

/* The done callback of every request's op: records status and completion. */
void request_op_done(proto_op_t *op);
/* Completes a REQ_COLL, REQ_RMA or REQ_IO request with an empty status and error class err
 * (frees it when the user already freed it). */
void request_complete_internal(request_t *r, int err);
/* Marks r complete with an empty status (sends to MPI_PROC_NULL, ...). */
void request_complete_empty(request_t *r, int source);

/* MPI_Status.metampi_cancelled: bit 0 is the cancelled flag; the bits above, when not zero,
 * say that metampi_count is in the bytes of world rank (value >> 1) - 1, a sender of another
 * architecture (a probed message, not yet converted). */
#define STATUS_CANCELLED 1
#define STATUS_FOREIGN(world_rank) (((world_rank) + 1) << 1)

/* The status of an inactive or null request (MPI-3.1 §3.7.3). */
void status_set_empty(MPI_Status *st);
/* Reports src into *dst (when dst is not MPI_STATUS_IGNORE) except MPI_ERROR, which only
 * the calls that can return MPI_ERR_IN_STATUS write (MPI-3.1 §3.2.5). */
void status_report(MPI_Status *dst, const MPI_Status *src);
/* The status of a receive or probe from MPI_PROC_NULL (MPI-3.1 §3.11): source
 * MPI_PROC_NULL, tag MPI_ANY_TAG, count 0; MPI_ERROR left alone. */
void status_report_proc_null(MPI_Status *dst);

#endif
