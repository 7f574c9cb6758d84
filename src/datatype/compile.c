/*
 * The datatype compiler: a type's construction tree (combiner, ints, addrs, types — what
 * MPI_Type_get_contents returns) becomes a layout (engine/format.h). This file knows the
 * combiners and describes each type to the engine's builder (engine/build.h: nodes of
 * entries, normalised as they are added), which limits the depth to what a cursor can
 * follow and writes the layout. Nodes are memoised per type, so a type used many times (a
 * struct's repeated field types, an indexed type's blocks) is described once.
 */
#include "datatype/compile.h"

#include "datatype/engine/build.h"

#include <stdlib.h>
#include <string.h>

typedef struct ctx {
    ir_t ir;                  /* memo tag 0: the node of a dtype_t */
    dt_lookup_fn lookup;
} ctx_t;

static ir_node_t *build(ctx_t *x, MPI_Datatype h, int depth);

static int64_t extent_of(const dtype_t *t)
{
    return (int64_t)t->ub - (int64_t)t->lb;
}

/* v * m as an int64 (displacements in units of an extent); fails the compile on overflow. */
static int64_t scaled(ctx_t *x, int64_t v, int64_t m)
{
    int64_t r;
    if (__builtin_mul_overflow(v, m, &r)) {
        x->ir.failed = 1;
        return 0;
    }
    return r;
}

static uint64_t count_arg(ctx_t *x, int v)
{
    if (v < 0)
        x->ir.failed = 1;
    return v < 0 ? 0 : (uint64_t)v;
}

/* Strides of one index step per dimension of an array of the given sizes (C or Fortran
 * order) of elements of extent ext. */
static int dim_strides(ctx_t *x, int nd, const int *sizes, int order, int64_t ext, int64_t *st)
{
    int64_t s = ext;
    for (int k = 0; k < nd; k++) {
        int d = order == MPI_ORDER_FORTRAN ? k : nd - 1 - k;
        st[d] = s;
        if (sizes[d] < 0 || __builtin_mul_overflow(s, (int64_t)sizes[d], &s)) {
            x->ir.failed = 1;
            return 0;
        }
    }
    return 1;
}

static ir_node_t *build_subarray(ctx_t *x, const dtype_t *t, int depth)
{
    int nd = t->nints > 0 ? t->ints[0] : -1;
    if (nd < 1 || t->nints != 3 * nd + 2 || t->ntypes < 1) {
        x->ir.failed = 1;
        return NULL;
    }
    const int *sizes = t->ints + 1, *subs = sizes + nd, *starts = subs + nd;
    int order = t->ints[1 + 3 * nd];
    const dtype_t *old = x->lookup(t->types[0]);
    int64_t *st = malloc((size_t)nd * sizeof *st);
    ir_node_t *cur = old ? build(x, t->types[0], depth + 1) : NULL;
    if (!st || !old)
        x->ir.failed = 1;
    int64_t disp = 0;
    if (cur && st && dim_strides(x, nd, sizes, order, extent_of(old), st)) {
        for (int k = 0; k < nd && cur; k++) {
            int d = order == MPI_ORDER_FORTRAN ? k : nd - 1 - k;
            cur = ir_rep_node(&x->ir, 0, count_arg(x, subs[d]), st[d], cur);
            if (__builtin_add_overflow(disp, scaled(x, starts[d], st[d]), &disp))
                x->ir.failed = 1;
        }
    }
    free(st);
    ir_node_t *out = ir_new_node(&x->ir);
    if (cur)
        ir_add(&x->ir, out, (ir_ent_t){ .disp = disp, .reps = 1, .child = cur });
    return ir_finish(&x->ir, out);
}

/* One dimension of a distributed array: the indices of [0, g) that process coordinate c of
 * p owns, each a step of stride st over body. */
