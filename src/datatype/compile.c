/*
 * The datatype compiler: a type's construction tree (combiner, ints, addrs, types — what
 * MPI_Type_get_contents returns) becomes a layout (engine/format.h).
 *
 * It first builds an intermediate tree of nodes (lists of entries: disp, reps, stride, body),
 * normalising every entry as it is added:
 *   - entries without data (reps 0, empty body) are dropped;
 *   - a body that is a node of one entry is folded into the entry: with reps 1 the entry
 *     becomes the inner one; an inner entry of reps 1 only moves the origin; and when the
 *     outer stride equals inner reps x inner stride the two levels become one (a subarray
 *     face, a vector of contiguous rows);
 *   - a leaf repeated with stride == its length becomes one bigger leaf;
 *   - a node body with reps 1 and at most SPLICE_MAX entries is spliced into the parent
 *     (struct of struct), so the depth stays small;
 *   - an entry merges with the previous one when the two leaves are adjacent (blocks of
 *     different basic types too: the signature then lists both), or when it continues the
 *     previous entry's repetition of the same body (regular indexed types become vectors).
 * Counts are only ever multiplied, so the result's size does not depend on them. Nodes are
 * shared (a struct's repeated field types, an indexed type's blocks) and placed once.
 * Deeper than a cursor can follow (DT_CURSOR_DEPTH), the lowest levels are flattened into
 * explicit block lists.
 */
#include "datatype/compile.h"

#include "datatype/engine/format.h"

#include <stdlib.h>
#include <string.h>

enum { SPLICE_MAX = 16 };
/* Leaf entries a flattening may produce before the compile gives up. */
#define FLAT_MAX_ENTRIES (1u << 22)

typedef struct ir_node ir_node_t;

typedef struct ir_ent {
    int64_t disp;
    uint64_t reps;
    int64_t stride;           /* 0 when reps is 1 */
    ir_node_t *child;         /* NULL: a leaf block of len bytes with signature sig */
    uint64_t len;
    uint32_t sig;
} ir_ent_t;

struct ir_node {
    ir_ent_t *e;
    size_t n, cap;
    uint64_t size, nelem, nblocks;
    int64_t lo, hi;           /* bounds of one instance's data: [lo, hi) */
    uint32_t height;
    uint32_t off;             /* offset in the layout, once placed */
    uint32_t kind;
    ir_node_t *arena_next;
};

typedef struct sig_rec {
    uint64_t period, nelem;
    uint32_t nruns;
    dt_run_t runs[DT_SIG_MAX_RUNS];
} sig_rec_t;

typedef struct memo {
    const void *key;
    uint32_t tag;             /* 0: node of a dtype_t; h > 0: node limited to height h */
    ir_node_t *node;
} memo_t;

typedef struct ctx {
    dt_lookup_fn lookup;
    int failed;
    ir_node_t *arena;
    sig_rec_t *sigs;
    size_t nsigs, capsigs;
    memo_t *memo;
    size_t nmemo, capmemo;
    uint64_t flat_left;
    ir_node_t **order;        /* nodes in placement order (children first) */
    size_t norder, caporder;
    uint64_t pos;             /* next free offset while placing */
} ctx_t;

static int grow(ctx_t *x, void **p, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elsize);
    if (!q) {
        x->failed = 1;
        return 0;
    }
    *p = q;
    *cap = c;
    return 1;
}

static ir_node_t *new_node(ctx_t *x)
{
    ir_node_t *nd = calloc(1, sizeof *nd);
    if (!nd) {
        x->failed = 1;
        return NULL;
    }
    nd->arena_next = x->arena;
    x->arena = nd;
    return nd;
}

static uint64_t ent_size(const ir_ent_t *e)
{
    return e->child ? e->child->size : e->len;
}

/* ---- signatures ---------------------------------------------------------------------- */

static uint32_t sig_intern(ctx_t *x, const sig_rec_t *s)
{
    for (size_t i = 0; i < x->nsigs; i++) {
        const sig_rec_t *o = &x->sigs[i];
        if (o->period == s->period && o->nruns == s->nruns &&
            memcmp(o->runs, s->runs, s->nruns * sizeof s->runs[0]) == 0)
            return (uint32_t)i;
    }
    if (!grow(x, (void **)&x->sigs, &x->capsigs, x->nsigs + 1, sizeof *x->sigs))
        return 0;
    x->sigs[x->nsigs] = *s;
    return (uint32_t)x->nsigs++;
}

