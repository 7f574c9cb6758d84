/*
 * Size, bounds and element counts of a new type, from its envelope (MPI-3.1 §4.1).
 *
 * Every walkable combiner is a list of blocks "n copies of old at disp, disp + extent(old),
 * ...". The typemap rules then give:
 *  - lb = the lowest lb marker if any block's type has markers, else the lowest entry;
 *    ub likewise with the highest ub marker / highest entry end (markers are sticky);
 *  - a block of a type with neither data nor markers has no entries and counts for nothing;
 *  - true_lb/true_ub: the bounds of the data alone;
 *  - a struct without an ub marker has its extent rounded up to the largest alignment of its
 *    basic types (the ε of §4.1.6, applied as MPICH and Open MPI do: to structs only).
 * Vectors need only their first and last block for the bounds: the block displacements are
 * affine in the block index.
 */
#include "datatype/construct.h"

#include <stdlib.h>
#include <string.h>

typedef struct acc {
    int overflow;
    int lbm, ubm;         /* blocks with lb / ub markers seen */
    int lbe, ube;         /* blocks with entries but no lb / ub marker seen */
    MPI_Aint mlo, mhi;    /* lowest lb marker, highest ub marker */
    MPI_Aint elo, ehi;    /* lowest entry, highest entry end (blocks without markers) */
    int data;
    MPI_Aint tlo, thi;
    MPI_Count size, nelems, ext32;
    int align;
} acc_t;

static MPI_Aint mul(acc_t *a, MPI_Aint x, MPI_Aint y)
{
    MPI_Aint r;
    if (__builtin_mul_overflow(x, y, &r))
        a->overflow = 1;
    return r;
}

static MPI_Aint add(acc_t *a, MPI_Aint x, MPI_Aint y)
{
    MPI_Aint r;
    if (__builtin_add_overflow(x, y, &r))
        a->overflow = 1;
    return r;
}

static MPI_Count cmul(acc_t *a, MPI_Count x, MPI_Count y)
{
    MPI_Count r;
    if (__builtin_mul_overflow(x, y, &r))
        a->overflow = 1;
    return r;
}

/* The data of n copies of old (wherever they are). */
static void acc_data(acc_t *a, const dtype_t *old, MPI_Count n)
{
    if (n <= 0)
        return;
    MPI_Count s = cmul(a, n, old->size), e = cmul(a, n, old->nelems);
    MPI_Count x = cmul(a, n, old->ext32_size);
    if (__builtin_add_overflow(a->size, s, &a->size) ||
        __builtin_add_overflow(a->nelems, e, &a->nelems) ||
        __builtin_add_overflow(a->ext32, x, &a->ext32))
        a->overflow = 1;
    if (old->align > a->align)
        a->align = old->align;
}

/* The bounds of n copies of old at disp, disp + extent, ... */
static void acc_bounds(acc_t *a, const dtype_t *old, MPI_Aint disp, MPI_Count n)
{
    if (n <= 0 || (!old->size && !old->lb_marker && !old->ub_marker))
        return;
    MPI_Aint span = mul(a, (MPI_Aint)(n - 1), old->ub - old->lb);
    MPI_Aint down = span < 0 ? span : 0, up = span > 0 ? span : 0;
    MPI_Aint lo = add(a, add(a, disp, old->lb), down);
    MPI_Aint hi = add(a, add(a, disp, old->ub), up);
    if (old->lb_marker) {
        a->mlo = a->lbm && a->mlo < lo ? a->mlo : lo;
        a->lbm = 1;
    } else {
        a->elo = a->lbe && a->elo < lo ? a->elo : lo;
        a->lbe = 1;
    }
    if (old->ub_marker) {
        a->mhi = a->ubm && a->mhi > hi ? a->mhi : hi;
        a->ubm = 1;
    } else {
        a->ehi = a->ube && a->ehi > hi ? a->ehi : hi;
        a->ube = 1;
    }
    if (old->size) {
        MPI_Aint tlo = add(a, add(a, disp, old->true_lb), down);
        MPI_Aint thi = add(a, add(a, disp, old->true_ub), up);
        a->tlo = a->data && a->tlo < tlo ? a->tlo : tlo;
        a->thi = a->data && a->thi > thi ? a->thi : thi;
        a->data = 1;
    }
}

static void acc_blocks(acc_t *a, const dtype_t *old, MPI_Aint disp, MPI_Count n)
{
    acc_data(a, old, n);
    acc_bounds(a, old, disp, n);
}

void dtype_set_type(dtype_t *t, int i, dtype_t *old)
{
    t->types[i] = old->handle;
    dtype_retain(old);
}

static const dtype_t *type_at(const dtype_t *t, int i)
{
    return dtype_lookup(t->types[i]);
}

static void walk(const dtype_t *t, acc_t *a)
{
    const int *in = t->ints;
    const dtype_t *old = t->ntypes ? type_at(t, 0) : NULL;
    MPI_Aint ext = old ? old->ub - old->lb : 0;
    switch (t->combiner) {
    case MPI_COMBINER_CONTIGUOUS:
        acc_blocks(a, old, 0, in[0]);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        MPI_Aint stride = t->combiner == MPI_COMBINER_VECTOR ? mul(a, in[2], ext) : t->addrs[0];
        if (in[0] > 0) {
            acc_data(a, old, cmul(a, in[0], in[1]));
            acc_bounds(a, old, 0, in[1]);
            acc_bounds(a, old, mul(a, in[0] - 1, stride), in[1]);
        }
        break;
    }
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < in[0]; i++)
            acc_blocks(a, old, mul(a, in[1 + in[0] + i], ext), in[1 + i]);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < in[0]; i++)
            acc_blocks(a, old, t->addrs[i], in[1 + i]);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            acc_blocks(a, old, mul(a, in[2 + i], ext), in[1]);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            acc_blocks(a, old, t->addrs[i], in[1]);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0]; i++)
            acc_blocks(a, type_at(t, i), t->addrs[i], in[1 + i]);
        break;
    default:
        a->overflow = 1; /* not walkable: a library bug, reported as an error */
        break;
    }
}

