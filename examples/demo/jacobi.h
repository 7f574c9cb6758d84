/*
 * The numerical part: Jacobi iteration for the Poisson equation -Laplace(u) = f on the
 * global grid (unit spacing, u = 0 on the boundary), with a hot and a cold box as sources:
 *     u'(p) = (u(p-x) + u(p+x) + u(p-y) + u(p+y) + u(p-z) + u(p+z) + f(p)) / 6
 * Every point's new value is computed from the same seven numbers in the same order however
 * the grid is split, so the result is bitwise the same for any number of ranks and any
 * placement: that is what the checksum shows.
 */
#ifndef DEMO_JACOBI_H
#define DEMO_JACOBI_H

#include "decomp.h"

#include <stdint.h>

typedef struct field {
    double *u, *next;   /* current and next iterate, ghosts included (decomp_at) */
    double *f;          /* the source term */
} field_t;

/* u = 0 everywhere, f set from the global position of each point. 0, or -1 out of memory. */
int field_init(const decomp_t *d, field_t *fl);
void field_free(field_t *fl);

/* One sweep over the local interior (the ghosts of u must be current); u and next swap.
 * Returns the largest change of a local point, |u' - u|. */
double jacobi_sweep(const decomp_t *d, field_t *fl);

/* The largest local value of u. */
double field_max(const decomp_t *d, const field_t *fl);

/* The local part of the checksum: a 64-bit hash of every interior point's global index and
 * the bits of its value, summed modulo 2^64. Summed over the ranks (MPI_UINT64_T, MPI_SUM,
 * exact and order-independent) it identifies the global field whatever the decomposition. */
uint64_t field_checksum(const decomp_t *d, const field_t *fl);

#endif