static ir_node_t *darray_dim(ctx_t *x, int dist, int darg, int g, int p, int c, int64_t st,
                             ir_node_t *body)
{
    ir_node_t *nd = ir_new_node(&x->ir);
    int64_t gg = g;
    if (g < 0 || p < 1 || c < 0 || c >= p) {
        x->ir.failed = 1;
        return NULL;
    }
    if (dist == MPI_DISTRIBUTE_NONE) {
        ir_add(&x->ir, nd, (ir_ent_t){ .reps = (uint64_t)gg, .stride = st, .child = body });
    } else if (dist == MPI_DISTRIBUTE_BLOCK) {
        int64_t b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gg + p - 1) / p : darg;
        int64_t start = b * c;
        if (b < 0)
            x->ir.failed = 1;
        else if (start < gg)
            ir_add(&x->ir, nd, (ir_ent_t){ .disp = scaled(x, start, st),
                                          .reps = (uint64_t)(b < gg - start ? b : gg - start),
                                          .stride = st, .child = body });
    } else if (dist == MPI_DISTRIBUTE_CYCLIC) {
        int64_t k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        int64_t first = k * c, period = k * p;
        if (k < 1) {
            x->ir.failed = 1;
        } else if (first < gg) {
            int64_t nfull = gg - first >= k ? (gg - first - k) / period + 1 : 0;
            if (nfull > 0)
                ir_add(&x->ir, nd,
                       (ir_ent_t){ .disp = scaled(x, first, st), .reps = (uint64_t)nfull,
                                   .stride = scaled(x, period, st),
                                   .child = ir_rep_node(&x->ir, 0, (uint64_t)k, st, body) });
            int64_t last = first + nfull * period;
            if (last < gg) /* the last block, cut short by the end of the dimension */
                ir_add(&x->ir, nd, (ir_ent_t){ .disp = scaled(x, last, st),
                                              .reps = (uint64_t)(gg - last < k ? gg - last : k),
                                              .stride = st, .child = body });
        }
    } else {
        x->ir.failed = 1;
    }
    return ir_finish(&x->ir, nd);
}

static ir_node_t *build_darray(ctx_t *x, const dtype_t *t, int depth)
{
    int nd = t->nints > 2 ? t->ints[2] : -1;
    if (nd < 1 || t->nints != 4 * nd + 4 || t->ntypes < 1) {
        x->ir.failed = 1;
        return NULL;
    }
    int size = t->ints[0], rank = t->ints[1];
    const int *gs = t->ints + 3, *dist = gs + nd, *darg = dist + nd, *ps = darg + nd;
    int order = t->ints[3 + 4 * nd];
    const dtype_t *old = x->lookup(t->types[0]);
    int64_t *st = malloc((size_t)nd * sizeof *st);
    int *coord = malloc((size_t)nd * sizeof *coord);
    ir_node_t *cur = old ? build(x, t->types[0], depth + 1) : NULL;
    if (!st || !coord || !old)
        x->ir.failed = 1;
    /* process coordinates: row-major in the process grid, whatever the array order */
    int procs = size, r = rank;
    for (int i = 0; i < nd && !x->ir.failed; i++) {
        if (ps[i] < 1 || procs % ps[i]) {
            x->ir.failed = 1;
            break;
        }
        procs /= ps[i];
        coord[i] = r / procs;
        r %= procs;
    }
    if (!x->ir.failed && cur && dim_strides(x, nd, gs, order, extent_of(old), st)) {
        for (int k = 0; k < nd && cur; k++) {
            int d = order == MPI_ORDER_FORTRAN ? k : nd - 1 - k;
            cur = darray_dim(x, dist[d], darg[d], gs[d], ps[d], coord[d], st[d], cur);
        }
    }
    free(st);
    free(coord);
    return cur && !x->ir.failed ? ir_rep_node(&x->ir, 0, 1, 0, cur) : NULL;
}

/* Entries (disp_k, blocklen_k, old) of the indexed and struct families. */
static void add_block(ctx_t *x, ir_node_t *nd, int64_t disp, int bl, MPI_Datatype h, int depth)
{
    const dtype_t *old = x->lookup(h);
    ir_node_t *body = old ? build(x, h, depth + 1) : NULL;
    if (!body) {
        x->ir.failed = 1;
        return;
    }
    ir_add(&x->ir, nd, (ir_ent_t){ .disp = disp, .reps = count_arg(x, bl),
                                  .stride = extent_of(old), .child = body });
}