static void copy_typemap(dtype_t *t, const dtype_t *from)
{
    t->size = from->size;
    t->lb = from->lb;
    t->ub = from->ub;
    t->true_lb = from->true_lb;
    t->true_ub = from->true_ub;
    t->lb_marker = from->lb_marker;
    t->ub_marker = from->ub_marker;
    t->align = from->align;
    t->nelems = from->nelems;
    t->ext32_size = from->ext32_size;
}

int dtype_derive(dtype_t *t)
{
    if (t->equiv) {
        copy_typemap(t, t->equiv);
        return MPI_SUCCESS;
    }
    if (t->combiner == MPI_COMBINER_RESIZED) {
        const dtype_t *old = type_at(t, 0);
        MPI_Aint ub;
        if (__builtin_add_overflow(t->addrs[0], t->addrs[1], &ub))
            return MPI_ERR_ARG;
        copy_typemap(t, old);
        t->lb = t->addrs[0];
        t->ub = ub;
        t->lb_marker = t->ub_marker = 1;
        return MPI_SUCCESS;
    }
    acc_t a;
    memset(&a, 0, sizeof a);
    a.align = 1;
    walk(t, &a);
    if (a.overflow)
        return MPI_ERR_ARG;
    t->size = a.size;
    t->nelems = a.nelems;
    t->ext32_size = a.ext32;
    t->align = a.align;
    t->lb_marker = a.lbm;
    t->ub_marker = a.ubm;
    t->lb = a.lbm ? a.mlo : a.lbe ? a.elo : 0;
    t->ub = a.ubm ? a.mhi : a.ube ? a.ehi : 0;
    t->true_lb = a.data ? a.tlo : 0;
    t->true_ub = a.data ? a.thi : 0;
    if (t->combiner == MPI_COMBINER_STRUCT && !a.ubm && t->align > 1) {
        MPI_Aint r = (t->ub - t->lb) % t->align;
        if (r > 0 && __builtin_add_overflow(t->ub, t->align - r, &t->ub))
            return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

/* ints NULL: the caller filled them */
static void fill(dtype_t *t, int combiner, const int *ints, const MPI_Aint *addrs,
                 dtype_t *const *types)
{
    t->combiner = combiner;
    if (t->nints && ints)
        memcpy(t->ints, ints, (size_t)t->nints * sizeof *ints);
    if (t->naddrs)
        memcpy(t->addrs, addrs, (size_t)t->naddrs * sizeof *addrs);
    for (int i = 0; i < t->ntypes; i++)
        dtype_set_type(t, i, types[i]);
}

static int finish(dtype_t *t, dtype_t **out)
{
    int rc = dtype_derive(t);
    if (rc != MPI_SUCCESS) {
        dtype_release(t);
        return rc;
    }
    *out = t;
    return MPI_SUCCESS;
}

int dtype_create(int combiner, int nints, const int *ints, int naddrs, const MPI_Aint *addrs,
                 int ntypes, dtype_t *const *types, dtype_t **out)
{
    dtype_t *t = dtype_alloc(nints, naddrs, ntypes);
    if (!t)
        return MPI_ERR_NO_MEM;
    fill(t, combiner, ints, addrs, types);
    return finish(t, out);
}

int dtype_create_alias(dtype_t *equiv, int combiner, int nints, const int *ints, int naddrs,
                       const MPI_Aint *addrs, int ntypes, dtype_t *const *types, dtype_t **out)
{
    dtype_t *t = dtype_alloc(nints, naddrs, ntypes);
    if (!t)
        return MPI_ERR_NO_MEM;
    fill(t, combiner, ints, addrs, types);
    t->equiv = equiv;
    dtype_retain(equiv);
    return finish(t, out);
}

int dtype_contiguous(MPI_Count count, dtype_t *old, dtype_t **out)
{
    if (count > 0x7fffffff)
        return MPI_ERR_ARG;
    const int ints[1] = {(int)count};
    return dtype_create(MPI_COMBINER_CONTIGUOUS, 1, ints, 0, NULL, 1, &old, out);
}

int dtype_hvector(int count, int blocklength, MPI_Aint stride, dtype_t *old, dtype_t **out)
{
    const int ints[2] = {count, blocklength};
    return dtype_create(MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &old, out);
}

int dtype_resized(dtype_t *old, MPI_Aint lb, MPI_Aint extent, dtype_t **out)
{
    const MPI_Aint addrs[2] = {lb, extent};
    return dtype_create(MPI_COMBINER_RESIZED, 0, NULL, 2, addrs, 1, &old, out);
}

int dtype_struct(int count, const int *blocklengths, const MPI_Aint *disps,
                 dtype_t *const *types, dtype_t **out)
{
    dtype_t *t = dtype_alloc(1 + count, count, count);
    if (!t)
        return MPI_ERR_NO_MEM;
    t->ints[0] = count;
    memcpy(t->ints + 1, blocklengths, (size_t)count * sizeof *blocklengths);
    fill(t, MPI_COMBINER_STRUCT, NULL, disps, types);
    return finish(t, out);
}
