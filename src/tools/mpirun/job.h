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
 */
#ifndef MPIRUN_JOB_H
#define MPIRUN_JOB_H

#include "options.h"

/* Runs the job described by the options; returns mpirun's exit status. */
int job_run(const mpirun_opts_t *opts);

#endif
