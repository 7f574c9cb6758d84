/*
 * The variables of the collectives' choices. The selection table (coll/select.h, table.c)
 * decides from message size, rank count and layout; the user can override both the choice
 * and the thresholds through environment variables:
 *   METAMPI_COLL_<COLLECTIVE>=<algorithm>   e.g. METAMPI_COLL_ALLREDUCE=ring
 *   METAMPI_COLL_<THRESHOLD>=<bytes>        e.g. METAMPI_COLL_BCAST_LONG=65536
 * Every variable is an entry of the registry (runtime/tunables.def), which parses and bounds it
 * (a bad value ends the job at MPI_Init); these accessors are adapters over it and check that
 * the caller's names and defaults are the registry's. Each is read once, at the first call.
 * The launcher gives every rank the same environment, which keeps the choice consistent
 * across members (a requirement: all members must run the same algorithm).
 */
#ifndef METAMPI_COLL_TUNE_H
#define METAMPI_COLL_TUNE_H

#include <stddef.h>

/* A forced algorithm: env names the variable, names[0..n-1] the algorithms. */
typedef struct coll_choice {
    const char *env;
    const char *const *names;
    int n;
    int loaded, forced;
} coll_choice_t;

/* The index of the algorithm the user forced, or -1 (automatic). An unknown name ends the job
 * with a message that lists the valid ones. */
int coll_choice_forced(coll_choice_t *ch);

/* A threshold (bytes, a count or a 0/1 switch, as the registry types it): the variable, else
 * dflt (which must be the registry's default). */
typedef struct coll_knob {
    const char *env;
    size_t dflt;
    int loaded;
    size_t value;
} coll_knob_t;

size_t coll_knob(coll_knob_t *k);

#endif
