/*
 * What this rank sends, per level of the machine: to itself, to ranks of its host (shared
 * memory), to other hosts of its site (TCP) and to other sites (the WAN). Counted where
 * point-to-point messages of every kind are handed to the protocol (core/p2p.c, next to
 * core/wan_stats.h's per-site counts), so each MPI message counts once, with its payload bytes;
 * protocol control frames and transport headers are not counted. Read by the tools
 * interface's performance variables (api/mpit_pvar.c).
 *
 * Counting is off until a tool asks for it (traffic_enable): until then the hot path pays
 * one predictable branch; afterwards a table lookup and two relaxed atomic additions per
 * message. The counts only grow; readers take differences.
 */
#ifndef METAMPI_CORE_TRAFFIC_H
#define METAMPI_CORE_TRAFFIC_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef enum traffic_level {
    TRAFFIC_SELF,
    TRAFFIC_SHM,
    TRAFFIC_TCP,
    TRAFFIC_WAN,
    TRAFFIC_LEVELS
} traffic_level_t;

typedef struct traffic_counter {
    _Atomic uint64_t messages, bytes;
} traffic_counter_t;

/* The level of every job rank while counting is on, else NULL. */
extern const uint8_t *traffic_level_of;
extern traffic_counter_t traffic_counters[TRAFFIC_LEVELS];

/* After the job's layout is known (p2p_open): host_of and site_of per job rank. 0, or -1
 * when out of memory (message in err). */
int traffic_open(const int *host_of, const int *site_of, int rank, int size, char *err,
                 int errlen);
/* At MPI_Finalize: counting stops; the counts stay readable. */
void traffic_close(void);
/* Counting starts now (or at traffic_open, when called before it) and stays on. */
void traffic_enable(void);

static inline void traffic_count(int world_rank, size_t bytes)
{
    if (!traffic_level_of)
        return;
    traffic_counter_t *c = &traffic_counters[traffic_level_of[world_rank]];
    atomic_fetch_add_explicit(&c->messages, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
}

/* The counts so far to level l. */
void traffic_get(traffic_level_t l, uint64_t *messages, uint64_t *bytes);

#endif
