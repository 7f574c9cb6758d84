/* Randomized nested types from every constructor (contiguous, vector, hvector, indexed,
 * hindexed, indexed_block, hindexed_block, struct, resized, subarray in both orders, darray
 * with block/cyclic/none, dup) over several basic and pair types, negative displacements and
 * strides included. Each type is checked against a reference derived from its envelope alone
 * (MPI_Type_get_envelope/get_contents, walked recursively by the typemap definitions of
 * MPI-3.1 §4.1): MPI_Pack must produce the reference's element-by-element gather, MPI_Unpack
 * must scatter like it, and size, true bounds and element counts must agree. Every rank runs
 * its own seed. Usage: dt_random [types] [seed]. (The default run passes under MPICH 4 too;
 * longer runs there reach types with zero-extent pieces on which MPICH's MPI_Pack divides by
 * zero.) */
#include "dt_check.h"

#include <stddef.h>
#include <stdint.h>

static unsigned long long seed;
static int rnd(int n) { return (int)(dt_rand(&seed) % (unsigned)n); }

/* ---- the reference: walk the typemap from the envelope -------------------------------- */

typedef void visit_fn(MPI_Aint off, int size, void *arg);

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
    return ext;
}

static const struct { MPI_Datatype h; MPI_Aint disp2; int size1; } pairs[] = {
    {MPI_DOUBLE_INT, offsetof(struct { double a; int b; }, b), sizeof(double)},
    {MPI_SHORT_INT, offsetof(struct { short a; int b; }, b), sizeof(short)},
    {MPI_2INT, sizeof(int), sizeof(int)},
};

static void walk(MPI_Datatype t, MPI_Aint disp, visit_fn *fn, void *arg);

/* darray: the global indices this process owns in one dimension, in typemap order */
static int owned(int gsize, int distrib, int darg, int psize, int coord, int *idx)
{
    int n = 0;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        for (int i = 0; i < gsize; i++)
            idx[n++] = i;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        for (int i = coord * b; i < (coord + 1) * b && i < gsize; i++)
            idx[n++] = i;
    } else {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        for (int blk = coord; blk * b < gsize; blk += psize)
            for (int i = blk * b; i < (blk + 1) * b && i < gsize; i++)
                idx[n++] = i;
    }
    return n;
}

/* arrays: element (i_0, ..., i_{n-1}) at linear index row- or column-major, visited with the
 * fastest dimension innermost; sel[d] lists the indices taken in dimension d */
static void walk_array(MPI_Datatype old, MPI_Aint disp, int nd, const int *sizes, int order,
                       int *const *sel, const int *nsel, visit_fn *fn, void *arg)
{
    int pos[8] = {0};
    MPI_Aint ext = extent_of(old);
    for (int d = 0; d < nd; d++)
        if (nsel[d] == 0)
            return;
    for (;;) {
        MPI_Aint lin = 0;
        for (int k = 0; k < nd; k++) {
            int d = order == MPI_ORDER_C ? k : nd - 1 - k; /* slowest first */
            lin = lin * sizes[d] + sel[d][pos[d]];
        }
        walk(old, disp + lin * ext, fn, arg);
        int k = nd - 1;
        for (; k >= 0; k--) {
            int d = order == MPI_ORDER_C ? k : nd - 1 - k; /* fastest first */
            if (++pos[d] < nsel[d])
                break;
            pos[d] = 0;
        }
        if (k < 0)
            return;
    }
}

