#include "core/wan_stats.h"

#include "runtime/job.h"
#include "runtime/sites.h"
#include "runtime/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int *wan_site_of;
int wan_my_site;
wan_counter_t *wan_counters;
static int *site_table;
static int nsites = 1;

int wan_stats_open(char *err, int errlen)
{
    nsites = sites_count();
    wan_my_site = sites_of(job.rank);
    if (nsites <= 1)
        return 0;
    site_table = malloc((size_t)job.size * sizeof *site_table);
    wan_counters = calloc((size_t)nsites, sizeof *wan_counters);
    if (!site_table || !wan_counters) {
        free(site_table);
        free(wan_counters);
        site_table = NULL;
        wan_counters = NULL;
        snprintf(err, (size_t)errlen, "out of memory for the WAN counters");
        return -1;
    }
    for (int r = 0; r < job.size; r++)
        site_table[r] = sites_of(r);
    wan_site_of = site_table;
    return 0;
}

void wan_stats_grow(const int *site_of)
{
    if (wan_site_of)
        wan_site_of = site_of;
}

void wan_stats_get(int t, uint64_t *messages, uint64_t *bytes)
{
    *messages = *bytes = 0;
    if (!wan_counters)
        return;
    for (int s = 0; s < nsites; s++)
        if (s != wan_my_site && (t < 0 || s == t)) {
            *messages += atomic_load_explicit(&wan_counters[s].messages, memory_order_relaxed);
            *bytes += atomic_load_explicit(&wan_counters[s].bytes, memory_order_relaxed);
        }
}

void wan_stats_close(void)
{
    if (tun_bool(TUN_WAN_STATS)) {
        /* one write per line, so the lines of different ranks do not interleave; each field
         * takes at most 4 + 3 + 2 * 20 + 2 characters */
        size_t cap = 128 + (size_t)nsites * 64;
        char *line = malloc(cap);
        uint64_t m, b;
        wan_stats_get(-1, &m, &b);
        int len = line ? snprintf(line, cap, "metampi-wan-stats rank=%d site=%d messages=%llu "
                                  "bytes=%llu", job.rank, wan_my_site, (unsigned long long)m,
                                  (unsigned long long)b)
                       : -1;
        for (int t = 0; t < nsites && len > 0; t++)
            if (t != wan_my_site) {
                wan_stats_get(t, &m, &b);
                len += snprintf(line + len, cap - (size_t)len, " to%d=%llu/%llu", t,
                                (unsigned long long)m, (unsigned long long)b);
            }
        if (len > 0) {
            line[len++] = '\n';
            fwrite(line, 1, (size_t)len, stderr);
            fflush(stderr);
        }
        free(line);
    }
    wan_site_of = NULL;
    free(site_table);
    site_table = NULL;
    free(wan_counters);
    wan_counters = NULL;
    nsites = 1;
}
