/*
 * The ranks' key (net/auth.h): what our launcher gives every rank of a job on several
 * hosts, in METAMPI_RANK_KEY. job_init takes it out of the environment (scrubbed, removed) so
 * that no process the program starts after MPI_Init inherits it, and keeps it here for the
 * transports, which derive their own keys from it. Read once, however often it is asked for.
 */
#ifndef METAMPI_RANK_KEY_H
#define METAMPI_RANK_KEY_H

#include "net/auth.h"

#define RANK_KEY_ENV "METAMPI_RANK_KEY"

/* Takes the key out of the environment, the first time (later calls do nothing). 0, or -1
 * with err when the variable holds no key. */
int rank_key_take(char *err, int errlen);
/* 1 and the key when the launcher gave one, else 0. */
int rank_key_get(auth_key_t *k);
/* Forgets the key (MPI_Finalize). */
void rank_key_forget(void);

#endif