static void walk(MPI_Datatype t, MPI_Aint disp, visit_fn *fn, void *arg)
{
    int ni, na, nd, comb;
    CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_SUCCESS);
    if (comb == MPI_COMBINER_NAMED) {
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
            if (pairs[i].h == t) {
                fn(disp, pairs[i].size1, arg);
                fn(disp + pairs[i].disp2, sizeof(int), arg);
                return;
            }
        int size;
        CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
        fn(disp, size, arg);
        return;
    }
    int *in = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *ad = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    CHECK(in && ad && ty);
    CHECK_RC(MPI_Type_get_contents(t, ni, na, nd, in, ad, ty), MPI_SUCCESS);
    MPI_Aint ext = extent_of(ty[0]);
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        walk(ty[0], disp, fn, arg);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < in[0]; i++)
            walk(ty[0], disp + i * ext, fn, arg);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        MPI_Aint stride = comb == MPI_COMBINER_VECTOR ? in[2] * ext : ad[0];
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                walk(ty[0], disp + i * stride + j * ext, fn, arg);
        break;
    }
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                walk(ty[0], disp + (in[1 + in[0] + i] + j) * ext, fn, arg);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                walk(ty[0], disp + ad[i] + j * ext, fn, arg);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                walk(ty[0], disp + (in[2 + i] + j) * ext, fn, arg);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                walk(ty[0], disp + ad[i] + j * ext, fn, arg);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                walk(ty[i], disp + ad[i] + j * extent_of(ty[i]), fn, arg);
        break;
    case MPI_COMBINER_SUBARRAY: {
        int n = in[0], *sel[8] = {0}, nsel[8] = {0};
        for (int d = 0; d < n; d++) {
            nsel[d] = in[1 + n + d];
            sel[d] = malloc(sizeof(int) * (size_t)nsel[d]);
            for (int k = 0; k < nsel[d]; k++)
                sel[d][k] = in[1 + 2 * n + d] + k;
        }
        walk_array(ty[0], disp, n, in + 1, in[1 + 3 * n], sel, nsel, fn, arg);
        for (int d = 0; d < n; d++)
            free(sel[d]);
        break;
    }
    case MPI_COMBINER_DARRAY: {
        int size = in[0], rank = in[1], n = in[2], *sel[8] = {0}, nsel[8] = {0}, coord[8];
        const int *g = in + 3, *dist = g + n, *darg = dist + n, *ps = darg + n;
        for (int d = n - 1, r = rank; d >= 0; d--) {
            coord[d] = r % ps[d];
            r /= ps[d];
        }
        (void)size;
        for (int d = 0; d < n; d++) {
            sel[d] = malloc(sizeof(int) * (size_t)g[d]);
            nsel[d] = owned(g[d], dist[d], darg[d], ps[d], coord[d], sel[d]);
        }
        walk_array(ty[0], disp, n, g, in[3 + 4 * n], sel, nsel, fn, arg);
        for (int d = 0; d < n; d++)
            free(sel[d]);
        break;
    }
    default:
        CHECK(0);
    }
    for (int i = 0; i < nd; i++) {
        int a, b, c, k;
        CHECK_RC(MPI_Type_get_envelope(ty[i], &a, &b, &c, &k), MPI_SUCCESS);
        if (k != MPI_COMBINER_NAMED)
            CHECK_RC(MPI_Type_free(&ty[i]), MPI_SUCCESS);
    }
    free(in);
    free(ad);
    free(ty);
}

/* ---- random types ----------------------------------------------------------------------- */

static const MPI_Datatype leaves[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_FLOAT, MPI_DOUBLE,
                                      MPI_INT8_T, MPI_LONG_LONG, MPI_C_DOUBLE_COMPLEX,
                                      MPI_DOUBLE_INT, MPI_SHORT_INT, MPI_2INT};

