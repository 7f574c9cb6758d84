/*
 * Subarray and distributed-array types (MPI-3.1 §4.1.3, §4.1.4), built as their definitions
 * in the standard read: one dimension at a time, fastest-varying first (dimension 0 in
 * Fortran order, ndims-1 in C order), each step placing copies of the type built so far and
 * resizing the result to [0, size of the dimension × extent of that type). The outcome is the
 * equiv of a type that keeps the user's envelope.
 */
#include "datatype/construct.h"

#include <stdlib.h>

/* Takes over *cur (one reference) and replaces it with next's result. */
static int step(dtype_t **cur, int rc, dtype_t *next)
{
    dtype_release(*cur);
    *cur = rc == MPI_SUCCESS ? next : NULL;
    return rc;
}

/* cur := n copies of cur placed at disp, then resized to [0, extent). */
static int place(dtype_t **cur, MPI_Count n, MPI_Aint disp, MPI_Aint extent)
{
    dtype_t *t = NULL;
    const int ints[2] = {1, (int)n};
    int rc = dtype_create(MPI_COMBINER_HINDEXED_BLOCK, 2, ints, 1, &disp, 1, cur, &t);
    if (step(cur, rc, t) != MPI_SUCCESS)
        return rc;
    rc = dtype_resized(*cur, 0, extent, &t);
    return step(cur, rc, t);
}

static int checked_mul(MPI_Aint a, MPI_Aint b, MPI_Aint *r)
{
    return __builtin_mul_overflow(a, b, r) ? MPI_ERR_ARG : MPI_SUCCESS;
}

static int keep_envelope(dtype_t *equiv, int combiner, int nints, const int *ints,
                         dtype_t *old, dtype_t **out)
{
    int rc = dtype_create_alias(equiv, combiner, nints, ints, 0, NULL, 1, &old, out);
    dtype_release(equiv);
    return rc;
}

int dtype_subarray(int ndims, const int *sizes, const int *subsizes, const int *starts,
                   int order, dtype_t *old, dtype_t **out)
{
    MPI_Aint unit = old->ub - old->lb; /* bytes per step in the current dimension */
    MPI_Aint disp = 0, term;
    dtype_t *cur = old, *t = NULL;
    dtype_retain(old);
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
        if (k == 0)
            rc = dtype_contiguous(subsizes[d], cur, &t);
        else
            rc = dtype_hvector(subsizes[d], 1, unit, cur, &t);
        rc = step(&cur, rc, t);
        if (rc == MPI_SUCCESS && ((rc = checked_mul(starts[d], unit, &term)) != MPI_SUCCESS ||
                                  __builtin_add_overflow(disp, term, &disp) ||
                                  (rc = checked_mul(unit, sizes[d], &unit)) != MPI_SUCCESS))
            rc = MPI_ERR_ARG;
    }
    if (rc == MPI_SUCCESS)
        rc = place(&cur, 1, disp, unit);
    if (rc != MPI_SUCCESS) {
        if (cur)
            dtype_release(cur);
        return rc;
    }
    int *ints = malloc((size_t)(3 * ndims + 2) * sizeof *ints);
    if (!ints) {
        dtype_release(cur);
        return MPI_ERR_NO_MEM;
    }
    ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[1 + i] = sizes[i];
        ints[1 + ndims + i] = subsizes[i];
        ints[1 + 2 * ndims + i] = starts[i];
    }
    ints[1 + 3 * ndims] = order;
    rc = keep_envelope(cur, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, old, out);
    free(ints);
    return rc;
}

/* One dimension of a darray: gsize elements of *cur (extent ext) over psize processes, this
 * process at coordinate r. */
