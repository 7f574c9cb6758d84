#include "jacobi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether global index g of a dimension of G points lies in the box centred at c % of the
 * dimension with half-width w %: |100 g - c G| <= w G, in integers so no rounding differs
 * between ranks. */
static int in_box(int g, int G, int c, int w)
{
    long x = 100L * g - (long)c * G;
    return labs(x) <= (long)w * G;
}

static double source(const int gidx[3], const int grid[3])
{
    static const int hot[3] = { 30, 40, 50 }, cold[3] = { 70, 60, 35 };
    int h = 1, c = 1;
    for (int e = 0; e < 3; e++) {
        h &= in_box(gidx[e], grid[e], hot[e], 10);
        c &= in_box(gidx[e], grid[e], cold[e], 8);
    }
    return h ? 1.0 : c ? -0.75 : 0.0;
}

int field_init(const decomp_t *d, field_t *fl)
{
    size_t n = decomp_points(d);
    fl->u = calloc(n, sizeof(double));
    fl->next = calloc(n, sizeof(double));
    fl->f = calloc(n, sizeof(double));
    if (!fl->u || !fl->next || !fl->f) {
        field_free(fl);
        return -1;
    }
    for (int i = 1; i <= d->n[0]; i++)
        for (int j = 1; j <= d->n[1]; j++)
            for (int k = 1; k <= d->n[2]; k++) {
                int g[3] = { d->off[0] + i - 1, d->off[1] + j - 1, d->off[2] + k - 1 };
                fl->f[decomp_at(d, i, j, k)] = source(g, d->grid);
            }
    return 0;
}

void field_free(field_t *fl)
{
    free(fl->u);
    free(fl->next);
    free(fl->f);
    fl->u = fl->next = fl->f = NULL;
}

double jacobi_sweep(const decomp_t *d, field_t *fl)
{
    const size_t sx = (size_t)(d->n[1] + 2) * (size_t)(d->n[2] + 2), sy = (size_t)(d->n[2] + 2);
    const double *restrict u = fl->u, *restrict f = fl->f;
    double *restrict v = fl->next;
    double change = 0.0;
    for (int i = 1; i <= d->n[0]; i++)
        for (int j = 1; j <= d->n[1]; j++) {
            size_t p = decomp_at(d, i, j, 1);
            for (int k = 0; k < d->n[2]; k++, p++) {
                double x = (u[p - sx] + u[p + sx] + u[p - sy] + u[p + sy] + u[p - 1] + u[p + 1] +
                            f[p]) / 6.0;
                double dx = fabs(x - u[p]);
                change = dx > change ? dx : change;
                v[p] = x;
            }
        }
    double *t = fl->u;
    fl->u = fl->next;
    fl->next = t;
    return change;
}

double field_max(const decomp_t *d, const field_t *fl)
{
    double m = -HUGE_VAL;
    for (int i = 1; i <= d->n[0]; i++)
        for (int j = 1; j <= d->n[1]; j++)
            for (int k = 1; k <= d->n[2]; k++) {
                double x = fl->u[decomp_at(d, i, j, k)];
                m = x > m ? x : m;
            }
    return m;
}

/* splitmix64's finaliser: every input bit affects every output bit. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t field_checksum(const decomp_t *d, const field_t *fl)
{
    uint64_t sum = 0;
    for (int i = 1; i <= d->n[0]; i++)
        for (int j = 1; j <= d->n[1]; j++)
            for (int k = 1; k <= d->n[2]; k++) {
                uint64_t g = ((uint64_t)(d->off[0] + i - 1) * (uint64_t)d->grid[1] +
                              (uint64_t)(d->off[1] + j - 1)) * (uint64_t)d->grid[2] +
                             (uint64_t)(d->off[2] + k - 1);
                uint64_t bits;
                double x = fl->u[decomp_at(d, i, j, k)];
                memcpy(&bits, &x, sizeof bits);
                sum += mix(mix(g) ^ bits);
            }
    return sum;
}
