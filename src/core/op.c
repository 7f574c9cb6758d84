#include "core/op.h"

#include "core/lock.h"
#include "util/handles.h"
#include "datatype/predefined.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* REPLACE and NO_OP are commutative here only nominally: they never reach a collective. */
#define P(k) [k] = {(MPI_Op)(OP_KIND | (k)), (k), NULL, 1, 1}
static op_t predefined[OP_NPREDEFINED + 1] = {
    P(OP_MAX),  P(OP_MIN),  P(OP_SUM),    P(OP_PROD),   P(OP_LAND),    P(OP_BAND),  P(OP_LOR),
    P(OP_BOR),  P(OP_LXOR), P(OP_BXOR),   P(OP_MAXLOC), P(OP_MINLOC), P(OP_REPLACE), P(OP_NO_OP),
};
#undef P
static handle_table_t table = HANDLE_TABLE_INIT(OP_KIND, OP_NPREDEFINED + 1);

static const char *const names[OP_NPREDEFINED + 1] = {
    [OP_MAX] = "MPI_MAX",       [OP_MIN] = "MPI_MIN",       [OP_SUM] = "MPI_SUM",
    [OP_PROD] = "MPI_PROD",     [OP_LAND] = "MPI_LAND",     [OP_BAND] = "MPI_BAND",
    [OP_LOR] = "MPI_LOR",       [OP_BOR] = "MPI_BOR",       [OP_LXOR] = "MPI_LXOR",
    [OP_BXOR] = "MPI_BXOR",     [OP_MAXLOC] = "MPI_MAXLOC", [OP_MINLOC] = "MPI_MINLOC",
    [OP_REPLACE] = "MPI_REPLACE", [OP_NO_OP] = "MPI_NO_OP",
};

op_t *op_lookup(MPI_Op h)
{
    unsigned u = (unsigned)h;
    if ((u & HANDLE_KIND_MASK) != OP_KIND)
        return NULL;
    unsigned idx = u & HANDLE_INDEX_MASK;
    if (idx >= 1 && idx <= OP_NPREDEFINED)
        return &predefined[idx];
    return handle_get(&table, h);
}

int op_create(MPI_User_function *fn, int commute, MPI_Op *out)
{
    op_t *op = calloc(1, sizeof *op);
    if (!op)
        return MPI_ERR_NO_MEM;
    op->kind = OP_USER;
    op->fn = fn;
    op->commute = commute != 0;
    op->refs = 1;
    op->handle = handle_new(&table, op);
    if (!op->handle) {
        free(op);
        return MPI_ERR_NO_MEM;
    }
    *out = op->handle;
    return MPI_SUCCESS;
}

void op_retain(op_t *op)
{
    if (op->kind == OP_USER)
        op->refs++;
}

void op_release(op_t *op)
{
    if (op->kind == OP_USER && --op->refs == 0) {
        handle_release(&table, op->handle);
        free(op);
    }
}

const char *op_name(const op_t *op)
{
    return op->kind == OP_USER ? "user op" : names[op->kind];
}

int op_is_rma_only(const op_t *op)
{
    return op->kind == OP_REPLACE || op->kind == OP_NO_OP;
}

/* ---- op_apply ---------------------------------------------------------------------------- */

enum { LEAF_NONE = 0, LEAF_PAIR = 1000, LEAF_MIXED = 2000 };

static int pair_index(const dtype_t *t)
{
    for (int p = 0; p < DTYPE_NPAIRS; p++)
        if (t->handle == dtype_pairs[p].handle)
            return p;
    return -1;
}

/* What t's data is made of: a basic index, LEAF_PAIR + pair index, LEAF_NONE (no types at
 * all) or LEAF_MIXED. Pair types count as leaves, not as the structs they are. */
static int leaf_of(const dtype_t *t)
{
    if (t->basic > 0)
        return t->basic;
    int p = pair_index(t);
    if (p >= 0)
        return LEAF_PAIR + p;
    if (t->equiv)
        return leaf_of(t->equiv);
    int leaf = LEAF_NONE;
    for (int k = 0; k < t->ntypes; k++) {
        const dtype_t *s = dtype_lookup(t->types[k]);
        int l = s ? leaf_of(s) : LEAF_MIXED;
        if (l == LEAF_NONE)
            continue;
        if (leaf != LEAF_NONE && l != leaf)
            return LEAF_MIXED;
        leaf = l;
    }
    return leaf;
}

/* Applies op to n packed leaf elements (esize bytes each) at in/inout. */
static int apply_packed(op_kind_t kind, int leaf, const void *in, void *inout, size_t n)
{
    if (leaf >= LEAF_PAIR) {
        int p = leaf - LEAF_PAIR;
        size_t fsize = dtype_predefined_size(dtype_pairs[p].first);
        return op_kernel_pair(kind, p, in, inout, n,
                              fsize + dtype_predefined_size(dtype_pairs[p].index), fsize);
    }
    return op_kernel_basic(kind, leaf, in, inout, n);
}

static size_t leaf_size(int leaf)
{
    if (leaf >= LEAF_PAIR)
        return dtype_predefined_size(dtype_pairs[leaf - LEAF_PAIR].first) +
               dtype_predefined_size(dtype_pairs[leaf - LEAF_PAIR].index);
    return dtype_predefined_size(dtype_basic(leaf)->handle);
}

