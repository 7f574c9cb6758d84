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
 *
 * mpirun --report (METAMPI_REPORT=1 in the ranks' environment) also turns on, from
 * traffic_open, the counts per destination rank and the time spent waiting (below), and at
 * MPI_Finalize this rank hands its report to the launcher through the PMI key-value space
 * (traffic_report.c; docs/report.md). Without --report the per-peer table does not exist and
 * the hot path is unchanged.
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
/* --report: one counter per job rank (what this rank sent it), else NULL. Set only while
 * traffic_level_of is. */
extern traffic_counter_t *traffic_peer;
/* --report: waits are timed (traffic_wait_*). */
extern int traffic_timing;
/* The level of the message that arrived last (TRAFFIC_LEVELS: none since the wait began). */
extern _Atomic int traffic_last_level;

/* After the job's layout is known (p2p_open): host_of and site_of per job rank; site_of
 * must stay valid until traffic_close. 0, or -1 when out of memory (message in err). */
int traffic_open(const int *host_of, const int *site_of, int rank, int size, char *err,
                 int errlen);
/* At MPI_Finalize: counting stops; the counts stay readable. With --report, this rank's
 * report is made now, from the counts so far. */
void traffic_close(void);
/* With --report: this rank's report goes to the launcher (PMI puts, then a PMI barrier, which
 * carries every rank's puts to mpirun). Called by every rank, after the transports are
 * closed: the barrier blocks, and no peer may need this rank's progress any more. 0, or -1
 * with a message in err. Without --report: 0 at once. */
int traffic_report_send(char *err, int errlen);
/* Counting starts now (or at traffic_open, when called before it) and stays on. */
void traffic_enable(void);

static inline void traffic_count(int world_rank, size_t bytes)
{
    if (!traffic_level_of)
        return;
    traffic_counter_t *c = &traffic_counters[traffic_level_of[world_rank]];
    atomic_fetch_add_explicit(&c->messages, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
    if (traffic_peer) {
        c = &traffic_peer[world_rank];
        atomic_fetch_add_explicit(&c->messages, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
    }
}

/* A message from world_rank arrived (core/match.c). */
static inline void traffic_arrived(int world_rank)
{
    if (traffic_timing && traffic_level_of)
        atomic_store_explicit(&traffic_last_level, traffic_level_of[world_rank],
                              memory_order_relaxed);
}

/* Time blocked in a wait (core/progress.c): a wait that could not end at once begins, and
 * ends after ns nanoseconds; the time is charged to the level of the last message that
 * arrived during it (the one that ended it, as a rule), or to "none" when none arrived
 * (completions of sends, shared-memory collectives, RMA). */
static inline void traffic_wait_begin(void)
{
    atomic_store_explicit(&traffic_last_level, TRAFFIC_LEVELS, memory_order_relaxed);
}
void traffic_wait_end(uint64_t ns);

/* Room for the counters of job ranks up to total (processes of other parts, counted as
 * TCP): 0, or -1 when out of memory. Not while another thread counts (the core lock). */
int traffic_grow(int total);
/* Job rank r, of another part, runs at another site: its traffic counts at the WAN level. */
void traffic_mark_wan(int r);

/* The counts so far to level l. */
void traffic_get(traffic_level_t l, uint64_t *messages, uint64_t *bytes);

#endif
