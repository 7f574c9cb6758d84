/*
 * The report's data, shared by report.c (collecting, parsing) and report_out.c (adding up,
 * the table, the JSON). Nothing else includes this.
 */
#ifndef MPIRUN_REPORT_INT_H
#define MPIRUN_REPORT_INT_H

#include <stdint.h>
#include <stdio.h>

enum { RP_SELF, RP_SHM, RP_TCP, RP_WAN, RP_LEVELS };

typedef struct rp_sum {
    uint64_t messages, bytes;
} rp_sum_t;

typedef struct rp_peer {
    int rank;
    rp_sum_t sent;
} rp_peer_t;

/* One rank's report (core/traffic_report.h has the line it comes from). */
typedef struct rp_rank {
    int have;
    int site;
    rp_sum_t level[RP_LEVELS];
    uint64_t wait_ns[RP_LEVELS + 1];   /* by level of the message that ended the wait; none */
    rp_sum_t *to_site;                 /* nsites entries */
    rp_peer_t *peer;                   /* the destinations it sent most to, ascending */
    int npeers;
    rp_sum_t other;                    /* to every other destination */
} rp_rank_t;

/* One gateway's link to another site. */
typedef struct rp_link {
    char *site, *to;
    uint64_t rank_frames, wan_frames, wan_bytes, raw_bytes, rank_frames_in, wan_frames_in;
} rp_link_t;

typedef struct rp {
    int table;              /* --report */
    const char *path;       /* --report-file */
    FILE *file;
    int size, first, np;
    int nsites;
    char **site_name;       /* nsites names ("" for a job without sites) */
    rp_rank_t *rank;        /* size entries; only first .. first + np - 1 can have one */
    rp_link_t *link;
    int nlinks;
} rp_t;

/* A rank's line into r (rank and site checked against the job); 0, or -1 with why. Pure. */
int rp_parse_rank(const char *line, int rank, int size, int nsites, rp_rank_t *r, char *why,
                  size_t cap);
/* One line of gateway counters; 0, or -1 when it is not one. Pure. */
int rp_parse_link(const char *line, rp_link_t *l);

void rp_print_table(const rp_t *rp, FILE *f);
void rp_write_json(const rp_t *rp, FILE *f);

#endif
