/*
 * The job as this process sees it: who we are, how many we are, where we run, and the
 * key-value exchange with the process manager. Everything above the runtime layer asks
 * here instead of speaking PMI itself.
 */
#ifndef METAMPI_JOB_H
#define METAMPI_JOB_H

#include "runtime/pmi_client.h"

#define JOB_HOSTNAME_MAX 256

typedef struct job {
    int rank, size;
    int universe_size, appnum;
    char hostname[JOB_HOSTNAME_MAX];
    /* Unique per job; every name this job creates in a shared namespace (abstract sockets,
     * /dev/shm files) starts with "metampi.<id>." so a launcher can sweep leftovers. */
    const char *id;
    /* Set when our own mpirun reports aborts itself (METAMPI_MPIRUN=1 in the environment). */
    int launcher_reports_abort;
    pmi_client_t pmi;
} job_t;

extern job_t job;

int job_init(char *err, int errlen);
/* Fills rank and hostname from the environment for reports made before job_init(). */
void job_identify_early(void);
int job_put(const char *key, const char *value, char *err, int errlen);
/* 0 and the value; 1 when the key does not exist; -1 on error */
int job_get(const char *key, char *value, int vallen, char *err, int errlen);
int job_barrier(char *err, int errlen);
int job_finalize(void);
/* Ends the whole job with the report msg: asks the launcher, then exits this process with
 * exitcode. Our mpirun prints the report itself (with rank and host); otherwise it is printed
 * here, as "metampi: rank R on host H: msg". */
_Noreturn void job_abort(int exitcode, const char *msg);
/* The fd that becomes readable/hung-up when the launcher goes away; -1 for a singleton. */
int job_launcher_fd(void);

#endif
