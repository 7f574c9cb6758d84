/*
 * The client of the process manager: the one interface job.c uses, whatever protocol the
 * launcher speaks (pmi_client_init chooses, METAMPI_PMI overrides):
 *   - PMI-1 over the socket passed in PMI_FD (our mpirun, MPICH's mpiexec.hydra): here;
 *   - PMI-2 over PMI_FD (Slurm's `srun --mpi=pmi2`): runtime/pmi2_client.c;
 *   - PMIx through libpmix (`srun --mpi=pmix`, Open MPI's mpirun): runtime/pmix_client.c.
 * Without any the process is a singleton: rank 0 of a 1-rank job, and every call below
 * works locally.
 *
 * Keys are global to the job (any rank may get what any rank put); a put is visible to the
 * others after the next barrier, and a get of a key nobody put answers 1 at once, never waits.
 * All calls are blocking request/response exchanges; the server never sends unsolicited
 * lines, so any input on the socket outside a request means the launcher went away.
 */
#ifndef METAMPI_PMI_CLIENT_H
#define METAMPI_PMI_CLIENT_H

#include "runtime/pmi_wire.h"

typedef enum pmi_proto {
    PMI_PROTO_NONE,   /* singleton */
    PMI_PROTO_1,
    PMI_PROTO_2,
    PMI_PROTO_X       /* PMIx */
} pmi_proto_t;

typedef struct pmi_client {
    pmi_proto_t proto;
    int fd;                              /* -1 for a singleton and PMIx */
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
/* The same in another space of the job (a part of spawned ranks, docs/dynproc.md): PMI-1
 * only (-1 otherwise). */
int pmi_client_get_in(pmi_client_t *c, const char *kvsname, const char *key, char *value,
                      int vallen, char *err, int errlen);
/* One request line (with its newline) and its reply, which must be cmd=<expect>: PMI-1 only
 * (-1 with a message otherwise). For the commands of runtime/job_spawn.c. */
int pmi_client_command(pmi_client_t *c, const char *request, const char *expect,
                       pmi_msg_t *reply, char *err, int errlen);
int pmi_client_barrier(pmi_client_t *c, char *err, int errlen);
int pmi_client_finalize(pmi_client_t *c);
/* Asks the launcher to end the job; returns only if there is no launcher to ask. */
void pmi_client_abort(pmi_client_t *c, int exitcode, const char *msg);

#endif