static uint32_t sig_basic(ctx_t *x, uint32_t basic, uint64_t esize)
{
    sig_rec_t s;
    memset(&s, 0, sizeof s);
    s.period = esize;
    s.nelem = 1;
    s.nruns = 1;
    s.runs[0] = (dt_run_t){ basic, (uint32_t)esize, esize };
    return sig_intern(x, &s);
}

/* Appends len bytes of signature s (a whole number of periods) to r; 0 when r would need
 * more than DT_SIG_MAX_RUNS runs. */
static int runs_append(sig_rec_t *r, const sig_rec_t *s, uint64_t len)
{
    uint64_t copies = len / s->period;
    if (s->nruns > 1 && copies > DT_SIG_MAX_RUNS)
        return 0;
    uint64_t loops = s->nruns == 1 ? 1 : copies;
    for (uint64_t k = 0; k < loops; k++) {
        for (uint32_t j = 0; j < s->nruns; j++) {
            dt_run_t run = s->runs[j];
            if (s->nruns == 1)
                run.bytes = len;
            dt_run_t *last = r->nruns ? &r->runs[r->nruns - 1] : NULL;
            if (last && last->basic == run.basic && last->esize == run.esize) {
                last->bytes += run.bytes;
                continue;
            }
            if (r->nruns == DT_SIG_MAX_RUNS)
                return 0;
            r->runs[r->nruns++] = run;
        }
    }
    r->nelem += copies * s->nelem;
    r->period += len;
    return 1;
}

/* The signature of a leaf of la bytes of sa followed by lb bytes of sb; 0 when the merged
 * leaf would need too many runs. */
static int sig_concat(ctx_t *x, uint32_t sa, uint64_t la, uint32_t sb, uint64_t lb,
                      uint32_t *out)
{
    if (sa == sb) {
        *out = sa;
        return 1;
    }
    sig_rec_t a = x->sigs[sa], b = x->sigs[sb], r;
    memset(&r, 0, sizeof r);
    if (!runs_append(&r, &a, la) || !runs_append(&r, &b, lb))
        return 0;
    *out = sig_intern(x, &r);
    return !x->failed;
}

/* ---- entries --------------------------------------------------------------------------- */

static void append(ctx_t *x, ir_node_t *nd, const ir_ent_t *e)
{
    if (!grow(x, (void **)&nd->e, &nd->cap, nd->n + 1, sizeof *nd->e))
        return;
    nd->e[nd->n++] = *e;
}

/* A leaf repeated with stride == its length is one longer leaf. */
static void fold_leaf(ctx_t *x, ir_ent_t *e)
{
    if (!e->child && e->reps > 1 && e->stride > 0 && (uint64_t)e->stride == e->len) {
        if (__builtin_mul_overflow(e->len, e->reps, &e->len)) {
            x->failed = 1;
            return;
        }
        e->reps = 1;
    }
    if (e->reps == 1)
        e->stride = 0;
}

static int same_body(const ir_ent_t *a, const ir_ent_t *b)
{
    return a->child == b->child && (a->child || (a->len == b->len && a->sig == b->sig));
}

/* Merges e into the previous entry p when the two describe one run or one repetition. */
static int merge(ctx_t *x, ir_ent_t *p, const ir_ent_t *e)
{
    int64_t end;
    if (!p->child && !e->child && p->reps == 1 && e->reps == 1 &&
        !__builtin_add_overflow(p->disp, (int64_t)p->len, &end) && end == e->disp) {
        uint32_t s;
        if (sig_concat(x, p->sig, p->len, e->sig, e->len, &s)) {
            if (__builtin_add_overflow(p->len, e->len, &p->len))
                x->failed = 1;
            p->sig = s;
            return 1;
        }
    }
    if (!same_body(p, e))
        return 0;
    int64_t stride;
    if (p->reps > 1)
        stride = p->stride;
    else if (e->reps > 1)
        stride = e->stride;
    else if (__builtin_sub_overflow(e->disp, p->disp, &stride))
        return 0;
    int64_t span, next;
    if ((e->reps > 1 && e->stride != stride) || p->reps > INT64_MAX ||
        __builtin_mul_overflow((int64_t)p->reps, stride, &span) ||
        __builtin_add_overflow(p->disp, span, &next) || next != e->disp ||
        __builtin_add_overflow(p->reps, e->reps, &p->reps))
        return 0;
    p->stride = stride;
    fold_leaf(x, p);
    return 1;
}

