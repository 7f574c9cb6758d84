/*
 * Layout accessors and validation of layouts that come from elsewhere (another process's
 * bytes, read for a rendezvous). Validation establishes every invariant of format.h
 * in one pass over the nodes, which are stored children first: when a node is checked,
 * everything it references has been checked already.
 */
#include "datatype/engine/format.h"

#include <stdlib.h>
#include <string.h>

size_t dt_layout_size(const dt_layout_t *l)
{
    return l->size;
}

ssize_t dt_layout_extent(const dt_layout_t *l)
{
    return (ssize_t)l->extent;
}

ssize_t dt_layout_true_lb(const dt_layout_t *l)
{
    return (ssize_t)l->true_lb;
}

size_t dt_layout_blocks(const dt_layout_t *l)
{
    return (size_t)l->nblocks;
}

int dt_layout_contiguous(const dt_layout_t *l, size_t count)
{
    if (!l->size || !count)
        return 1;
    return (l->flags & DT_FLAG_CONTIG) && (count == 1 || (uint64_t)l->extent == l->size);
}

const void *dt_layout_bytes(const dt_layout_t *l, size_t *len)
{
    *len = (size_t)l->len;
    return l;
}

void dt_layout_free(dt_layout_t *l)
{
    free(l);
}

/* ---- validation -------------------------------------------------------------------- */

typedef struct vstate {
    const dt_layout_t *l;
    uint64_t len, nodes_off;
    unsigned char *starts;    /* bit per 8-byte offset: a checked node begins there */
} vstate_t;

static int is_node(const vstate_t *v, uint64_t off)
{
    return off >= v->nodes_off && off < v->len && !(off & 7) &&
           (v->starts[off / 64] >> ((off / 8) % 8) & 1);
}

static int check_sigs(const dt_layout_t *l)
{
    const dt_sig_t *s = dt_sigs(l);
    const dt_run_t *r = dt_runs(l);
    for (uint32_t i = 0; i < l->nsigs; i++) {
        if (s[i].nruns < 1 || s[i].nruns > DT_SIG_MAX_RUNS || s[i].first > l->nruns ||
            s[i].nruns > l->nruns - s[i].first)
            return 0;
        uint64_t period = 0, nelem = 0;
        for (uint32_t j = s[i].first; j < s[i].first + s[i].nruns; j++) {
            if (!r[j].esize || !r[j].bytes || r[j].bytes % r[j].esize ||
                __builtin_add_overflow(period, r[j].bytes, &period))
                return 0;
            nelem += r[j].bytes / r[j].esize;
        }
        if (period != s[i].period || nelem != s[i].nelem)
            return 0;
    }
    return 1;
}

/* Elements in a leaf of len bytes of signature sig; 0 when len is not whole periods. */
static int leaf_ok(const dt_layout_t *l, uint32_t sig, uint64_t len, uint64_t *nelem)
{
    if (sig >= l->nsigs)
        return 0;
    const dt_sig_t *s = &dt_sigs(l)[sig];
    if (!len || len % s->period)
        return 0;
    return !__builtin_mul_overflow(len / s->period, s->nelem, nelem);
}

static int check_list(const vstate_t *v, uint64_t off, const dt_node_t *nd)
{
    const dt_entry_t *e = dt_list_entries(nd);
    uint64_t size = 0, nelem = 0;
    uint32_t h = 0;
    for (uint64_t k = 0; k < nd->n; k++) {
        uint64_t one, bytes, elems;
        if (e[k].prefix != size || e[k].eprefix != nelem || !e[k].reps || !e[k].size)
            return 0;
        if (e[k].child) {
            if (e[k].child >= off || !is_node(v, e[k].child))
                return 0;
            const dt_node_t *ch = dt_node_at(v->l, e[k].child);
            if (ch->size != e[k].size)
                return 0;
            one = ch->nelem;
            if (ch->height > h)
                h = ch->height;
        } else if (!leaf_ok(v->l, e[k].sig, e[k].size, &one)) {
            return 0;
        }
        if (__builtin_mul_overflow(e[k].reps, e[k].size, &bytes) ||
            __builtin_add_overflow(size, bytes, &size) ||
            __builtin_mul_overflow(e[k].reps, one, &elems) ||
            __builtin_add_overflow(nelem, elems, &nelem))
            return 0;
    }
    return nd->size == size && nd->nelem == nelem && nd->height == h + 1;
}

static int check_blocks(const vstate_t *v, const dt_node_t *nd)
{
    const uint64_t *p = dt_blocks_prefix(nd);
    uint64_t nelem;
    if (p[0] != 0 || nd->height != 1 || p[nd->n] != nd->size ||
        !leaf_ok(v->l, nd->sig, nd->size, &nelem) || nelem != nd->nelem)
        return 0;
    for (uint64_t k = 0; k < nd->n; k++) {
        uint64_t one;
        if (p[k + 1] <= p[k] || !leaf_ok(v->l, nd->sig, p[k + 1] - p[k], &one))
            return 0;
    }
    return 1;
}

const dt_layout_t *dt_layout_check(const void *bytes, size_t len)
{
    const dt_layout_t *l = bytes;
    if (!bytes || ((uintptr_t)bytes & 7) || len < sizeof *l || len > UINT32_MAX || len & 7 ||
        l->magic != DT_MAGIC || l->version != DT_VERSION || l->len != len)
        return NULL;
    uint64_t sigs_end = (uint64_t)l->sigs_off + (uint64_t)l->nsigs * sizeof(dt_sig_t);
    uint64_t runs_end = (uint64_t)l->runs_off + (uint64_t)l->nruns * sizeof(dt_run_t);
    if (l->sigs_off != sizeof *l || l->runs_off != sigs_end || runs_end > len ||
        !check_sigs(l))
        return NULL;
    vstate_t v = { l, len, runs_end, calloc(len / 64 + 1, 1) };
    if (!v.starts)
        return NULL;
    int ok = 1;
    uint64_t off = runs_end;
    while (ok && off < len) {
        const dt_node_t *nd = dt_node_at(l, (uint32_t)off);
        if (len - off < sizeof *nd || !nd->n || nd->n > (len - off) / 8 ||
            (nd->kind != DT_NODE_LIST && nd->kind != DT_NODE_BLOCKS) ||
            dt_node_bytes(nd->kind, nd->n) > len - off || nd->height >= DT_CURSOR_DEPTH) {
            ok = 0;
            break;
        }
        ok = nd->kind == DT_NODE_LIST ? check_list(&v, off, nd) : check_blocks(&v, nd);
        v.starts[off / 64] |= (unsigned char)(1u << ((off / 8) % 8));
        off += dt_node_bytes(nd->kind, nd->n);
    }
    if (ok) {
        if (!l->size) {
            ok = !l->root && !l->nelem;
        } else if (!is_node(&v, l->root)) {
            ok = 0;
        } else {
            const dt_node_t *r = dt_node_at(l, l->root);
            ok = r->size == l->size && r->nelem == l->nelem && l->nblocks;
            if (ok && (l->flags & DT_FLAG_CONTIG)) {
                const dt_entry_t *e = dt_list_entries(r);
                ok = r->kind == DT_NODE_LIST && r->n == 1 && !e->child && e->reps == 1 &&
                     e->disp == l->true_lb;
            }
        }
    }
    free(v.starts);
    return ok ? l : NULL;
}
