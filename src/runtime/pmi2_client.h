/*
 * PMI-2 client (the wire protocol of MPICH's PMI-2 and of Slurm's `srun --mpi=pmi2`), behind
 * pmi_client.h. The socket is PMI_FD; the first exchange is PMI-1's "cmd=init pmi_version=2
 * pmi_subversion=0\n" line, after which every message is a command of the form
 *     LLLLLLcmd=NAME;key=value;...;
 * where LLLLLL is the length of the rest in ASCII decimal, padded with blanks to 6 bytes (Slurm
 * pads on the right, MPICH on the left). In a value ";;" stands for ';' (MPICH); Slurm neither
 * writes nor reads that escape, so the values this client sends never contain ';'.
 *
 * Mapping of pmi_client.h: put = kvs-put, barrier = kvs-fence (which also publishes the puts),
 * get = kvs-get, and for the key PMI_process_mapping info-getjobattr.
 */
#ifndef METAMPI_PMI2_CLIENT_H
#define METAMPI_PMI2_CLIENT_H

#include "runtime/pmi_client.h"

#include <stddef.h>

/* The largest PMI-2 message (Slurm's and MPICH's value limit is 1024, keys 64). */
#define PMI2_MSG_MAX 2048

/* A parsed PMI-2 message: pairs point into buf (escapes undone). */
typedef struct pmi2_msg {
    int npairs;
    const char *key[PMI_WIRE_MAXPAIRS];
    const char *val[PMI_WIRE_MAXPAIRS];
    char buf[PMI2_MSG_MAX + 1];
} pmi2_msg_t;

/* Parses the body (after the length) of one message. 0, or -1 when it does not start with
 * "cmd=", a pair has no '=' or no closing ';', or there are too many pairs. */
int pmi2_parse(const char *body, size_t len, pmi2_msg_t *msg);
const char *pmi2_get(const pmi2_msg_t *msg, const char *key);

/* 1 when the environment says the PMI_FD server is Slurm's pmi2 plugin: it sets PMI_JOBID to
 * "<SLURM_JOB_ID>.<SLURM_STEP_ID>" (hydra, our mpirun and Slurm's pmi1-only setups do not). */
int pmi2_env_is_slurm(void);

/* Called by pmi_client_init with c->fd, c->rank and c->size taken from the environment. */
int pmi2_client_init(pmi_client_t *c, char *err, int errlen);
int pmi2_client_put(pmi_client_t *c, const char *key, const char *value, char *err, int errlen);
int pmi2_client_get(pmi_client_t *c, const char *key, char *value, int vallen, char *err,
                    int errlen);
int pmi2_client_barrier(pmi_client_t *c, char *err, int errlen);
int pmi2_client_finalize(pmi_client_t *c);
void pmi2_client_abort(pmi_client_t *c, int exitcode, const char *msg);

#endif