/* Adds entry e to nd, normalised (see the top of the file). */
static void add(ctx_t *x, ir_node_t *nd, ir_ent_t e)
{
    if (x->failed || !nd || e.reps == 0 || ent_size(&e) == 0)
        return;
    if (e.reps == 1)
        e.stride = 0;
    while (e.child && e.child->n == 1) {
        ir_ent_t c = e.child->e[0];
        int64_t d, span;
        uint64_t r;
        if (__builtin_add_overflow(e.disp, c.disp, &d)) {
            x->failed = 1;
            return;
        }
        if (e.reps == 1) {
            c.disp = d;
            e = c;
        } else if (c.reps == 1) {
            c.disp = d;
            c.reps = e.reps;
            c.stride = e.stride;
            e = c;
        } else if (c.reps <= INT64_MAX &&
                   !__builtin_mul_overflow((int64_t)c.reps, c.stride, &span) &&
                   span == e.stride && !__builtin_mul_overflow(e.reps, c.reps, &r)) {
            c.disp = d;
            c.reps = r;
            e = c;
        } else {
            break;
        }
    }
    fold_leaf(x, &e);
    if (e.child && e.reps == 1 && e.child->n <= SPLICE_MAX) {
        const ir_node_t *ch = e.child;
        for (size_t k = 0; k < ch->n && !x->failed; k++) {
            ir_ent_t c = ch->e[k];
            if (__builtin_add_overflow(c.disp, e.disp, &c.disp))
                x->failed = 1;
            else
                add(x, nd, c);
        }
        return;
    }
    if (nd->n && merge(x, &nd->e[nd->n - 1], &e))
        return;
    append(x, nd, &e);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* Computes a node's totals once its entries are final. */
static ir_node_t *finish(ctx_t *x, ir_node_t *nd)
{
    if (x->failed || !nd)
        return NULL;
    __int128 lo = 0, hi = 0;
    uint32_t h = 0;
    for (size_t k = 0; k < nd->n; k++) {
        const ir_ent_t *e = &nd->e[k];
        uint64_t s = ent_size(e), bytes, ne;
        const sig_rec_t *sg = e->child ? NULL : &x->sigs[e->sig];
        uint64_t one = e->child ? e->child->nelem : e->len / sg->period * sg->nelem;
        if (__builtin_mul_overflow(s, e->reps, &bytes) ||
            __builtin_add_overflow(nd->size, bytes, &nd->size) ||
            __builtin_mul_overflow(one, e->reps, &ne) ||
            __builtin_add_overflow(nd->nelem, ne, &nd->nelem)) {
            x->failed = 1;
            return NULL;
        }
        nd->nblocks = sat_add(nd->nblocks, sat_mul(e->reps, e->child ? e->child->nblocks : 1));
        __int128 span = (__int128)(e->reps - 1) * e->stride;
        __int128 elo = (__int128)e->disp + (e->child ? e->child->lo : 0) + (span < 0 ? span : 0);
        __int128 ehi = (__int128)e->disp + (e->child ? e->child->hi : (__int128)e->len) +
                       (span > 0 ? span : 0);
        if (k == 0 || elo < lo)
            lo = elo;
        if (k == 0 || ehi > hi)
            hi = ehi;
        if (e->child && e->child->height > h)
            h = e->child->height;
    }
    if (lo < INT64_MIN || hi > INT64_MAX) {
        x->failed = 1;
        return NULL;
    }
    nd->lo = (int64_t)lo;
    nd->hi = (int64_t)hi;
    nd->height = h + 1;
    return nd;
}

static ir_node_t *rep_node(ctx_t *x, int64_t disp, uint64_t reps, int64_t stride,
                           ir_node_t *body)
{
    ir_node_t *nd = new_node(x);
    if (body)
        add(x, nd, (ir_ent_t){ .disp = disp, .reps = reps, .stride = stride, .child = body });
    return finish(x, nd);
}

/* ---- from the construction tree -------------------------------------------------------- */

static ir_node_t *memo_get(ctx_t *x, const void *key, uint32_t tag)
{
    for (size_t i = 0; i < x->nmemo; i++)
        if (x->memo[i].key == key && x->memo[i].tag == tag)
            return x->memo[i].node;
    return NULL;
}

static void memo_put(ctx_t *x, const void *key, uint32_t tag, ir_node_t *nd)
{
    if (nd && grow(x, (void **)&x->memo, &x->capmemo, x->nmemo + 1, sizeof *x->memo))
        x->memo[x->nmemo++] = (memo_t){ key, tag, nd };
}

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
        x->failed = 1;
        return 0;
    }
    return r;
}

