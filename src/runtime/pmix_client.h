/*
 * PMIx client through Debian's libpmix (`srun --mpi=pmix`, Open MPI's mpirun and prterun),
 * behind pmi_client.h. Built when CMake finds libpmix (METAMPI_HAVE_PMIX); without it
 * pmix_client_available() is 0 and a PMIx launch is refused with a message saying so.
 *
 * Mapping of pmi_client.h: put = PMIx_Put(PMIX_GLOBAL) of a string; barrier = PMIx_Commit
 * and PMIx_Fence collecting the data, so that after it every rank holds every rank's keys
 * locally; get = PMIx_Get, asked locally only (PMIX_OPTIONAL), so a key nobody put answers
 * "not found" at once. PMIx stores a key per rank, while the keys of pmi_client.h are global:
 * a key is taken from the rank its number after the last '.' names ("tcp.3": rank 3), else
 * from rank 0 ("tcp.key") - the library's keys follow that rule. PMI_process_mapping is
 * PMIx's PMIX_ANL_MAP where the server gives it. job.id is "pmix-" and the namespace, its
 * characters outside [A-Za-z0-9.-] made '_'.
 */
#ifndef METAMPI_PMIX_CLIENT_H
#define METAMPI_PMIX_CLIENT_H

#include "runtime/pmi_client.h"

/* 1 when this build has the PMIx client. */
int pmix_client_available(void);
/* 1 when the environment holds a PMIx server's coordinates (PMIX_NAMESPACE, PMIX_RANK). */
int pmix_client_env(void);

int pmix_client_init(pmi_client_t *c, char *err, int errlen);
int pmix_client_put(pmi_client_t *c, const char *key, const char *value, char *err, int errlen);
int pmix_client_get(pmi_client_t *c, const char *key, char *value, int vallen, char *err,
                    int errlen);
int pmix_client_barrier(pmi_client_t *c, char *err, int errlen);
int pmix_client_finalize(pmi_client_t *c);
void pmix_client_abort(pmi_client_t *c, int exitcode, const char *msg);

#endif
