/*
 * What this rank sends across the WAN: the messages and payload bytes it hands to the
 * protocol for ranks at another site (runtime/sites.h), counted per destination site. The
 * counter sits where point-to-point messages of every kind (user sends of all modes, and the
 * messages collectives and the library's own operations send) are handed to the protocol
 * (core/p2p.c), so it sees each MPI message once; it does not see protocol control frames
 * (rendezvous handshakes), transport headers, or shared-memory remote reads (never across
 * sites). A message of 0 bytes counts as one message.
 *
 * The counting costs one predictable branch per message in a single-site job (no table) and
 * a table lookup plus two relaxed atomic additions per cross-site message.
 *
 * METAMPI_WAN_STATS=1 prints, at MPI_Finalize before its closing barrier, one line per rank on
 * stderr (the format is documented in README.md, "Diagnostics"):
 *   metampi-wan-stats rank=R site=S messages=M bytes=B to<T>=M/B ...
 * M and B the totals to other sites, then one to<T>= field per other site T of the job.
 */
#ifndef METAMPI_CORE_WAN_STATS_H
#define METAMPI_CORE_WAN_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct wan_counter {
    _Atomic uint64_t messages, bytes;
} wan_counter_t;

/* The site of every job rank and one counter per site; site_of is NULL in a one-site job. */
extern const int *wan_site_of;
extern int wan_my_site;
extern wan_counter_t *wan_counters;

/* After the site layout is known (sites_init). 0, or -1 when out of memory (message in err). */
int wan_stats_open(char *err, int errlen);
/* Processes of other parts joined (core/p2p.c, p2p_grow): site_of covers every job rank now
 * (p2p's array, valid until MPI_Finalize); counting reads it from here on. */
void wan_stats_grow(const int *site_of);
/* Prints the report when METAMPI_WAN_STATS=1; frees the tables. */
void wan_stats_close(void);

/* Counts one message of bytes to job rank world_rank. */
static inline void wan_stats_count(int world_rank, size_t bytes)
{
    if (!wan_site_of)
        return;
    int t = wan_site_of[world_rank];
    if (t == wan_my_site)
        return;
    atomic_fetch_add_explicit(&wan_counters[t].messages, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&wan_counters[t].bytes, bytes, memory_order_relaxed);
}

/* The counts so far to site t, or to all other sites together (t = -1). */
void wan_stats_get(int t, uint64_t *messages, uint64_t *bytes);

#endif
