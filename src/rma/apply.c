/* Applying one data operation to a target region: shared by the target side of the
 * emulation (target.c, on its own window) and by direct access on one host (direct.c, on a
 * peer's part of the window's segment). The caller provides atomicity: the emulation applies
 * one message at a time, direct access holds the target's accumulate lock. */
#include "rma/win.h"
#include "rma/wire.h"

#include "core/errors.h"
#include "core/op.h"

#include <stdlib.h>
#include <string.h>

/* The target region of h (with its layout at layout) as a cursor over memory at base. */
static void region(char *base, const rma_hdr_t *h, const void *layout, dt_cursor_t *c)
{
    const dt_layout_t *l = dt_layout_check(layout, h->layout_len);
    if (!l)
        err_fatal(MPI_ERR_INTERN, "MPI_Win", "a one-sided operation came with a bad layout");
    dt_cursor_init(c, l, (uintptr_t)base + h->offset, h->count);
}

static void read_region(char *base, const rma_hdr_t *h, const void *layout, void *dst)
{
    if (!h->layout_len) {
        memcpy(dst, base + h->offset, h->bytes);
        return;
    }
    dt_cursor_t c;
    region(base, h, layout, &c);
    dt_pack(&c, dst, h->bytes);
}

static void write_region(char *base, const rma_hdr_t *h, const void *layout, const void *src)
{
    if (!h->layout_len) {
        memcpy(base + h->offset, src, h->bytes);
        return;
    }
    dt_cursor_t c;
    region(base, h, layout, &c);
    dt_unpack(&c, src, h->bytes);
}

static void *copy_region(char *base, const rma_hdr_t *h, const void *layout)
{
    void *tmp = malloc(h->bytes ? h->bytes : 1);
    if (!tmp)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for a one-sided operation");
    read_region(base, h, layout, tmp);
    return tmp;
}

/* The target's data before the operation, into old_into (or a new buffer). */
static void *keep_old(char *base, const rma_hdr_t *h, const void *layout, void *old_into)
{
    if (!old_into)
        return copy_region(base, h, layout);
    read_region(base, h, layout, old_into);
    return old_into;
}

static void apply_op(const rma_hdr_t *h, const void *data, void *inout)
{
    size_t leaf = op_leaf_size(h->leaf);
    op_apply_leaves((op_kind_t)h->op, h->leaf, data, inout, leaf ? h->bytes / leaf : 0);
}

void *rma_apply_data(void *window_base, const rma_hdr_t *h, const void *layout, const void *data,
                     void *old_into)
{
    char *base = window_base;
    switch (h->kind) {
    case RMA_PUT:
        write_region(base, h, layout, data);
        return NULL;
    case RMA_GET:
        return keep_old(base, h, layout, old_into);
    case RMA_ACC:
    case RMA_GACC: {
        void *old = h->kind == RMA_GACC ? keep_old(base, h, layout, old_into) : NULL;
        if (h->op == OP_NO_OP)
            return old;
        if (!h->layout_len) {
            /* a contiguous region: the op runs on it in place */
            apply_op(h, data, base + h->offset);
            return old;
        }
        char *tmp = copy_region(base, h, layout);
        apply_op(h, data, tmp);
        write_region(base, h, layout, tmp);
        free(tmp);
        return old;
    }
    case RMA_CAS: {
        char *old = keep_old(base, h, layout, old_into);
        if (memcmp(old, (const char *)data + h->bytes, h->bytes) == 0)
            write_region(base, h, layout, data);
        return old;
    }
    default:
        err_fatal(MPI_ERR_INTERN, "MPI_Win", "one-sided operation %u is not a data operation",
                  h->kind);
    }
}
