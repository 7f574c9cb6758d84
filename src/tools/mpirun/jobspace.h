/*
 * What the parts of a job share at mpirun (docs/dynproc.md, "Ports and names"): the name
 * service (MPI_Publish_name, _Lookup_name, _Unpublish_name) and the open ports with their
 * mailboxes (MPI_Comm_connect posts a request to a port, MPI_Comm_accept takes it and posts
 * the answer to the connector's reply box). PMI-1 commands, each answered at once (names and
 * port names are hex-coded strings; values plain PMI values):
 *
 *   cmd=publish service=HEX port=HEX    -> cmd=publish_result rc=0 | rc=-1 (published)
 *   cmd=lookup service=HEX              -> cmd=lookup_result rc=0 port=HEX | rc=-1
 *   cmd=unpublish service=HEX           -> cmd=unpublish_result rc=0 | rc=-1 (not published)
 *   cmd=port_open port=HEX              -> cmd=port_result rc=0 | rc=-1 (open already)
 *   cmd=port_close port=HEX             -> cmd=port_result rc=0 | rc=-1 (not open)
 *   cmd=port_post port=HEX value=V      -> cmd=port_result rc=0 | rc=-1 (no such port)
 *   cmd=port_take port=HEX              -> cmd=port_result rc=0 value=V | rc=1 (empty) | rc=-1
 *
 * In a federated job the space is the first site's mpirun's (mpirun/mh_fed_relay.c); when
 * another site's mpirun cannot reach it, it answers any of them cmd=<result> rc=-9 msg=HEX
 * (the reason; runtime/job_spawn.h: JOB_SHARED_UNREACHABLE).
 *
 * A reply box is a port named by its owner (opened implicitly by the first post to a name
 * starting "reply:"). Bounded like the key-value spaces (KVS_MAX_BYTES in all).
 */
#ifndef MPIRUN_JOBSPACE_H
#define MPIRUN_JOBSPACE_H

#include "runtime/pmi_wire.h"

#include <stddef.h>

typedef struct jobspace jobspace_t;

jobspace_t *jobspace_new(void);
void jobspace_free(jobspace_t *js);
/* Nonzero when cmd is one of the commands above. */
int jobspace_is_command(const char *cmd);
/* 1 and the reply line (without newline) in reply when m is one of the commands above, 0
 * when not, -1 when it is malformed (an invalid PMI command). */
int jobspace_command(jobspace_t *js, const pmi_msg_t *m, char *reply, size_t cap);

#endif
