#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int timings_init(timings_t *tm, int steps)
{
    tm->steps = steps;
    tm->t = calloc((size_t)steps * T_SLOTS, sizeof(double));
    return tm->t ? 0 : -1;
}

void timings_free(timings_t *tm)
{
    free(tm->t);
    tm->t = NULL;
}

static int write_times(const char *path, const decomp_t *d, const placement_t *pl,
                       const timings_t *tm, const double *mean, const double *slowest,
                       int warmup)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "metampi-demo: --times: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# metampi-demo: seconds per step, mean over the ranks; max: the slowest rank's "
               "whole step; reduce: the part of local or wan (wan with several sites) spent in "
               "MPI_Allreduce\n");
    fprintf(f, "# ranks %d sites %d grid %dx%dx%d dims %dx%dx%d warmup %d\n", d->size,
            pl->nsites, d->grid[0], d->grid[1], d->grid[2], d->dims[0], d->dims[1], d->dims[2],
            warmup);
    fprintf(f, "# step compute local wan max reduce\n");
    for (int s = 0; s < tm->steps; s++) {
        const double *m = &mean[T_SLOTS * s];
        fprintf(f, "%d %.9f %.9f %.9f %.9f %.9f\n", s + 1, m[T_COMPUTE], m[T_LOCAL], m[T_WAN],
                slowest[s], m[T_REDUCE]);
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "metampi-demo: --times: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

int report_times(const decomp_t *d, const placement_t *pl, const timings_t *tm,
                 const demo_options_t *o)
{
    size_t n = (size_t)tm->steps * T_SLOTS;
    double *total = malloc((size_t)tm->steps * sizeof(double));
    double *mean = d->rank == 0 ? malloc(n * sizeof(double)) : NULL;
    double *slowest = d->rank == 0 ? malloc((size_t)tm->steps * sizeof(double)) : NULL;
    if (!total || (d->rank == 0 && (!mean || !slowest))) {
        fprintf(stderr, "metampi-demo: out of memory\n");
        MPI_Abort(d->cart, 1);
    }
    for (int s = 0; s < tm->steps; s++)
        total[s] = tm->t[T_SLOTS * s + T_COMPUTE] + tm->t[T_SLOTS * s + T_LOCAL] +
                   tm->t[T_SLOTS * s + T_WAN];
    MPI_Reduce(tm->t, mean, (int)n, MPI_DOUBLE, MPI_SUM, 0, d->cart);
    MPI_Reduce(total, slowest, tm->steps, MPI_DOUBLE, MPI_MAX, 0, d->cart);
    free(total);
    int rc = 0;
    if (d->rank == 0) {
        for (size_t i = 0; i < n; i++)
            mean[i] /= d->size;
        double avg[T_SLOTS] = { 0, 0, 0, 0 }, warm = 0;
        int counted = tm->steps - o->warmup;
        for (int s = 0; s < tm->steps; s++) {
            const double *m = &mean[T_SLOTS * s];
            if (s < o->warmup) {
                warm += m[T_COMPUTE] + m[T_LOCAL] + m[T_WAN];
                continue;
            }
            for (int p = 0; p < T_SLOTS; p++)
                avg[p] += m[p] / counted;
        }
        printf("time per step, ms (mean over %d ranks, steps %d-%d):\n", d->size, o->warmup + 1,
               tm->steps);
        printf("  compute %.3f  local comm %.3f  WAN comm %.3f  total %.3f\n",
               1e3 * avg[T_COMPUTE], 1e3 * avg[T_LOCAL], 1e3 * avg[T_WAN],
               1e3 * (avg[T_COMPUTE] + avg[T_LOCAL] + avg[T_WAN]));
        printf("  (of the %s comm: MPI_Allreduce %.3f, faces %.3f)\n",
               pl->nsites > 1 ? "WAN" : "local", 1e3 * avg[T_REDUCE],
               1e3 * (avg[pl->nsites > 1 ? T_WAN : T_LOCAL] - avg[T_REDUCE]));
        if (o->warmup > 0)
            printf("  (the first %d step%s, opening connections: %.3f ms in all)\n", o->warmup,
                   o->warmup == 1 ? "" : "s", 1e3 * warm);
        if (o->times_file)
            rc = write_times(o->times_file, d, pl, tm, mean, slowest, o->warmup);
    }
    free(mean);
    free(slowest);
    return rc;
}
