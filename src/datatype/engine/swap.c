/* A layout written by a process of the other byte order (format.h: every field in its
 * writer's host order), turned into this host's order in place, field by field: the header,
 * the signatures, the runs, then the nodes, which follow the runs back to back up to len.
 * A node's kind and entry count are read after they are turned, so the walk follows the
 * layout as its writer meant it; anything inconsistent stops the walk, and dt_layout_check,
 * which the caller runs next, rejects the result. */
#include "datatype/engine/format.h"

#include <byteswap.h>
#include <stddef.h>
#include <string.h>

_Static_assert(offsetof(dt_entry_t, child) == 48, "an entry: six 64-bit words, two 32-bit");

static void sw32(uint32_t *v) { *v = bswap_32(*v); }
static void sw64(void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    v = bswap_64(v);
    memcpy(p, &v, sizeof v);
}

static void swap_words(char *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        sw64(p + 8 * i);
}

int dt_layout_swap(void *bytes, size_t len)
{
    if (len < sizeof(struct dt_layout))
        return -1;
    dt_layout_t *l = bytes;
    sw32(&l->magic), sw32(&l->version);
    sw64(&l->len), sw64(&l->size), sw64(&l->extent), sw64(&l->true_lb);
    sw64(&l->nelem), sw64(&l->nblocks);
    sw32(&l->root), sw32(&l->flags), sw32(&l->nsigs), sw32(&l->nruns);
    sw32(&l->sigs_off), sw32(&l->runs_off);
    char *b = bytes;
    uint64_t sigs_end = (uint64_t)l->sigs_off + (uint64_t)l->nsigs * sizeof(dt_sig_t);
    uint64_t off = (uint64_t)l->runs_off + (uint64_t)l->nruns * sizeof(dt_run_t);
    if (l->sigs_off % 8 || l->runs_off % 8 || sigs_end > len || off > len)
        return -1;
    for (uint32_t i = 0; i < l->nsigs; i++) {
        dt_sig_t *s = (dt_sig_t *)(b + l->sigs_off) + i;
        sw64(&s->period), sw64(&s->nelem), sw32(&s->first), sw32(&s->nruns);
    }
    for (uint32_t i = 0; i < l->nruns; i++) {
        dt_run_t *r = (dt_run_t *)(b + l->runs_off) + i;
        sw32(&r->basic), sw32(&r->esize), sw64(&r->bytes);
    }
    while (off + sizeof(dt_node_t) <= len) {
        dt_node_t *n = (dt_node_t *)(b + off);
        sw32(&n->kind), sw32(&n->height), sw64(&n->n), sw64(&n->size), sw64(&n->nelem);
        sw32(&n->sig), sw32(&n->pad);
        if ((n->kind != DT_NODE_LIST && n->kind != DT_NODE_BLOCKS) ||
            n->n > (len - off) / 8)
            return -1;
        uint64_t bytes_of = dt_node_bytes(n->kind, n->n);
        if (bytes_of > len - off)
            return -1;
        if (n->kind == DT_NODE_BLOCKS) {
            swap_words((char *)(n + 1), 2 * n->n + 1); /* disp[n], prefix[n + 1] */
        } else {
            dt_entry_t *e = (dt_entry_t *)(n + 1);
            for (uint64_t k = 0; k < n->n; k++) {
                swap_words((char *)&e[k], 6); /* disp, reps, stride, size, prefix, eprefix */
                sw32(&e[k].child), sw32(&e[k].sig);
            }
        }
        off += bytes_of;
    }
    return off == len ? 0 : -1;
}