static int block(dtype_t **cur, int gsize, int darg, int psize, int r, MPI_Aint ext)
{
    MPI_Aint blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    MPI_Aint mine = gsize - blk * r < blk ? gsize - blk * r : blk, disp, extent;
    if (mine < 0)
        mine = 0;
    if (checked_mul(blk * r, ext, &disp) != MPI_SUCCESS ||
        checked_mul(gsize, ext, &extent) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    return place(cur, mine, disp, extent);
}

static int cyclic(dtype_t **cur, int gsize, int darg, int psize, int r, MPI_Aint ext)
{
    MPI_Aint blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    MPI_Aint first = blk * r, local = 0, stride, disp, extent;
    if (first < gsize) {
        MPI_Aint span = gsize - first, period = blk * psize;
        MPI_Aint rem = span % period;
        local = span / period * blk + (rem < blk ? rem : blk);
    }
    MPI_Aint count = local / blk, rest = local % blk;
    if (count > 0x7fffffff || checked_mul(blk * psize, ext, &stride) != MPI_SUCCESS ||
        checked_mul(first, ext, &disp) != MPI_SUCCESS ||
        checked_mul(gsize, ext, &extent) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    dtype_t *old = *cur, *t = NULL;
    dtype_retain(old);
    int rc = dtype_hvector((int)count, (int)blk, stride, old, &t);
    if (rc == MPI_SUCCESS && rest) {
        /* a last, shorter block */
        dtype_t *parts[2] = {t, old};
        const int bl[2] = {1, (int)rest};
        MPI_Aint disps[2] = {0, 0};
        if (checked_mul(count, stride, &disps[1]) != MPI_SUCCESS)
            rc = MPI_ERR_ARG;
        dtype_t *s = NULL;
        if (rc == MPI_SUCCESS)
            rc = dtype_struct(2, bl, disps, parts, &s);
        dtype_release(t);
        t = s;
    }
    dtype_release(old);
    if (step(cur, rc, t) != MPI_SUCCESS)
        return rc;
    return place(cur, 1, disp, extent);
}

int dtype_darray(int size, int rank, int ndims, const int *gsizes, const int *distribs,
                 const int *dargs, const int *psizes, int order, dtype_t *old,
                 dtype_t **out)
{
    int *ints = malloc((size_t)(4 * ndims + 4) * sizeof *ints);
    if (!ints)
        return MPI_ERR_NO_MEM;
    /* The process grid is row-major whatever the array order. The coordinates borrow the room
     * of gsizes in ints, which is filled only after the loop below. */
    int *coords = ints + 3;
    for (int i = ndims - 1, rest = rank; i >= 0; i--) {
        coords[i] = rest % psizes[i];
        rest /= psizes[i];
    }
    MPI_Aint ext = old->ub - old->lb;
    dtype_t *cur = old;
    dtype_retain(old);
    int rc = MPI_SUCCESS;
    for (int k = 0; k < ndims && rc == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_FORTRAN ? k : ndims - 1 - k;
        if (distribs[d] == MPI_DISTRIBUTE_CYCLIC)
            rc = cyclic(&cur, gsizes[d], dargs[d], psizes[d], coords[d], ext);
        else if (distribs[d] == MPI_DISTRIBUTE_BLOCK)
            rc = block(&cur, gsizes[d], dargs[d], psizes[d], coords[d], ext);
        else
            rc = block(&cur, gsizes[d], MPI_DISTRIBUTE_DFLT_DARG, 1, 0, ext);
        if (rc == MPI_SUCCESS && checked_mul(ext, gsizes[d], &ext) != MPI_SUCCESS)
            rc = MPI_ERR_ARG;
    }
    if (rc != MPI_SUCCESS) {
        if (cur)
            dtype_release(cur);
        free(ints);
        return rc;
    }
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[3 + i] = gsizes[i];
        ints[3 + ndims + i] = distribs[i];
        ints[3 + 2 * ndims + i] = dargs[i];
        ints[3 + 3 * ndims + i] = psizes[i];
    }
    ints[3 + 4 * ndims] = order;
    rc = keep_envelope(cur, MPI_COMBINER_DARRAY, 4 * ndims + 4, ints, old, out);
    free(ints);
    return rc;
}