/* ---- packed operands (one-sided accumulates, rma/) --------------------------------------- */

int op_leaf(const dtype_t *t)
{
    int leaf = leaf_of(t);
    return leaf == LEAF_MIXED ? -1 : leaf;
}

size_t op_leaf_size(int leaf)
{
    return leaf > 0 ? leaf_size(leaf) : 0;
}

int op_leaf_allowed(const op_t *op, int leaf)
{
    if (op_is_rma_only(op) || leaf == 0)
        return 1;
    if (leaf >= LEAF_PAIR)
        return op->kind == OP_MAXLOC || op->kind == OP_MINLOC;
    return op->kind != OP_USER && op_kernel_allowed(op->kind, leaf);
}

int op_apply_leaves(op_kind_t kind, int leaf, const void *in, void *inout, size_t n)
{
    if (kind == OP_NO_OP || n == 0 || leaf <= 0)
        return MPI_SUCCESS;
    if (kind == OP_REPLACE) {
        memmove(inout, in, n * leaf_size(leaf));
        return MPI_SUCCESS;
    }
    return apply_packed(kind, leaf, in, inout, n);
}

#define CHUNK 65536 /* bytes of packed data per step for non-contiguous types */

/* A derived type: contiguous data in place, otherwise packed in chunks (both operands),
 * reduced in the packed buffers and unpacked into inout. */
static int apply_derived(op_kind_t kind, int leaf, const void *in, void *inout, size_t count,
                         dtype_t *t)
{
    size_t esize = leaf_size(leaf);
    size_t total = count * (size_t)t->size;
    if (dt_layout_contiguous(t->layout, count))
        return apply_packed(kind, leaf, (const char *)in + t->true_lb,
                            (char *)inout + t->true_lb, total / esize);
    size_t chunk = CHUNK / esize * esize;
    /* long double buffers: malloc's alignment suffices for every basic type */
    char *a = malloc(chunk), *b = malloc(chunk);
    dt_cursor_t *c = malloc(3 * sizeof *c);
    if (!a || !b || !c) {
        free(a);
        free(b);
        free(c);
        return MPI_ERR_NO_MEM;
    }
    dt_cursor_init(&c[0], t->layout, (uintptr_t)in, count);
    dt_cursor_init(&c[1], t->layout, (uintptr_t)inout, count);
    dt_cursor_init(&c[2], t->layout, (uintptr_t)inout, count);
    int rc = MPI_SUCCESS;
    for (size_t done = 0; done < total && rc == MPI_SUCCESS;) {
        size_t n = total - done < chunk ? total - done : chunk;
        dt_pack(&c[0], a, n);
        dt_pack(&c[1], b, n);
        rc = apply_packed(kind, leaf, a, b, n / esize);
        dt_unpack(&c[2], b, n);
        done += n;
    }
    free(a);
    free(b);
    free(c);
    return rc;
}

/* User functions take an int count: larger counts go in pieces of INT_MAX elements. They run
 * without the core lock (core_lock_callout_begin: they may wait for a lock of the program's
 * that a thread entering MPI holds); op and t stay alive meanwhile through the references
 * taken here, whatever other threads free. The callers keep their own state theirs while
 * the lock is let go (a schedule being advanced is marked so, core/schedule.c). */
static int apply_user(op_t *op, const void *in, void *inout, size_t count, dtype_t *t)
{
    MPI_Datatype h = t->handle;
    MPI_User_function *fn = op->fn;
    size_t extent = (size_t)(t->ub - t->lb);
    int threads = core_lock_on;
    if (threads) {
        op_retain(op);
        dtype_retain(t);
    }
    int levels = core_lock_callout_begin();
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        fn((void *)(uintptr_t)in, inout, &len, &h);
        in = (const char *)in + (size_t)len * extent;
        inout = (char *)inout + (size_t)len * extent;
        count -= (size_t)len;
    }
    core_lock_callout_end(levels);
    if (threads) {
        dtype_release(t);
        op_release(op);
    }
    return MPI_SUCCESS;
}

int op_apply(op_t *op, const void *in, void *inout, size_t count, dtype_t *t)
{
    if (op->kind == OP_USER)
        return apply_user(op, in, inout, count, t);
    int leaf = leaf_of(t);
    if (leaf == LEAF_MIXED)
        return op->kind == OP_NO_OP ? MPI_SUCCESS : MPI_ERR_OP;
    if (leaf == LEAF_NONE) /* no data at all: nothing to combine */
        return MPI_SUCCESS;
    int pair = leaf >= LEAF_PAIR;
    if (pair ? !(op->kind == OP_MAXLOC || op->kind == OP_MINLOC || op_is_rma_only(op))
             : !op_kernel_allowed(op->kind, leaf))
        return MPI_ERR_OP;
    if (count == 0 || op->kind == OP_NO_OP)
        return MPI_SUCCESS;
    if (t->basic > 0)
        return op_kernel_basic(op->kind, leaf, in, inout, count);
    if (pair && t->predefined) {
        int p = leaf - LEAF_PAIR;
        return op_kernel_pair(op->kind, p, in, inout, count, (size_t)(t->ub - t->lb),
                              (size_t)dtype_pairs[p].int_disp);
    }
    return apply_derived(op->kind, leaf, in, inout, count, t);
}