static uint64_t count_arg(ctx_t *x, int v)
{
    if (v < 0)
        x->failed = 1;
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
            x->failed = 1;
            return 0;
        }
    }
    return 1;
}

static ir_node_t *build_subarray(ctx_t *x, const dtype_t *t, int depth)
{
    int nd = t->nints > 0 ? t->ints[0] : -1;
    if (nd < 1 || t->nints != 3 * nd + 2 || t->ntypes < 1) {
        x->failed = 1;
        return NULL;
    }
    const int *sizes = t->ints + 1, *subs = sizes + nd, *starts = subs + nd;
    int order = t->ints[1 + 3 * nd];
    const dtype_t *old = x->lookup(t->types[0]);
    int64_t *st = malloc((size_t)nd * sizeof *st);
    ir_node_t *cur = old ? build(x, t->types[0], depth + 1) : NULL;
    if (!st || !old)
        x->failed = 1;
    int64_t disp = 0;
    if (cur && st && dim_strides(x, nd, sizes, order, extent_of(old), st)) {
        for (int k = 0; k < nd && cur; k++) {
            int d = order == MPI_ORDER_FORTRAN ? k : nd - 1 - k;
            cur = rep_node(x, 0, count_arg(x, subs[d]), st[d], cur);
            if (__builtin_add_overflow(disp, scaled(x, starts[d], st[d]), &disp))
                x->failed = 1;
        }
    }
    free(st);
    ir_node_t *out = new_node(x);
    if (cur)
        add(x, out, (ir_ent_t){ .disp = disp, .reps = 1, .child = cur });
    return finish(x, out);
}

/* One dimension of a distributed array: the indices of [0, g) that process coordinate c of
 * p owns, each a step of stride st over body. */
static ir_node_t *darray_dim(ctx_t *x, int dist, int darg, int g, int p, int c, int64_t st,
                             ir_node_t *body)
{
    ir_node_t *nd = new_node(x);
    int64_t gg = g;
    if (g < 0 || p < 1 || c < 0 || c >= p) {
        x->failed = 1;
        return NULL;
    }
    if (dist == MPI_DISTRIBUTE_NONE) {
        add(x, nd, (ir_ent_t){ .reps = (uint64_t)gg, .stride = st, .child = body });
    } else if (dist == MPI_DISTRIBUTE_BLOCK) {
        int64_t b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gg + p - 1) / p : darg;
        int64_t start = b * c;
        if (b < 0)
            x->failed = 1;
        else if (start < gg)
            add(x, nd, (ir_ent_t){ .disp = scaled(x, start, st),
                                   .reps = (uint64_t)(b < gg - start ? b : gg - start),
                                   .stride = st, .child = body });
    } else if (dist == MPI_DISTRIBUTE_CYCLIC) {
        int64_t k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        int64_t first = k * c, period = k * p;
        if (k < 1) {
            x->failed = 1;
        } else if (first < gg) {
            int64_t nfull = gg - first >= k ? (gg - first - k) / period + 1 : 0;
            if (nfull > 0)
                add(x, nd, (ir_ent_t){ .disp = scaled(x, first, st), .reps = (uint64_t)nfull,
                                       .stride = scaled(x, period, st),
                                       .child = rep_node(x, 0, (uint64_t)k, st, body) });
            int64_t last = first + nfull * period;
            if (last < gg) /* the last block, cut short by the end of the dimension */
                add(x, nd, (ir_ent_t){ .disp = scaled(x, last, st),
                                       .reps = (uint64_t)(gg - last < k ? gg - last : k),
                                       .stride = st, .child = body });
        }
    } else {
        x->failed = 1;
    }
    return finish(x, nd);
}