/* a random type whose data fits comfortably in a test buffer; depth limits nesting */
static MPI_Datatype make(int depth)
{
    MPI_Datatype old, t;
    if (depth == 0 || rnd(4) == 0)
        return leaves[rnd((int)(sizeof leaves / sizeof leaves[0]))];
    old = make(depth - 1);
    MPI_Aint ext = extent_of(old);
    int n = 1 + rnd(4), bl = rnd(3) + (rnd(5) != 0);
    switch (rnd(12)) {
    case 0:
        CHECK_RC(MPI_Type_contiguous(n, old, &t), MPI_SUCCESS);
        break;
    case 1:
        CHECK_RC(MPI_Type_vector(n, bl, rnd(7) - 2, old, &t), MPI_SUCCESS);
        break;
    case 2:
        CHECK_RC(MPI_Type_create_hvector(n, bl, (MPI_Aint)rnd(9) * 8 - 16 + rnd(2) * ext, old,
                                         &t),
                 MPI_SUCCESS);
        break;
    case 3: {
        int bls[4], ds[4];
        for (int i = 0; i < n; i++)
            bls[i] = rnd(3), ds[i] = rnd(12) - 4;
        CHECK_RC(MPI_Type_indexed(n, bls, ds, old, &t), MPI_SUCCESS);
        break;
    }
    case 4: {
        int bls[4];
        MPI_Aint ds[4];
        for (int i = 0; i < n; i++)
            bls[i] = rnd(3), ds[i] = (MPI_Aint)rnd(100) - 30;
        CHECK_RC(MPI_Type_create_hindexed(n, bls, ds, old, &t), MPI_SUCCESS);
        break;
    }
    case 5: {
        int ds[4];
        for (int i = 0; i < n; i++)
            ds[i] = rnd(10) - 3;
        CHECK_RC(MPI_Type_create_indexed_block(n, bl, ds, old, &t), MPI_SUCCESS);
        break;
    }
    case 6: {
        MPI_Aint ds[4];
        for (int i = 0; i < n; i++)
            ds[i] = (MPI_Aint)rnd(64) * 2 - 20;
        CHECK_RC(MPI_Type_create_hindexed_block(n, bl, ds, old, &t), MPI_SUCCESS);
        break;
    }
    case 7: {
        int bls[4];
        MPI_Aint ds[4];
        MPI_Datatype ts[4];
        ts[0] = old;
        for (int i = 1; i < n; i++)
            ts[i] = make(depth - 1);
        for (int i = 0; i < n; i++)
            bls[i] = rnd(3), ds[i] = (MPI_Aint)rnd(96) - 24;
        CHECK_RC(MPI_Type_create_struct(n, bls, ds, ts, &t), MPI_SUCCESS);
        for (int i = 1; i < n; i++) {
            int a, b, c, k;
            CHECK_RC(MPI_Type_get_envelope(ts[i], &a, &b, &c, &k), MPI_SUCCESS);
            if (k != MPI_COMBINER_NAMED)
                CHECK_RC(MPI_Type_free(&ts[i]), MPI_SUCCESS);
        }
        break;
    }
    case 8: {
        MPI_Aint lb;
        CHECK_RC(MPI_Type_get_extent(old, &lb, &ext), MPI_SUCCESS);
        CHECK_RC(MPI_Type_create_resized(old, lb - rnd(8), ext + rnd(16) - 4, &t), MPI_SUCCESS);
        break;
    }
    case 9: {
        int nd = 1 + rnd(3), sizes[3], subs[3], starts[3];
        for (int d = 0; d < nd; d++) {
            sizes[d] = 1 + rnd(5);
            subs[d] = 1 + rnd(sizes[d]);
            starts[d] = rnd(sizes[d] - subs[d] + 1);
        }
        CHECK_RC(MPI_Type_create_subarray(nd, sizes, subs, starts,
                                          rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &t),
                 MPI_SUCCESS);
        break;
    }
    case 10: {
        int nd = 1 + rnd(2), g[2], dist[2], darg[2], ps[2], procs = 1;
        for (int d = 0; d < nd; d++) {
            g[d] = 1 + rnd(9);
            dist[d] = MPI_DISTRIBUTE_BLOCK + rnd(3);
            ps[d] = dist[d] == MPI_DISTRIBUTE_NONE ? 1 : 1 + rnd(3);
            if (dist[d] == MPI_DISTRIBUTE_BLOCK)
                darg[d] = rnd(2) ? MPI_DISTRIBUTE_DFLT_DARG : (g[d] + ps[d] - 1) / ps[d] + rnd(2);
            else
                darg[d] = rnd(2) ? MPI_DISTRIBUTE_DFLT_DARG : 1 + rnd(3);
            procs *= ps[d];
        }
        CHECK_RC(MPI_Type_create_darray(procs, rnd(procs), nd, g, dist, darg, ps,
                                        rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &t),
                 MPI_SUCCESS);
        break;
    }
    default:
        CHECK_RC(MPI_Type_dup(old, &t), MPI_SUCCESS);
        break;
    }
    int a, b, c, k;
    CHECK_RC(MPI_Type_get_envelope(old, &a, &b, &c, &k), MPI_SUCCESS);
    if (k != MPI_COMBINER_NAMED)
        CHECK_RC(MPI_Type_free(&old), MPI_SUCCESS);
    return t;
}

/* ---- checks --------------------------------------------------------------------------- */

typedef struct {
    unsigned char *base;  /* the typed buffer's origin */
    unsigned char *out;   /* the reference gather */
    size_t pos, count;    /* bytes gathered, entries */
    MPI_Aint lo, hi;      /* data bounds seen */
    unsigned char *mark;  /* bytes written, to detect overlapping entries (scatter) */
    MPI_Aint mark_lo;
    int overlap;
} ref_t;

static void gather(MPI_Aint off, int size, void *arg)
{
    ref_t *r = arg;
    if (r->out)
        memcpy(r->out + r->pos, r->base + off, (size_t)size);
    if (r->mark) {
        for (int i = 0; i < size; i++)
            r->overlap |= r->mark[off - r->mark_lo + i]++ != 0;
    }
    if (r->count == 0 || off < r->lo)
        r->lo = off;
    if (r->count == 0 || off + size > r->hi)
        r->hi = off + size;
    r->pos += (size_t)size;
    r->count++;
}

static int check_one(MPI_Datatype t, int count)
{
    int size;
    MPI_Aint lb, ext, tlb, text;
    CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_true_extent(t, &tlb, &text), MPI_SUCCESS);
    /* the span of count elements */
    MPI_Aint span_lo = tlb + (ext < 0 ? (count - 1) * ext : 0);
    MPI_Aint span_hi = tlb + text + (ext > 0 ? (count - 1) * ext : 0);
    size_t span = (size_t)(span_hi - span_lo), total = (size_t)size * (size_t)count;
    if (span > (1u << 22) || total > (1u << 22))
        return 0; /* too big for the test: skip */
    unsigned char *buf = malloc(span + 1), *ref = malloc(total + 1), *packed = malloc(total + 9);
    unsigned char *mark = calloc(span + 1, 1);
    CHECK(buf && ref && packed && mark);
    for (size_t i = 0; i < span; i++)
        buf[i] = (unsigned char)dt_rand(&seed);
    ref_t r = {buf - span_lo, ref, 0, 0, 0, 0, mark, span_lo, 0};
    for (int e = 0; e < count; e++)
        walk(t, e * ext, gather, &r);
    CHECK(r.pos == total);
    /* true bounds: those of the data the walk saw (one element). MPICH 4 lets empty pieces
     * (zero blocks, an empty vector inside a darray) move the bounds, which the typemap rules
     * do not: metampi only. */
