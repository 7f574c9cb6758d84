/*
 * A rank's traffic report for mpirun --report, as one printable line without spaces (a PMI
 * value once cut into pieces; docs/report.md has the whole path):
 *
 *   v1;r<rank>;s<site>;L<m>.<b>,<m>.<b>,<m>.<b>,<m>.<b>;W<ns>,<ns>,<ns>,<ns>,<ns>;
 *   S<site>:<m>.<b>,...;P<rank>:<m>.<b>,...;O<m>.<b>
 *
 * L: messages.bytes sent per level (self, shm, tcp, wan); W: nanoseconds blocked in waits,
 * by the level of the message that ended them (self, shm, tcp, wan, none); S: sent per
 * destination site, sites with traffic only, ascending; P: the (at most top) destination
 * ranks this rank sent the most bytes to (ties: the lower rank), ascending by rank; O: what
 * went to all other ranks together. So every pair of the job's top `top` pairs by bytes is
 * exact in the sender's P: a pair missing there is below `top` others of that sender.
 */
#ifndef METAMPI_CORE_TRAFFIC_REPORT_H
#define METAMPI_CORE_TRAFFIC_REPORT_H

#include "core/traffic.h"

#include <stdint.h>

#define TRAFFIC_REPORT_TOP 64      /* destination ranks a report names */
#define TRAFFIC_REPORT_PIECE 1000  /* characters per PMI value */

typedef struct traffic_sum {
    uint64_t messages, bytes;
} traffic_sum_t;

typedef struct traffic_snapshot {
    int rank, site, size;
    traffic_sum_t level[TRAFFIC_LEVELS];
    uint64_t wait_ns[TRAFFIC_LEVELS + 1];
    const traffic_sum_t *peer;  /* size entries */
    const int *site_of;         /* size entries */
} traffic_snapshot_t;

/* The report line (malloc'ed), or NULL when out of memory. Pure. */
char *traffic_report_encode(const traffic_snapshot_t *s, int top);

#endif
