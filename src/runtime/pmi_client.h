/*
 * PMI-1 client: talks to the process manager (our mpirun, or MPICH's mpiexec.hydra) over the
 * socket passed in PMI_FD. Without PMI_FD the process is a singleton: rank 0 of a 1-rank job,
 * and every call below works locally.
 *
 * All calls are blocking request/response exchanges; the server never sends unsolicited
 * lines, so any input on the socket outside a request means the launcher went away.
 */
#ifndef METAMPI_PMI_CLIENT_H
#define METAMPI_PMI_CLIENT_H

#include "runtime/pmi_wire.h"

typedef struct pmi_client {
    int fd;                              /* -1 for a singleton */
    int rank, size, appnum, universe_size;
    char kvsname[PMI_WIRE_KVSNAME_MAX + 1];
    char rbuf[PMI_WIRE_MAXLINE];         /* bytes received after the last full line */
    int rlen;
} pmi_client_t;

/* Returns 0, or -1 with a message in err (size errlen). */
int pmi_client_init(pmi_client_t *c, char *err, int errlen);
int pmi_client_put(pmi_client_t *c, const char *key, const char *value, char *err, int errlen);
/* Returns 0 and the value, 1 when the key does not exist, -1 on a protocol error. */
int pmi_client_get(pmi_client_t *c, const char *key, char *value, int vallen, char *err, int errlen);
int pmi_client_barrier(pmi_client_t *c, char *err, int errlen);
int pmi_client_finalize(pmi_client_t *c);
/* Asks the launcher to end the job; returns only if there is no launcher to ask. */
void pmi_client_abort(pmi_client_t *c, int exitcode, const char *msg);

#endif
