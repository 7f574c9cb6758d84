/*
 * The ghost-face exchange with the six neighbours, timed in two parts.
 *
 * Order (the remote ones first, so the WAN's latency starts running as early as possible):
 *   1. post the receives and sends with neighbours at other sites,
 *   2. post those with neighbours at this site, wait for them       -> local time,
 *   3. wait for the ones with other sites                          -> WAN time.
 * WAN time is 1 + 3: posting the remote transfers and what is left of them once the local
 * ones are done, i.e. how much longer the step waits because a neighbour is across the WAN.
 * With no remote neighbour it is (next to) 0; with only remote neighbours, local time is 0.
 */
#ifndef DEMO_HALO_H
#define DEMO_HALO_H

#include "decomp.h"
#include "placement.h"

/* Exchanges the ghost faces of u; adds the seconds spent to *local and *wan. */
void halo_exchange(const decomp_t *d, const placement_t *pl, double *u, double *local,
                   double *wan);

#endif
