/*
 * From the builder's tree to a layout (build.h): the depth limit (the lowest levels of a tree
 * deeper than a cursor can follow are flattened into explicit block lists), then placing
 * every node (children first) and writing the bytes (format.h).
 */
#include "datatype/engine/build.h"

#include <stdlib.h>
#include <string.h>

/* ---- depth limit -------------------------------------------------------------------- */

/* Adds the leaf blocks of one instance of nd at origin org to out, in order. */
static void flatten(ir_t *ir, ir_node_t *out, const ir_node_t *nd, int64_t org)
{
    for (size_t k = 0; k < nd->n && !ir->failed; k++) {
        ir_ent_t e = nd->e[k];
        int64_t d;
        if (__builtin_add_overflow(org, e.disp, &d)) {
            ir->failed = 1;
            return;
        }
        if (!e.child) {
            if (ir->flat_left-- == 0) {
                ir->failed = 1;
                return;
            }
            e.disp = d;
            ir_add(ir, out, e);
            continue;
        }
        for (uint64_t i = 0; i < e.reps && !ir->failed; i++) {
            int64_t o;
            if (__builtin_mul_overflow((int64_t)i, e.stride, &o) ||
                __builtin_add_overflow(d, o, &o)) {
                ir->failed = 1;
                return;
            }
            flatten(ir, out, e.child, o);
        }
    }
}

ir_node_t *ir_limit(ir_t *ir, ir_node_t *nd, uint32_t maxh)
{
    if (!nd || nd->height <= maxh)
        return nd;
    ir_node_t *out = ir_memo_get(ir, nd, maxh);
    if (out)
        return out;
    out = ir_new_node(ir);
    if (maxh == 1) {
        flatten(ir, out, nd, 0);
    } else {
        for (size_t k = 0; k < nd->n && !ir->failed; k++) {
            ir_ent_t e = nd->e[k];
            if (e.child)
                e.child = ir_limit(ir, e.child, maxh - 1);
            ir_add(ir, out, e);
        }
    }
    out = ir_finish(ir, out);
    ir_memo_put(ir, nd, maxh, out);
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
static void place(ir_t *ir, ir_node_t *nd)
{
    if (nd->off || ir->failed)
        return;
    for (size_t k = 0; k < nd->n; k++)
        if (nd->e[k].child)
            place(ir, nd->e[k].child);
    nd->kind = choose_kind(nd);
    uint64_t b = dt_node_bytes(nd->kind, nd->n);
    if (ir->pos + b > UINT32_MAX ||
        !ir_grow(ir, (void **)&ir->order, &ir->caporder, ir->norder + 1, sizeof *ir->order)) {
        ir->failed = 1;
        return;
    }
    nd->off = (uint32_t)ir->pos;
    ir->pos += b;
    ir->order[ir->norder++] = nd;
}

static void write_node(const ir_t *ir, char *blob, const ir_node_t *nd)
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
        const sig_rec_t *sg = e->child ? NULL : &ir->sigs[e->sig];
        uint64_t size = ir_ent_size(e);
        out[k] = (dt_entry_t){ .disp = e->disp, .reps = e->reps, .stride = e->stride,
                               .size = size, .prefix = prefix, .eprefix = eprefix,
                               .child = e->child ? e->child->off : 0,
                               .sig = e->child ? 0 : e->sig };
        prefix += e->reps * size;
        eprefix += e->reps * (e->child ? e->child->nelem : e->len / sg->period * sg->nelem);
    }
}

dt_layout_t *ir_emit(ir_t *ir, ir_node_t *root, int64_t extent)
{
    size_t nruns = 0;
    for (size_t i = 0; i < ir->nsigs; i++)
        nruns += ir->sigs[i].nruns;
    uint64_t sigs_off = sizeof(struct dt_layout);
    uint64_t runs_off = sigs_off + ir->nsigs * sizeof(dt_sig_t);
    ir->pos = runs_off + nruns * sizeof(dt_run_t);
    if (root->n)
        place(ir, root);
    if (ir->failed)
        return NULL;
    char *blob = calloc(1, ir->pos);
    if (!blob)
        return NULL;
    dt_layout_t *l = (dt_layout_t *)blob;
    int contig = root->n == 1 && !root->e[0].child && root->e[0].reps == 1;
    *l = (struct dt_layout){ .magic = DT_MAGIC, .version = DT_VERSION, .len = ir->pos,
                             .size = root->size, .extent = extent,
                             .true_lb = root->n ? root->lo : 0, .nelem = root->nelem,
                             .nblocks = root->nblocks, .root = root->n ? root->off : 0,
                             .flags = contig ? DT_FLAG_CONTIG : 0,
                             .nsigs = (uint32_t)ir->nsigs, .nruns = (uint32_t)nruns,
                             .sigs_off = (uint32_t)sigs_off, .runs_off = (uint32_t)runs_off };
    dt_sig_t *sg = (dt_sig_t *)(blob + sigs_off);
    dt_run_t *rn = (dt_run_t *)(blob + runs_off);
    uint32_t first = 0;
    for (size_t i = 0; i < ir->nsigs; i++) {
        const sig_rec_t *s = &ir->sigs[i];
        sg[i] = (dt_sig_t){ s->period, s->nelem, first, s->nruns };
        memcpy(rn + first, s->runs, s->nruns * sizeof *rn);
        first += s->nruns;
    }
    for (size_t i = 0; i < ir->norder; i++)
        write_node(ir, blob, ir->order[i]);
    return l;
}