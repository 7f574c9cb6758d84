#include "core/traffic.h"

#include "core/traffic_report.h"
#include "runtime/job.h"
#include "runtime/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const uint8_t *traffic_level_of;
traffic_counter_t traffic_counters[TRAFFIC_LEVELS];
traffic_counter_t *traffic_peer;
int traffic_timing;
_Atomic int traffic_last_level;
static uint8_t *table;
static traffic_counter_t *peer_table;
static _Atomic uint64_t wait_ns[TRAFFIC_LEVELS + 1];
static _Atomic int wanted;
static const int *sites;
static int my_rank, job_size;
static int table_size;            /* entries of table (and peer_table): job_size + others */
static int report_wanted;

int traffic_open(const int *host_of, const int *site_of, int rank, int size, char *err,
                 int errlen)
{
    int report = tun_bool(TUN_REPORT);
    table = malloc((size_t)size);
    peer_table = report ? calloc((size_t)size, sizeof *peer_table) : NULL;
    if (!table || (report && !peer_table)) {
        free(table);
        table = NULL;
        snprintf(err, (size_t)errlen, "out of memory for the traffic counters");
        return -1;
    }
    for (int r = 0; r < size; r++)
        table[r] = r == rank                     ? TRAFFIC_SELF
                   : host_of[r] == host_of[rank] ? TRAFFIC_SHM
                   : site_of[r] == site_of[rank] ? TRAFFIC_TCP
                                                 : TRAFFIC_WAN;
    sites = site_of;
    my_rank = rank;
    job_size = table_size = size;
    if (report) {
        traffic_peer = peer_table;
        traffic_timing = 1;
        atomic_store(&wanted, 1);
    }
    if (atomic_load(&wanted))
        traffic_level_of = table;
    return 0;
}

void traffic_wait_end(uint64_t ns)
{
    int l = atomic_load_explicit(&traffic_last_level, memory_order_relaxed);
    if (l < 0 || l > TRAFFIC_LEVELS)
        l = TRAFFIC_LEVELS;
    atomic_fetch_add_explicit(&wait_ns[l], ns, memory_order_relaxed);
}

int traffic_grow(int total)
{
    if (total <= table_size)
        return 0;
    uint8_t *t = realloc(table, (size_t)total);
    if (!t)
        return -1;
    table = t;
    for (int r = table_size; r < total; r++)
        table[r] = TRAFFIC_TCP;   /* processes of other parts: over TCP (docs/dynproc.md),
                                   * or across the WAN (traffic_mark_wan) */
    if (peer_table) {
        traffic_counter_t *p = realloc(peer_table, (size_t)total * sizeof *p);
        if (!p)
            return -1;
        memset(p + table_size, 0, (size_t)(total - table_size) * sizeof *p);
        peer_table = p;
        traffic_peer = p;
    }
    table_size = total;
    if (traffic_level_of)
        traffic_level_of = table;
    return 0;
}

void traffic_mark_wan(int r)
{
    if (r >= 0 && r < table_size)
        table[r] = TRAFFIC_WAN;
}

/* The report of this rank, made when counting stops (traffic_close), sent by
 * traffic_report_send. */
static char *report_line;

static char *make_report(void)
{
    traffic_sum_t *peer = malloc((size_t)job_size * sizeof *peer);
    if (!peer)
        return NULL;
    traffic_snapshot_t s = { .rank = my_rank, .site = sites[my_rank], .size = job_size,
                             .peer = peer, .site_of = sites };
    for (int r = 0; r < job_size; r++)
        peer[r] = (traffic_sum_t){ atomic_load(&peer_table[r].messages),
                                   atomic_load(&peer_table[r].bytes) };
    for (int l = 0; l < TRAFFIC_LEVELS; l++)
        traffic_get((traffic_level_t)l, &s.level[l].messages, &s.level[l].bytes);
    for (int l = 0; l <= TRAFFIC_LEVELS; l++)
        s.wait_ns[l] = atomic_load(&wait_ns[l]);
    char *line = traffic_report_encode(&s, TRAFFIC_REPORT_TOP);
    free(peer);
    return line;
}

void traffic_close(void)
{
    traffic_level_of = NULL; /* counting stops: the report covers what came before */
    traffic_timing = 0;
    if (traffic_peer) {
        traffic_peer = NULL;
        report_line = make_report();
        report_wanted = 1;
    }
    free(table);
    table = NULL;
    free(peer_table);
    peer_table = NULL;
    sites = NULL;
}

int traffic_report_send(char *err, int errlen)
{
    if (!report_wanted)
        return 0;
    report_wanted = 0;
    char *line = report_line;
    report_line = NULL;
    if (!line) {
        snprintf(err, (size_t)errlen, "out of memory for the traffic report (mpirun --report)");
        return -1;
    }
    size_t len = strlen(line);
    size_t pieces = (len + TRAFFIC_REPORT_PIECE - 1) / TRAFFIC_REPORT_PIECE;
    char key[64], value[TRAFFIC_REPORT_PIECE + 1];
    snprintf(key, sizeof key, "metampi-report.%d", my_rank);
    snprintf(value, sizeof value, "%zu", pieces);
    int rc = job_put(key, value, err, errlen);
    for (size_t i = 0; i < pieces && rc == 0; i++) {
        size_t n = len - i * TRAFFIC_REPORT_PIECE;
        if (n > TRAFFIC_REPORT_PIECE)
            n = TRAFFIC_REPORT_PIECE;
        memcpy(value, line + i * TRAFFIC_REPORT_PIECE, n);
        value[n] = '\0';
        snprintf(key, sizeof key, "metampi-report.%d.%zu", my_rank, i);
        rc = job_put(key, value, err, errlen);
    }
    free(line);
    return rc == 0 ? job_barrier(err, errlen) : rc;
}

void traffic_enable(void)
{
    atomic_store(&wanted, 1);
    if (table)
        traffic_level_of = table;
}

void traffic_get(traffic_level_t l, uint64_t *messages, uint64_t *bytes)
{
    *messages = atomic_load_explicit(&traffic_counters[l].messages, memory_order_relaxed);
    *bytes = atomic_load_explicit(&traffic_counters[l].bytes, memory_order_relaxed);
}
