/*
 * Point-to-point operations of the core: starting sends and receives (all four send modes),
 * probing, cancelling, and the blocking fast paths. The API layer validates arguments and
 * translates handles; everything here takes communicator ranks and byte counts.
 *
 * Data description: a message is `bytes` packed bytes, either contiguous at buf or — for a
 * non-contiguous datatype — count elements of its layout at base buf (p2p_data_t). The
 * protocol packs or unpacks typed data per frame or per remote-read segment (proto_op_t), so
 * no whole-message copy is ever made.
 */
#ifndef METAMPI_P2P_H
#define METAMPI_P2P_H

#include "core/match.h"
#include "core/request.h"

#include <stddef.h>
#include <sys/uio.h>

/* Bootstrap (see transport.h): open, then a job barrier, connect, a barrier, ready. */
int p2p_open(char *err, int errlen);
int p2p_connect(char *err, int errlen);
/* The host index of a job rank (ranks with equal indices share a host; valid after open). */
int p2p_host_of(int world_rank);
/* The site index of a job rank (runtime/sites.h: 0-based in the metacomputer description's
 * order; ranks of one host share a site; valid after open) and the number of sites (1 for a
 * job without a description). The collectives' site level builds on these as the host level
 * does on p2p_host_of. */
int p2p_site_of(int world_rank);
/* The processes of other parts known now (runtime/procs.h) become reachable job ranks:
 * 0, or -1 (err). Also the first step of meeting any: TCP listens from then on. */
int p2p_grow(char *err, int errlen);
/* Nonzero when job rank w is a process of another part (spawned or connected). */
int p2p_other_part(int world_rank);
int p2p_num_sites(void);
/* Nonzero when a group's messages to job rank world_rank leave as one unit with the others to
 * its site (p2p_group_begin): it is reached through the site gateways. The same answer on
 * every rank for every rank at another site (gateway mode is the job's). */
int p2p_bundles(int world_rank);
int p2p_ready(char *err, int errlen);
/* Wakes job rank world_rank if it sleeps in the progress engine, so that it polls again: for
 * code that shares memory with it outside messages (shared-memory collectives). Call it after
 * the (release) store of what that rank may be waiting for; costs one load when the rank is
 * awake (transport.h, "Waking"). */
void p2p_wake(int world_rank);
/* Copies bytes of job rank world_rank's memory at remote (an address in its address space)
 * into local by the transport's remote read: one copy, no message (cross-memory attach on one
 * host). The caller makes sure that memory stays valid meanwhile. 0 when done, 1 when the
 * transport cannot read that rank's memory (nothing copied); a failure of the read itself
 * ends the job with a report. */
int p2p_read(int world_rank, void *local, const void *remote, size_t bytes);
/* The other direction: copies local into job rank world_rank's memory at remote (the caller
 * makes sure that memory is the rank's to be written meanwhile). Same results. */
int p2p_write(int world_rank, const void *local, void *remote, size_t bytes);
/* The same between one local buffer and nremote pieces of the rank's memory, in order. */
int p2p_readv(int world_rank, void *local, const struct iovec *remote, int nremote);
int p2p_writev(int world_rank, const void *local, const struct iovec *remote, int nremote);
/* Drains queued frames and passes a barrier over the transports, so no peer still needs us;
 * then closes. */
void p2p_finalize(void);

/* Starts r (a send or receive with comm, buf, bytes, peer, tag, mode set). Returns
 * MPI_SUCCESS or an error class (MPI_ERR_BUFFER: buffered send does not fit). Sends and
 * receives with peer MPI_PROC_NULL complete at once. */
int p2p_start(request_t *r, const char *func);
/* p2p_start of a standard (or ready) send, which completes r at once when its contiguous
 * data leaves in one eager frame now (nothing queued to the peer, room in the transport). */
int p2p_start_eager(request_t *r, const char *func);
/* The messages started until p2p_group_end may travel as one unit where the path bundles
 * them (proto_group_begin): the gateway transport sends a group's frames for ranks of one
 * other site across the WAN as one frame. A failed path ends the job with a report. */
void p2p_group_begin(void);
void p2p_group_end(void);

/* A message buffer: contiguous bytes at buf (layout NULL), or count elements of a
 * non-contiguous datatype at base buf (the type, dtype, holds layout). */
typedef struct p2p_data {
    void *buf;
    size_t bytes;
    const dt_layout_t *layout;
    size_t count;
    struct dtype *dtype;
    /* the datatype's handle (0: none, raw bytes): a receive converts data from a peer of
     * another architecture as elements of it (core resolves it only then) */
    MPI_Datatype type;
} p2p_data_t;

/* Sets r's data from d (see request_set_data). */
void p2p_set_data(request_t *r, const p2p_data_t *d);

/* Blocking calls. Return MPI_SUCCESS or an error class. */
int p2p_send_data(comm_t *c, const p2p_data_t *d, int dest, int tag, send_mode_t mode,
                  const char *func);
int p2p_recv_data(comm_t *c, const p2p_data_t *d, int source, int tag, MPI_Status *status,
                  size_t *msg_bytes);

/* Progresses until r completes. */
void p2p_wait(request_t *r);

/* Cancels r if it can still be cancelled (MPI-3.1 §3.8.4); completion follows. */
void p2p_cancel(request_t *r);

/* Probing: *flag/status like MPI_Iprobe; the blocking form waits. */
void p2p_iprobe(comm_t *c, int source, int tag, int *flag, MPI_Status *status);
void p2p_probe(comm_t *c, int source, int tag, MPI_Status *status);
/* Matched probes: the message is taken out of matching and returned (NULL when none). */
unexpected_t *p2p_improbe(comm_t *c, int source, int tag, MPI_Status *status);
unexpected_t *p2p_mprobe(comm_t *c, int source, int tag, MPI_Status *status);

#endif
