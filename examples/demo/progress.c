#include "progress.h"

#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define BAR_WIDTH 24

void progress_start(progress_t *p, progress_mode_t mode, int steps)
{
    if (mode == PROGRESS_AUTO)
        mode = isatty(STDOUT_FILENO) ? PROGRESS_BAR : PROGRESS_LINES;
    *p = (progress_t){ .mode = mode, .steps = steps, .every = steps >= 10 ? steps / 10 : 1 };
}

static void show_times(const progress_t *p, double residual)
{
    double n = p->since > 0 ? p->since : 1;
    if (residual >= 0)
        printf("  residual %.3e", residual);
    printf("  ms/step: compute %.2f local %.2f WAN %.2f", 1e3 * p->sum[0] / n,
           1e3 * p->sum[1] / n, 1e3 * p->sum[2] / n);
}

void progress_step(progress_t *p, int step, const double t[3], double residual)
{
    if (p->mode == PROGRESS_NONE)
        return;
    for (int i = 0; i < 3; i++)
        p->sum[i] += t[i];
    p->since++;
    int last = step == p->steps;
    if (p->mode == PROGRESS_LINES) {
        if (step % p->every != 0 && !last)
            return;
        printf("step %d/%d", step, p->steps);
        show_times(p, residual);
        putchar('\n');
    } else {
        double now = MPI_Wtime();
        if (now - p->shown_at < 0.1 && !last)
            return;
        p->shown_at = now;
        int fill = (int)((long)BAR_WIDTH * step / p->steps);
        printf("\rstep %*d/%d [%.*s%.*s]", snprintf(NULL, 0, "%d", p->steps), step, p->steps,
               fill, "########################", BAR_WIDTH - fill, "........................");
        show_times(p, residual);
        printf("\033[K");   /* clear what a longer previous line left */
    }
    fflush(stdout);
    p->since = 0;
    p->sum[0] = p->sum[1] = p->sum[2] = 0;
}

void progress_end(progress_t *p)
{
    if (p->mode == PROGRESS_BAR) {
        putchar('\n');
        fflush(stdout);
    }
}