static ir_node_t *build_darray(ctx_t *x, const dtype_t *t, int depth)
{
    int nd = t->nints > 2 ? t->ints[2] : -1;
    if (nd < 1 || t->nints != 4 * nd + 4 || t->ntypes < 1) {
        x->failed = 1;
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
        x->failed = 1;
    /* process coordinates: row-major in the process grid, whatever the array order */
    int procs = size, r = rank;
    for (int i = 0; i < nd && !x->failed; i++) {
        if (ps[i] < 1 || procs % ps[i]) {
            x->failed = 1;
            break;
        }
        procs /= ps[i];
        coord[i] = r / procs;
        r %= procs;
    }
    if (!x->failed && cur && dim_strides(x, nd, gs, order, extent_of(old), st)) {
        for (int k = 0; k < nd && cur; k++) {
            int d = order == MPI_ORDER_FORTRAN ? k : nd - 1 - k;
            cur = darray_dim(x, dist[d], darg[d], gs[d], ps[d], coord[d], st[d], cur);
        }
    }
    free(st);
    free(coord);
    return cur && !x->failed ? rep_node(x, 0, 1, 0, cur) : NULL;
}

/* Entries (disp_k, blocklen_k, old) of the indexed and struct families. */
static void add_block(ctx_t *x, ir_node_t *nd, int64_t disp, int bl, MPI_Datatype h, int depth)
{
    const dtype_t *old = x->lookup(h);
    ir_node_t *body = old ? build(x, h, depth + 1) : NULL;
    if (!body) {
        x->failed = 1;
        return;
    }
    add(x, nd, (ir_ent_t){ .disp = disp, .reps = count_arg(x, bl), .stride = extent_of(old),
                           .child = body });
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
            x->failed = 1;                                                                     \
            return NULL;                                                                       \
        }                                                                                      \
    } while (0)
    switch (t->combiner) {
    case MPI_COMBINER_NAMED:
        nd = new_node(x);
        if (t->size > 0)
            add(x, nd, (ir_ent_t){ .reps = 1, .len = (uint64_t)t->size,
                                   .sig = sig_basic(x, (uint32_t)t->basic,
                                                    (uint64_t)t->size) });
        return finish(x, nd);
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        NEED(old);
        return build(x, t->types[0], depth + 1);
    case MPI_COMBINER_CONTIGUOUS:
        NEED(old && ni >= 1);
        return rep_node(x, 0, count_arg(x, n), ext, build(x, t->types[0], depth + 1));
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_HVECTOR_INTEGER: {
        int byint = t->combiner != MPI_COMBINER_HVECTOR;
        NEED(old && ni >= (byint ? 3 : 2) && (byint || na >= 1));
        int64_t stride = t->combiner == MPI_COMBINER_VECTOR ? scaled(x, in[2], ext)
                         : byint                             ? in[2]
                                                             : (int64_t)ad[0];
        ir_node_t *blk = rep_node(x, 0, count_arg(x, in[1]), ext,
                                  build(x, t->types[0], depth + 1));
        return rep_node(x, 0, count_arg(x, n), stride, blk);
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED_INTEGER:
        NEED(old && ni >= 1 && ni >= 1 + 2 * n);
        nd = new_node(x);
        for (int k = 0; k < n && !x->failed; k++)
            add_block(x, nd,
                      t->combiner == MPI_COMBINER_INDEXED ? scaled(x, in[1 + n + k], ext)
                                                          : in[1 + n + k],
                      in[1 + k], t->types[0], depth);
        return finish(x, nd);
    case MPI_COMBINER_HINDEXED:
        NEED(old && ni >= 1 + n && na >= n);
        nd = new_node(x);
        for (int k = 0; k < n && !x->failed; k++)
            add_block(x, nd, ad[k], in[1 + k], t->types[0], depth);
        return finish(x, nd);
    case MPI_COMBINER_INDEXED_BLOCK:
        NEED(old && ni >= 2 + n);
        nd = new_node(x);
        for (int k = 0; k < n && !x->failed; k++)
            add_block(x, nd, scaled(x, in[2 + k], ext), in[1], t->types[0], depth);
        return finish(x, nd);
    case MPI_COMBINER_HINDEXED_BLOCK:
        NEED(old && ni >= 2 && na >= n);
        nd = new_node(x);
        for (int k = 0; k < n && !x->failed; k++)
            add_block(x, nd, ad[k], in[1], t->types[0], depth);
        return finish(x, nd);
    case MPI_COMBINER_STRUCT:
    case MPI_COMBINER_STRUCT_INTEGER: {
        int byint = t->combiner == MPI_COMBINER_STRUCT_INTEGER;
        NEED(ni >= 1 + n * (byint ? 2 : 1) && (byint || na >= n) && nt >= n);
        nd = new_node(x);
        for (int k = 0; k < n && !x->failed; k++)
            add_block(x, nd, byint ? in[1 + n + k] : (int64_t)ad[k], in[1 + k], t->types[k],
                      depth);
        return finish(x, nd);
    }
    case MPI_COMBINER_SUBARRAY:
        return build_subarray(x, t, depth);
    case MPI_COMBINER_DARRAY:
        return build_darray(x, t, depth);
    default:
        x->failed = 1;
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
        x->failed = 1;
        return NULL;
    }
    ir_node_t *nd = memo_get(x, t, 0);
    if (nd || x->failed)
        return nd;
    nd = build_type(x, t, depth);
    memo_put(x, t, 0, nd);
    return x->failed ? NULL : nd;
}

