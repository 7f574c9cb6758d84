/*
 * The demo's command line. Every rank parses the same arguments; only rank 0 reports a
 * mistake, and every rank then leaves with exit status 2.
 */
#ifndef DEMO_OPTIONS_H
#define DEMO_OPTIONS_H

typedef enum { PROGRESS_AUTO, PROGRESS_BAR, PROGRESS_LINES, PROGRESS_NONE } progress_mode_t;

typedef struct demo_options {
    int grid[3];            /* global interior points per dimension */
    int steps;              /* Jacobi sweeps */
    int reduce_every;       /* global reduction after every K-th step (and after the last) */
    int warmup;             /* first steps left out of the means (connection set-up) */
    const char *times_file; /* per-step times (mean over ranks) written here by rank 0 */
    progress_mode_t progress;
} demo_options_t;

/* 0 on success; 1 after --help (usage printed by rank 0); 2 on a mistake (reported by
 * rank 0 as "metampi-demo: OPTION: what is wrong"). */
int options_parse(int argc, char **argv, int rank, demo_options_t *o);

#endif
