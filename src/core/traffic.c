#include "core/traffic.h"

#include <stdio.h>
#include <stdlib.h>

const uint8_t *traffic_level_of;
traffic_counter_t traffic_counters[TRAFFIC_LEVELS];
static uint8_t *table;
static _Atomic int wanted;

int traffic_open(const int *host_of, const int *site_of, int rank, int size, char *err,
                 int errlen)
{
    table = malloc((size_t)size);
    if (!table) {
        snprintf(err, (size_t)errlen, "out of memory for the traffic counters");
        return -1;
    }
    for (int r = 0; r < size; r++)
        table[r] = r == rank                     ? TRAFFIC_SELF
                   : host_of[r] == host_of[rank] ? TRAFFIC_SHM
                   : site_of[r] == site_of[rank] ? TRAFFIC_TCP
                                                 : TRAFFIC_WAN;
    if (atomic_load(&wanted))
        traffic_level_of = table;
    return 0;
}

void traffic_close(void)
{
    traffic_level_of = NULL;
    free(table);
    table = NULL;
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