#ifdef METAMPI
    if (size > 0) {
        ref_t one = {buf - span_lo, NULL, 0, 0, 0, 0, NULL, 0, 0};
        walk(t, 0, gather, &one);
        if (one.lo != tlb || one.hi - one.lo != text) {
            fprintf(stderr, "true bounds %lld+%lld, walk %lld..%lld\n", (long long)tlb,
                    (long long)text, (long long)one.lo, (long long)one.hi);
            CHECK(0);
        }
    }
#endif
    /* pack after a 3-byte prefix, compare with the gather (MPICH 4 divides by zero packing
     * or unpacking some types of size 0) */
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
#ifndef METAMPI
    if (size == 0)
        count = 0, total = 0, r.overlap = 1;
#endif
    int pos = 3;
    CHECK_RC(MPI_Pack(buf - span_lo, count, t, packed, (int)total + 9, &pos, MPI_COMM_WORLD),
             MPI_SUCCESS);
    CHECK(pos == 3 + (int)total);
    if (memcmp(packed + 3, ref, total) != 0) {
        for (size_t i = 0; i < total; i++)
            if (packed[3 + i] != ref[i]) {
                fprintf(stderr, "packed byte %zu of %zu differs\n", i, total);
                break;
            }
        CHECK(0);
    }
    /* unpack into a fresh buffer: the entries get the packed bytes, the gaps stay */
    if (!r.overlap) {
        unsigned char *back = malloc(span + 1);
        CHECK(back);
        memset(back, 0xa5, span);
        pos = 3;
        CHECK_RC(MPI_Unpack(packed, (int)total + 3, &pos, back - span_lo, count, t,
                            MPI_COMM_WORLD),
                 MPI_SUCCESS);
        for (size_t i = 0; i < span; i++)
            CHECK(back[i] == (mark[i] ? buf[i] : 0xa5));
        free(back);
    }
#ifdef METAMPI
    /* external32 round trip (every leaf type converts exactly; MPICH 4 aborts on structs) */
    if (!r.overlap) {
        MPI_Aint esize, epos = 0;
        CHECK_RC(MPI_Pack_external_size("external32", count, t, &esize), MPI_SUCCESS);
        unsigned char *ext = malloc((size_t)esize + 1), *back = malloc(span + 1);
        CHECK(ext && back);
        CHECK_RC(MPI_Pack_external("external32", buf - span_lo, count, t, ext, esize, &epos),
                 MPI_SUCCESS);
        CHECK(epos == esize);
        memset(back, 0x5a, span);
        epos = 0;
        CHECK_RC(MPI_Unpack_external("external32", ext, esize, &epos, back - span_lo, count, t),
                 MPI_SUCCESS);
        CHECK(epos == esize);
        for (size_t i = 0; i < span; i++)
            CHECK(back[i] == (mark[i] ? buf[i] : 0x5a));
        free(ext);
        free(back);
    }
#endif
    /* elements: count times the basic elements of one (MPICH 4 miscounts nested arrays and
     * asserts on some: metampi only) */
    if (count > 0 && total > 0) {
        MPI_Status st;
        int n;
        CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, (int)total), MPI_SUCCESS);
#ifdef METAMPI
        CHECK_RC(MPI_Get_elements(&st, t, &n), MPI_SUCCESS);
        CHECK(n == (int)r.count);
#endif
        CHECK_RC(MPI_Get_count(&st, t, &n), MPI_SUCCESS);
        CHECK(n == count);
    }
    free(buf);
    free(ref);
    free(packed);
    free(mark);
    return 1;
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    int ntypes = argc > 1 ? atoi(argv[1]) : 400;
    seed = (argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ULL) + 7919 * dt_rank;
    int checked = 0;
    for (int i = 0; i < ntypes; i++) {
        MPI_Datatype t = make(4);
        int a, b, c, k;
        CHECK_RC(MPI_Type_get_envelope(t, &a, &b, &c, &k), MPI_SUCCESS);
        checked += check_one(t, 1 + rnd(3));
        if (k != MPI_COMBINER_NAMED)
            CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);
    }
    CHECK(checked > ntypes / 2);
    dt_finish("dt_random");
    return 0;
}
