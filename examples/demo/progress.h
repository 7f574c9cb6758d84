/*
 * The progress display of rank 0. On a terminal, one line rewritten in place (at most ten
 * times a second); otherwise a plain line every tenth of the run, starting "step S/N", which
 * the demo runner turns back into a bar (mpirun forwards whole lines only).
 */
#ifndef DEMO_PROGRESS_H
#define DEMO_PROGRESS_H

#include "options.h"

typedef struct progress {
    progress_mode_t mode;   /* BAR, LINES or NONE (AUTO resolved) */
    int steps, every;       /* LINES: a line every `every` steps */
    int since;              /* steps since the last display */
    double sum[3];          /* their compute, local, WAN seconds */
    double shown_at;        /* BAR: MPI_Wtime of the last display */
} progress_t;

void progress_start(progress_t *p, progress_mode_t mode, int steps);
/* After step `step` (1-based) took t[3] seconds (compute, local, WAN); `residual` is the
 * last one reduced (negative: none yet). */
void progress_step(progress_t *p, int step, const double t[3], double residual);
void progress_end(progress_t *p);

#endif
