/*
 * The schedule engine: every collective operation of the library — the MPI collectives
 * (coll/), their nonblocking forms, and the library's own (core/icoll.h: context-id agreement,
 * communicator and topology construction) — is a schedule that the progress engine advances.
 *
 * A schedule is a list of entries — sends, receives, local steps (copy, reduce) and callbacks —
 * executed in order. Sends and receives that follow each other are started together; a local
 * step or callback runs when everything before it has completed. A callback may insert further
 * entries right after itself (this is how context-id agreement loops: the finished entries are
 * dropped at a callback once they outnumber the rest, so a looping schedule stays bounded), or
 * ask to be called again later (ICOLL_AGAIN: how the shared-memory steps wait on flags without
 * blocking). All messages of one schedule carry one tag and travel on the communicators'
 * internal context (recv_ctx + 1), so they never match user messages; within a schedule the
 * messages between two processes are sent and received in the same order, so one tag
 * suffices, and concurrent schedules on one communicator have distinct tags. Finished
 * schedules are kept for reuse, so a blocking collective in a loop allocates nothing.
 */
#ifndef METAMPI_CORE_SCHEDULE_H
#define METAMPI_CORE_SCHEDULE_H

#include "core/comm.h"
#include "core/p2p.h"

#include <stddef.h>
#include <stdint.h>

/* Reductions the engine computes itself (icoll_sched_reduce), for the library's own
 * collectives; the MPI reductions use icoll_sched_op. */
typedef enum { ICOLL_SUM, ICOLL_MAX, ICOLL_MIN, ICOLL_BAND, ICOLL_BOR } icoll_op_t;

typedef struct icoll_sched icoll_sched_t;
typedef enum { ICOLL_INT, ICOLL_U64 } icoll_type_t;

/* A callback's answer besides MPI_SUCCESS (go on) and an error class (stop the schedule). */
#define ICOLL_AGAIN (-1)
typedef int (*icoll_fn)(icoll_sched_t *s, void *arg);
/* Called once when the schedule has finished (err: MPI_SUCCESS or the first error). */
typedef void (*icoll_done_fn)(int err, void *arg);

/* A new, empty schedule whose messages carry tag; NULL when out of memory. */
icoll_sched_t *icoll_sched_new(int tag);
/* A new, empty schedule for the next operation of stream on c, of kind (comm_next_op); NULL
 * when out of memory. */
icoll_sched_t *icoll_sched_new_op(comm_t *c, comm_stream_t stream, comm_op_kind_t kind);
/* The stream of the operation s builds (COMM_BLOCKING unless made by icoll_sched_new_op):
 * state an algorithm keeps per communicator and orders by operation (shared-memory areas)
 * is kept per stream. */
comm_stream_t icoll_sched_stream(const icoll_sched_t *s);
/* The schedule's tag, and what its operation is (from the tag; COMM_OP_INTERNAL for the
 * fixed, negative tags). */
int icoll_sched_tag(const icoll_sched_t *s);
comm_op_kind_t icoll_sched_kind(const icoll_sched_t *s);
/* Zeroed memory that lives as long as the schedule (NULL: no memory, recorded as the
 * schedule's error). */
void *icoll_sched_alloc(icoll_sched_t *s, size_t bytes);

/* Entries. c names the communicator whose internal context carries the message and in
 * which peer is a rank (of the remote group for an inter-communicator); the schedule keeps a
 * reference to c until it ends. Buffers must stay valid until the schedule ends; a send
 * reads its buffer when it starts, i.e. after every earlier local step. Errors (no memory)
 * are recorded and reported at the end. */
void icoll_sched_send(icoll_sched_t *s, comm_t *c, int peer, const void *buf, size_t bytes);
void icoll_sched_recv(icoll_sched_t *s, comm_t *c, int peer, void *buf, size_t bytes);
void icoll_sched_fence(icoll_sched_t *s);
void icoll_sched_copy(icoll_sched_t *s, const void *src, void *dst, size_t bytes);
/* inout[i] = inout[i] op in[i] for n elements of type */
void icoll_sched_reduce(icoll_sched_t *s, const void *in, void *inout, int n, icoll_type_t type,
                        icoll_op_t op);
void icoll_sched_call(icoll_sched_t *s, icoll_fn fn, void *arg);

/* Typed entries (the user-visible collectives). A message's data is a p2p_data_t (contiguous
 * bytes, or count elements of a non-contiguous layout; a receive of whole elements of a type
 * names it in `type`, so data from a peer of another architecture is converted, and packed
 * temporaries leave it 0); its dtype field is ignored: the
 * schedule must hold the type (icoll_sched_hold_dtype) for as long as it runs. A receive
 * that gets more data than it posted ends the schedule with MPI_ERR_TRUNCATE. */
struct op;
struct dtype;
void icoll_sched_send_data(icoll_sched_t *s, comm_t *c, int peer, const p2p_data_t *d);
void icoll_sched_recv_data(icoll_sched_t *s, comm_t *c, int peer, const p2p_data_t *d);
/* Copies src's packed stream into dst's (src->bytes bytes; dst must hold at least as many). */
void icoll_sched_copy_data(icoll_sched_t *s, const p2p_data_t *src, const p2p_data_t *dst);
/* inout = in op inout on count elements of dt (op_apply; `in` is the left operand). */
void icoll_sched_op(icoll_sched_t *s, struct op *op, const void *in, void *inout, size_t count,
                    struct dtype *dt);
/* References the schedule holds until it ends (so MPI_Type_free / MPI_Op_free during a
 * nonblocking collective are safe). */
void icoll_sched_hold_dtype(icoll_sched_t *s, struct dtype *dt);
void icoll_sched_hold_op(icoll_sched_t *s, struct op *op);
/* Nonzero when the schedule has recorded an error (no memory, ...): builders may stop. */
int icoll_sched_failed(const icoll_sched_t *s);
/* A hash of the schedule's shape as built so far: every entry's kind, and for messages their
 * peer, communicator (in order of first use) and size, for local steps their sizes — never
 * addresses, so two builds of the same algorithm give the same digest in any process and any
 * build of the library (METAMPI_COLL_SELECT_DEBUG=2 prints it per call). */
uint64_t icoll_sched_digest(const icoll_sched_t *s);

/* Marks s as ending only after a message from another site has arrived at this process or
 * at a process it waits for (the site-aware collectives): icoll_sched_run then waits with
 * progress_wait_far, which sleeps at once instead of spinning for milliseconds. A hint: the
 * schedule's steps are the same either way. */
void icoll_sched_far(icoll_sched_t *s);

/* Frees a schedule that was never started. */
void icoll_sched_discard(icoll_sched_t *s);
/* Starts s; done(err, arg) runs when it ends (possibly before this returns). The schedule
 * frees itself after done. */
void icoll_sched_start(icoll_sched_t *s, icoll_done_fn done, void *arg);
/* Starts s and progresses until it ends; returns its error. */
int icoll_sched_run(icoll_sched_t *s);

/* Advances every running schedule (called by the progress engine when icoll_running is
 * nonzero). Returns the number of events. */
int icoll_progress(void);
extern int icoll_running;
/* Frees the schedules kept for reuse (MPI_Finalize). */
void icoll_release_spares(void);

#endif
