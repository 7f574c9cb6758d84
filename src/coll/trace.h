/*
 * METAMPI_COLL_SELECT_DEBUG: what the collectives chose, one line per call on stderr.
 *   1      per call and rank: the collective, the communicator's size, the size the selection
 *          looks at, and the level and algorithm that built it
 *   2      the same with a digest of the schedule built (core/schedule.h), so that two
 *          builds of the library can be shown to run the same algorithms
 *   3      the same, and rank 0 prints the selection table (coll/select.h) with the
 *          thresholds and forced algorithms in force, at its first collective call
 * A call's line: "metampi-coll: rank R #K MPI_Xxx n=N size=S: LEVEL ALGO [digest=D]", K
 * counting this process's collective calls.
 *
 * The level is the first that took the call: inter (inter-communicators), direct (two members,
 * blocking, no schedule), none (nothing to move), sites, hier (hosts), shm (one host's shared
 * area), p2p (point-to-point over the whole communicator); the algorithm is the one run over
 * the whole communicator (p2p) or among the host leaders (hier), "-" where the level has one
 * way of doing it.
 */
#ifndef METAMPI_COLL_TRACE_H
#define METAMPI_COLL_TRACE_H

#include "core/schedule.h"

#include <stddef.h>

/* Whether tracing is on (1 to 3), else 0. */
int coll_trace_level(void);
/* Records the choice for the call being built; only the first record of a call counts (a
 * level that runs a whole collective on another communicator does not overwrite it). */
void coll_trace_note(const char *level, const char *algo, size_t size);
/* Prints the call's line (s: its schedule, NULL for the direct path) and forgets the record. */
void coll_trace_emit(const char *func, const comm_t *c, const icoll_sched_t *s);

#endif
