/*
 * Job-level policy for a single-host job: runs the event loop, decides when the job is
 * over, prints the one report about why it ended, and chooses mpirun's exit status.
 *
 * Policy:
 *   - the job is condemned by the first of: a rank killed by a signal, a rank exiting with a
 *     non-zero code, a rank that initialised PMI exiting without finalize, a PMI abort, an
 *     invalid PMI command, or SIGINT/SIGTERM/SIGHUP to mpirun;
 *   - exactly one message is printed, about that first cause; everything that happens to the
 *     ranks afterwards (including their deaths from the teardown) is not reported;
 *   - the exit status is fixed by the first cause (0 if there is none);
 *   - a condemned job is torn down on the schedule in teardown.h.
 *
 * Binding policy (binding.h does the placement):
 *   - no --bind-to: each rank is bound to one core when there are at least as many cores
 *     as ranks, else no rank is bound; when hwloc cannot discover the topology or the
 *     system refuses a binding, one warning is printed and the job runs unbound;
 *   - --bind-to core|hwthread|package: more ranks than cores (hardware threads for
 *     hwthread) is an error unless --oversubscribe, which binds round-robin; a topology
 *     that cannot be discovered or a refused binding is an error (exit status 1);
 *   - --bind-to none binds nothing and never consults hwloc;
 *   - --report-bindings prints every rank's binding before the first rank starts.
 */
#ifndef MPIRUN_JOB_H
#define MPIRUN_JOB_H

#include "options.h"

/* Runs the job described by the options; returns mpirun's exit status. */
int job_run(const mpirun_opts_t *opts);

#endif
