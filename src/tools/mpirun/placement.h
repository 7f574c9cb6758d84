/*
 * Which host runs each rank of a job on several hosts, and the PMI_process_mapping that
 * tells the ranks.
 *
 * --map-by slot (block): the first host's slots get ranks 0, 1, ..., then the next host's.
 * --map-by node (round-robin): ranks are dealt one per host in host order, skipping hosts
 * whose slots are full. Past the total slots (--oversubscribe) the same layout repeats:
 * rank r goes where rank r mod total_slots went. Hosts may end up with no rank.
 *
 * PMI_process_mapping: "(vector,(h,n,p),...)": each triple puts p consecutive ranks on each
 * of the n hosts h, h+1, ..., h+n-1; the triples follow in rank order; h is the host's
 * position in the host list. A layout is written with as few triples as this greedy
 * encoding finds; a value longer than the PMI value limit is not published (the library
 * then exchanges host names).
 */
#ifndef MPIRUN_PLACEMENT_H
#define MPIRUN_PLACEMENT_H

#include "hostlist.h"

#include <stddef.h>

/* host_of[0..np) = host index of each rank. */
void placement_place(const hostlist_t *l, int np, int by_node, int *host_of);

/* The same for hosts grouped in sites (--metacomputer): host_site[h] is the site of host h,
 * non-decreasing (a site's hosts are consecutive). Ranks are placed site by site: the first
 * site gets ranks 0, 1, ..., placed on its hosts by placement_place (by slot or by node
 * within the site), then the next site. Each site gets as many ranks as the repeating layout
 * gives it (with np up to the total slots: its slots, filled in site order; beyond them,
 * --oversubscribe, one more per pass over its slots), so every site's ranks stay
 * consecutive. */
void placement_place_sites(const hostlist_t *l, const int *host_site, int np, int by_node,
                           int *host_of);

/* The PMI_process_mapping value of host_of (malloc'ed); "" when longer than max chars. */
char *placement_mapping(const int *host_of, int np, size_t max);

#endif
