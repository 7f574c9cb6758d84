/*
 * The time per step of every rank, split into computation, communication within the site
 * and communication across the WAN, and the summary of them at the end: the mean over the
 * ranks of each part per step (what the plot shows), and the mean over the steps after the
 * warm-up (the first steps also open the connections).
 */
#ifndef DEMO_REPORT_H
#define DEMO_REPORT_H

#include "decomp.h"
#include "options.h"
#include "placement.h"

/* A step's time is T_COMPUTE + T_LOCAL + T_WAN; T_REDUCE is the part of these spent in the
 * global reduction (in T_WAN when the job spans several sites, else in T_LOCAL). */
enum { T_COMPUTE = 0, T_LOCAL = 1, T_WAN = 2, T_REDUCE = 3, T_SLOTS = 4 };

typedef struct timings {
    int steps;
    double *t;   /* t[T_SLOTS * step + slot], seconds, step 0-based */
} timings_t;

int timings_init(timings_t *tm, int steps);
void timings_free(timings_t *tm);

/* Collective over d->cart. Rank 0 prints the summary and writes o->times_file if given.
 * 0, or -1 (at rank 0, with a message) when the file cannot be written. */
int report_times(const decomp_t *d, const placement_t *pl, const timings_t *tm,
                 const demo_options_t *o);

#endif