/* ---- depth limit -------------------------------------------------------------------- */

/* Adds the leaf blocks of one instance of nd at origin org to out, in order. */
static void flatten(ctx_t *x, ir_node_t *out, const ir_node_t *nd, int64_t org)
{
    for (size_t k = 0; k < nd->n && !x->failed; k++) {
        ir_ent_t e = nd->e[k];
        int64_t d;
        if (__builtin_add_overflow(org, e.disp, &d)) {
            x->failed = 1;
            return;
        }
        if (!e.child) {
            if (x->flat_left-- == 0) {
                x->failed = 1;
                return;
            }
            e.disp = d;
            add(x, out, e);
            continue;
        }
        for (uint64_t i = 0; i < e.reps && !x->failed; i++) {
            int64_t o;
            if (__builtin_mul_overflow((int64_t)i, e.stride, &o) ||
                __builtin_add_overflow(d, o, &o)) {
                x->failed = 1;
                return;
            }
            flatten(x, out, e.child, o);
        }
    }
}

/* nd, or an equivalent node of height at most maxh. */
static ir_node_t *limit(ctx_t *x, ir_node_t *nd, uint32_t maxh)
{
    if (!nd || nd->height <= maxh)
        return nd;
    ir_node_t *out = memo_get(x, nd, maxh);
    if (out)
        return out;
    out = new_node(x);
    if (maxh == 1) {
        flatten(x, out, nd, 0);
    } else {
        for (size_t k = 0; k < nd->n && !x->failed; k++) {
            ir_ent_t e = nd->e[k];
            if (e.child)
                e.child = limit(x, e.child, maxh - 1);
            add(x, out, e);
        }
    }
    out = finish(x, out);
    memo_put(x, nd, maxh, out);
    return out;
}

/* ---- placing and writing ------------------------------------------------------------ */

static uint32_t choose_kind(const ir_node_t *nd)
{
    if (nd->n < 2)
        return DT_NODE_LIST;
    for (size_t k = 0; k < nd->n; k++)
        if (nd->e[k].child || nd->e[k].reps != 1 || nd->e[k].sig != nd->e[0].sig)
            return DT_NODE_LIST;
    return DT_NODE_BLOCKS;
}

/* Gives nd and everything below it an offset, children first. */
static void place(ctx_t *x, ir_node_t *nd)
{
    if (nd->off || x->failed)
        return;
    for (size_t k = 0; k < nd->n; k++)
        if (nd->e[k].child)
            place(x, nd->e[k].child);
    nd->kind = choose_kind(nd);
    uint64_t b = dt_node_bytes(nd->kind, nd->n);
    if (x->pos + b > UINT32_MAX ||
        !grow(x, (void **)&x->order, &x->caporder, x->norder + 1, sizeof *x->order)) {
        x->failed = 1;
        return;
    }
    nd->off = (uint32_t)x->pos;
    x->pos += b;
    x->order[x->norder++] = nd;
}

