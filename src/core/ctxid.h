/*
 * Context-id allocation: every new communicator needs a context id (a pair: recv_ctx even,
 * recv_ctx + 1 internal, see comm.h) that is free at each of its members. Ids are per
 * process: two communicators with no common member may share one.
 *
 * Each process keeps a bitmask of free pairs (core/ctxid_pool.h: CTXID_PAIRS of them; pairs
 * 0 and 1 are MPI_COMM_WORLD's and MPI_COMM_SELF's; MPI_Finalize's context 0xfffffff0 is
 * far above).
 * An agreement over a communicator runs rounds of two phases:
 *
 *   phase 1  allreduce-AND of every member's free mask (minus the pairs other agreements of
 *            the member have claimed) -> the lowest n common pairs are the candidates;
 *   phase 2  each member votes: yes, and claims the candidates, when they are still free and
 *            unclaimed; allreduce-AND of the votes -> all yes: commit, else release the claim
 *            and start a new round.
 *
 * Nothing is reserved in phase 1, so an agreement that waits for members which have not
 * started it yet (nonblocking MPI_Comm_idup, in any order on different communicators) holds
 * nothing other agreements need. (Reserving the contributed bits until the round ends — the
 * obvious scheme — deadlocks when a rank waits for one idup before starting another that a
 * second rank started first, and livelocks when two ranks start two idups in opposite
 * orders: each holds what the other's round needs, round after round.) A claim exists only during phase 2, when every member has
 * entered the round. Conflicting claims are ordered by the agreements' keys (comm.h: the
 * same at every member, distinct at one process; a lower key has priority): a member whose
 * candidate is claimed by a higher-priority agreement votes no at once; one whose candidate
 * is claimed by a lower-priority agreement waits until that claim is resolved. Waits thus
 * only point from higher to lower priority, so they cannot form a cycle; the highest-priority
 * agreement of any conflict fails only if its candidate was committed meanwhile (someone
 * progressed). A candidate is committed only when every member voted yes, and a yes vote
 * means the voter holds the only claim on it, so no process ever gives one pair to two
 * communicators.
 *
 * Bounds. A round allocates nothing (the schedule drops finished rounds, reductions reuse one
 * buffer); a round that found no common pair only because claims hid some waits until a claim
 * held here ends instead of spinning; phase 1 also carries a "go on" word, which a member
 * clears after MAX_ROUNDS (ctxid.c) rounds, so an agreement that cannot converge (members not
 * running the same agreement) ends with MPI_ERR_INTERN at every member. Exhaustion (nothing
 * common and no claims anywhere) is MPI_ERR_OTHER.
 */
#ifndef METAMPI_CTXID_H
#define METAMPI_CTXID_H

#include "core/ctxid_pool.h"
#include "core/icoll.h"

#include <stdint.h>

/* Appends to s an agreement on n (1 or 2) context ids free at every member of c (for an
 * inter-communicator: of both groups), written to ctx[0..n) when the agreement ends. key:
 * see above (comm_next_op()). */
void ctxid_sched_agree(icoll_sched_t *s, comm_t *c, int n, uint64_t key, uint32_t *ctx);
/* Blocking agreement as the next collective operation on c. */
int ctxid_agree(comm_t *c, int n, uint32_t *ctx);
/* Blocking agreement on one context id over team t (a subgroup of an intra-communicator,
 * MPI_Comm_create_group), its messages carrying tag, with agreement key key. */
int ctxid_agree_team(const icoll_team_t *t, int tag, uint64_t key, uint32_t *ctx);

#endif
