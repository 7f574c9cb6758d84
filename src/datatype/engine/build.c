/*
 * The layout builder (build.h): nodes, entries and their normalisation, signatures, totals.
 */
#include "datatype/engine/build.h"

#include <stdlib.h>
#include <string.h>

void ir_init(ir_t *ir)
{
    memset(ir, 0, sizeof *ir);
    ir->flat_left = IR_FLAT_MAX_ENTRIES;
}

void ir_free(ir_t *ir)
{
    while (ir->arena) {
        ir_node_t *nd = ir->arena;
        ir->arena = nd->arena_next;
        free(nd->e);
        free(nd);
    }
    free(ir->sigs);
    free(ir->memo);
    free(ir->order);
}

int ir_grow(ir_t *ir, void **p, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap)
        return 1;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elsize);
    if (!q) {
        ir->failed = 1;
        return 0;
    }
    *p = q;
    *cap = c;
    return 1;
}

ir_node_t *ir_new_node(ir_t *ir)
{
    ir_node_t *nd = calloc(1, sizeof *nd);
    if (!nd) {
        ir->failed = 1;
        return NULL;
    }
    nd->arena_next = ir->arena;
    ir->arena = nd;
    return nd;
}

uint64_t ir_ent_size(const ir_ent_t *e)
{
    return e->child ? e->child->size : e->len;
}

/* ---- signatures ---------------------------------------------------------------------- */

static uint32_t sig_intern(ir_t *ir, const sig_rec_t *s)
{
    for (size_t i = 0; i < ir->nsigs; i++) {
        const sig_rec_t *o = &ir->sigs[i];
        if (o->period == s->period && o->nruns == s->nruns &&
            memcmp(o->runs, s->runs, s->nruns * sizeof s->runs[0]) == 0)
            return (uint32_t)i;
    }
    if (!ir_grow(ir, (void **)&ir->sigs, &ir->capsigs, ir->nsigs + 1, sizeof *ir->sigs))
        return 0;
    ir->sigs[ir->nsigs] = *s;
    return (uint32_t)ir->nsigs++;
}

uint32_t ir_sig_basic(ir_t *ir, uint32_t basic, uint64_t esize)
{
    sig_rec_t s;
    memset(&s, 0, sizeof s);
    s.period = esize;
    s.nelem = 1;
    s.nruns = 1;
    s.runs[0] = (dt_run_t){ basic, (uint32_t)esize, esize };
    return sig_intern(ir, &s);
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
static int sig_concat(ir_t *ir, uint32_t sa, uint64_t la, uint32_t sb, uint64_t lb,
                      uint32_t *out)
{
    if (sa == sb) {
        *out = sa;
        return 1;
    }
    sig_rec_t a = ir->sigs[sa], b = ir->sigs[sb], r;
    memset(&r, 0, sizeof r);
    if (!runs_append(&r, &a, la) || !runs_append(&r, &b, lb))
        return 0;
    *out = sig_intern(ir, &r);
    return !ir->failed;
}

/* ---- entries --------------------------------------------------------------------------- */

static void append(ir_t *ir, ir_node_t *nd, const ir_ent_t *e)
{
    if (!ir_grow(ir, (void **)&nd->e, &nd->cap, nd->n + 1, sizeof *nd->e))
        return;
    nd->e[nd->n++] = *e;
}

/* A leaf repeated with stride == its length is one longer leaf. */
static void fold_leaf(ir_t *ir, ir_ent_t *e)
{
    if (!e->child && e->reps > 1 && e->stride > 0 && (uint64_t)e->stride == e->len) {
        if (__builtin_mul_overflow(e->len, e->reps, &e->len)) {
            ir->failed = 1;
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
static int merge(ir_t *ir, ir_ent_t *p, const ir_ent_t *e)
{
    int64_t end;
    if (!p->child && !e->child && p->reps == 1 && e->reps == 1 &&
        !__builtin_add_overflow(p->disp, (int64_t)p->len, &end) && end == e->disp) {
        uint32_t s;
        if (sig_concat(ir, p->sig, p->len, e->sig, e->len, &s)) {
            if (__builtin_add_overflow(p->len, e->len, &p->len))
                ir->failed = 1;
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
    fold_leaf(ir, p);
    return 1;
}

/* Adds entry e to nd, normalised (build.h). */
void ir_add(ir_t *ir, ir_node_t *nd, ir_ent_t e)
{
    if (ir->failed || !nd || e.reps == 0 || ir_ent_size(&e) == 0)
        return;
    if (e.reps == 1)
        e.stride = 0;
    while (e.child && e.child->n == 1) {
        ir_ent_t c = e.child->e[0];
        int64_t d, span;
        uint64_t r;
        if (__builtin_add_overflow(e.disp, c.disp, &d)) {
            ir->failed = 1;
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
    fold_leaf(ir, &e);
    if (e.child && e.reps == 1 && e.child->n <= IR_SPLICE_MAX) {
        const ir_node_t *ch = e.child;
        for (size_t k = 0; k < ch->n && !ir->failed; k++) {
            ir_ent_t c = ch->e[k];
            if (__builtin_add_overflow(c.disp, e.disp, &c.disp))
                ir->failed = 1;
            else
                ir_add(ir, nd, c);
        }
        return;
    }
    if (nd->n && merge(ir, &nd->e[nd->n - 1], &e))
        return;
    append(ir, nd, &e);
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
ir_node_t *ir_finish(ir_t *ir, ir_node_t *nd)
{
    if (ir->failed || !nd)
        return NULL;
    __int128 lo = 0, hi = 0;
    uint32_t h = 0;
    for (size_t k = 0; k < nd->n; k++) {
        const ir_ent_t *e = &nd->e[k];
        uint64_t s = ir_ent_size(e), bytes, ne;
        const sig_rec_t *sg = e->child ? NULL : &ir->sigs[e->sig];
        uint64_t one = e->child ? e->child->nelem : e->len / sg->period * sg->nelem;
        if (__builtin_mul_overflow(s, e->reps, &bytes) ||
            __builtin_add_overflow(nd->size, bytes, &nd->size) ||
            __builtin_mul_overflow(one, e->reps, &ne) ||
            __builtin_add_overflow(nd->nelem, ne, &nd->nelem)) {
            ir->failed = 1;
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
        ir->failed = 1;
        return NULL;
    }
    nd->lo = (int64_t)lo;
    nd->hi = (int64_t)hi;
    nd->height = h + 1;
    return nd;
}

ir_node_t *ir_rep_node(ir_t *ir, int64_t disp, uint64_t reps, int64_t stride,
                       ir_node_t *body)
{
    ir_node_t *nd = ir_new_node(ir);
    if (body)
        ir_add(ir, nd, (ir_ent_t){ .disp = disp, .reps = reps, .stride = stride, .child = body });
    return ir_finish(ir, nd);
}

ir_node_t *ir_memo_get(const ir_t *ir, const void *key, uint32_t tag)
{
    for (size_t i = 0; i < ir->nmemo; i++)
        if (ir->memo[i].key == key && ir->memo[i].tag == tag)
            return ir->memo[i].node;
    return NULL;
}

void ir_memo_put(ir_t *ir, const void *key, uint32_t tag, ir_node_t *nd)
{
    if (nd && ir_grow(ir, (void **)&ir->memo, &ir->capmemo, ir->nmemo + 1, sizeof *ir->memo))
        ir->memo[ir->nmemo++] = (memo_t){ key, tag, nd };
}