static void write_node(const ctx_t *x, char *blob, const ir_node_t *nd)
{
    dt_node_t *h = (dt_node_t *)(blob + nd->off);
    *h = (dt_node_t){ .kind = nd->kind, .height = nd->height, .n = nd->n, .size = nd->size,
                      .nelem = nd->nelem, .sig = nd->e[0].sig };
    uint64_t prefix = 0, eprefix = 0;
    if (nd->kind == DT_NODE_BLOCKS) {
        int64_t *disp = (int64_t *)(h + 1);
        uint64_t *pre = (uint64_t *)(disp + nd->n);
        for (size_t k = 0; k < nd->n; k++) {
            disp[k] = nd->e[k].disp;
            pre[k] = prefix;
            prefix += nd->e[k].len;
        }
        pre[nd->n] = prefix;
        return;
    }
    dt_entry_t *out = (dt_entry_t *)(h + 1);
    for (size_t k = 0; k < nd->n; k++) {
        const ir_ent_t *e = &nd->e[k];
        const sig_rec_t *sg = e->child ? NULL : &x->sigs[e->sig];
        uint64_t size = ent_size(e);
        out[k] = (dt_entry_t){ .disp = e->disp, .reps = e->reps, .stride = e->stride,
                               .size = size, .prefix = prefix, .eprefix = eprefix,
                               .child = e->child ? e->child->off : 0,
                               .sig = e->child ? 0 : e->sig };
        prefix += e->reps * size;
        eprefix += e->reps * (e->child ? e->child->nelem : e->len / sg->period * sg->nelem);
    }
}

static dt_layout_t *emit(ctx_t *x, const dtype_t *t, ir_node_t *root)
{
    size_t nruns = 0;
    for (size_t i = 0; i < x->nsigs; i++)
        nruns += x->sigs[i].nruns;
    uint64_t sigs_off = sizeof(struct dt_layout);
    uint64_t runs_off = sigs_off + x->nsigs * sizeof(dt_sig_t);
    x->pos = runs_off + nruns * sizeof(dt_run_t);
    if (root->n)
        place(x, root);
    if (x->failed)
        return NULL;
    char *blob = calloc(1, x->pos);
    if (!blob)
        return NULL;
    dt_layout_t *l = (dt_layout_t *)blob;
    int contig = root->n == 1 && !root->e[0].child && root->e[0].reps == 1;
    *l = (struct dt_layout){ .magic = DT_MAGIC, .version = DT_VERSION, .len = x->pos,
                             .size = root->size, .extent = extent_of(t),
                             .true_lb = root->n ? root->lo : 0, .nelem = root->nelem,
                             .nblocks = root->nblocks, .root = root->n ? root->off : 0,
                             .flags = contig ? DT_FLAG_CONTIG : 0,
                             .nsigs = (uint32_t)x->nsigs, .nruns = (uint32_t)nruns,
                             .sigs_off = (uint32_t)sigs_off, .runs_off = (uint32_t)runs_off };
    dt_sig_t *sg = (dt_sig_t *)(blob + sigs_off);
    dt_run_t *rn = (dt_run_t *)(blob + runs_off);
    uint32_t first = 0;
    for (size_t i = 0; i < x->nsigs; i++) {
        const sig_rec_t *s = &x->sigs[i];
        sg[i] = (dt_sig_t){ s->period, s->nelem, first, s->nruns };
        memcpy(rn + first, s->runs, s->nruns * sizeof *rn);
        first += s->nruns;
    }
    for (size_t i = 0; i < x->norder; i++)
        write_node(x, blob, x->order[i]);
    return l;
}

dt_layout_t *dt_compile_tree(const dtype_t *t, dt_lookup_fn lookup)
{
    ctx_t x;
    memset(&x, 0, sizeof x);
    x.lookup = lookup;
    x.flat_left = FLAT_MAX_ENTRIES;
    ir_node_t *root = build_type(&x, t, 0);
    root = limit(&x, root, DT_CURSOR_DEPTH - 1);
    dt_layout_t *l = root && !x.failed ? emit(&x, t, root) : NULL;
    while (x.arena) {
        ir_node_t *nd = x.arena;
        x.arena = nd->arena_next;
        free(nd->e);
        free(nd);
    }
    free(x.sigs);
    free(x.memo);
    free(x.order);
    return l;
}

int dt_compile(dtype_t *t)
{
    dt_layout_t *l = dt_compile_tree(t, dtype_lookup);
    if (!l)
        return -1;
    dt_layout_free(t->layout);
    t->layout = l;
    return 0;
}