static ir_node_t *build_type(ctx_t *x, const dtype_t *t, int depth)
{
    const int *in = t->ints;
    const MPI_Aint *ad = t->addrs;
    int ni = t->nints, na = t->naddrs, nt = t->ntypes;
    int n = ni > 0 ? in[0] : 0;
    const dtype_t *old = nt > 0 ? x->lookup(t->types[0]) : NULL;
    int64_t ext = old ? extent_of(old) : 0;
    ir_node_t *nd;
#define NEED(cond)                                                                             \
    do {                                                                                       \
        if (!(cond) || n < 0) {                                                                \
            x->ir.failed = 1;                                                                  \
            return NULL;                                                                       \
        }                                                                                      \
    } while (0)
    switch (t->combiner) {
    case MPI_COMBINER_NAMED:
        nd = ir_new_node(&x->ir);
        if (t->size > 0)
            ir_add(&x->ir, nd, (ir_ent_t){ .reps = 1, .len = (uint64_t)t->size,
                                          .sig = ir_sig_basic(&x->ir, (uint32_t)t->basic,
                                                              (uint64_t)t->size) });
        return ir_finish(&x->ir, nd);
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        NEED(old);
        return build(x, t->types[0], depth + 1);
    case MPI_COMBINER_CONTIGUOUS:
        NEED(old && ni >= 1);
        return ir_rep_node(&x->ir, 0, count_arg(x, n), ext, build(x, t->types[0], depth + 1));
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_HVECTOR_INTEGER: {
        int byint = t->combiner != MPI_COMBINER_HVECTOR;
        NEED(old && ni >= (byint ? 3 : 2) && (byint || na >= 1));
        int64_t stride = t->combiner == MPI_COMBINER_VECTOR ? scaled(x, in[2], ext)
                         : byint                             ? in[2]
                                                             : (int64_t)ad[0];
        ir_node_t *blk = ir_rep_node(&x->ir, 0, count_arg(x, in[1]), ext,
                                     build(x, t->types[0], depth + 1));
        return ir_rep_node(&x->ir, 0, count_arg(x, n), stride, blk);
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED_INTEGER:
        NEED(old && ni >= 1 && ni >= 1 + 2 * n);
        nd = ir_new_node(&x->ir);
        for (int k = 0; k < n && !x->ir.failed; k++)
            add_block(x, nd,
                      t->combiner == MPI_COMBINER_INDEXED ? scaled(x, in[1 + n + k], ext)
                                                          : in[1 + n + k],
                      in[1 + k], t->types[0], depth);
        return ir_finish(&x->ir, nd);
    case MPI_COMBINER_HINDEXED:
        NEED(old && ni >= 1 + n && na >= n);
        nd = ir_new_node(&x->ir);
        for (int k = 0; k < n && !x->ir.failed; k++)
            add_block(x, nd, ad[k], in[1 + k], t->types[0], depth);
        return ir_finish(&x->ir, nd);
    case MPI_COMBINER_INDEXED_BLOCK:
        NEED(old && ni >= 2 + n);
        nd = ir_new_node(&x->ir);
        for (int k = 0; k < n && !x->ir.failed; k++)
            add_block(x, nd, scaled(x, in[2 + k], ext), in[1], t->types[0], depth);
        return ir_finish(&x->ir, nd);
    case MPI_COMBINER_HINDEXED_BLOCK:
        NEED(old && ni >= 2 && na >= n);
        nd = ir_new_node(&x->ir);
        for (int k = 0; k < n && !x->ir.failed; k++)
            add_block(x, nd, ad[k], in[1], t->types[0], depth);
        return ir_finish(&x->ir, nd);
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_STRUCT_INTEGER: {
        int byint = t->combiner == MPI_COMBINER_STRUCT_INTEGER;
        NEED(ni >= 1 + n * (byint ? 2 : 1) && (byint || na >= n) && nt >= n);
        nd = ir_new_node(&x->ir);
        for (int k = 0; k < n && !x->ir.failed; k++)
            add_block(x, nd, byint ? in[1 + n + k] : (int64_t)ad[k], in[1 + k], t->types[k],
                      depth);
        return ir_finish(&x->ir, nd);
    }
    case MPI_COMBINER_SUBARRAY:
        return build_subarray(x, t, depth);
    case MPI_COMBINER_DARRAY:
        return build_darray(x, t, depth);
    case MPI_COMBINER_F90_INTEGER: /* MPI_Type_create_f90_*: a predefined type's typemap */
    case MPI_COMBINER_F90_REAL:
    case MPI_COMBINER_F90_COMPLEX:
        NEED(t->equiv);
        return build(x, t->equiv->handle, depth + 1);
    default:
        x->ir.failed = 1;
        return NULL;
    }
#undef NEED
}

/* Type nesting deeper than this is a corrupt tree (a cycle), not a program's type. */
enum { BUILD_DEPTH_MAX = 100000 };

static ir_node_t *build(ctx_t *x, MPI_Datatype h, int depth)
{
    const dtype_t *t = x->lookup(h);
    if (!t || depth > BUILD_DEPTH_MAX) {
        x->ir.failed = 1;
        return NULL;
    }
    ir_node_t *nd = ir_memo_get(&x->ir, t, 0);
    if (nd || x->ir.failed)
        return nd;
    nd = build_type(x, t, depth);
    ir_memo_put(&x->ir, t, 0, nd);
    return x->ir.failed ? NULL : nd;
}

dt_layout_t *dt_compile_tree(const dtype_t *t, dt_lookup_fn lookup)
{
    ctx_t x = { .lookup = lookup };
    ir_init(&x.ir);
    ir_node_t *root = build_type(&x, t, 0);
    root = ir_limit(&x.ir, root, DT_CURSOR_DEPTH - 1);
    dt_layout_t *l = root && !x.ir.failed ? ir_emit(&x.ir, root, extent_of(t)) : NULL;
    ir_free(&x.ir);
    return l;
}
