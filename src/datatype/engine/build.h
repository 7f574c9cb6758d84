/*
 * Building layouts (internal to the datatype engine and its compiler, datatype/compile.c):
 * an intermediate tree of nodes, each a list of entries (disp, reps, stride, body), which
 * ir_emit() turns into a layout (format.h). The compiler walks an MPI type's construction
 * tree and describes it here; this part knows nothing of MPI.
 *
 * ir_add() normalises every entry as it is added:
 *   - entries without data (reps 0, empty body) are dropped;
 *   - a body that is a node of one entry is folded into the entry: with reps 1 the entry
 *     becomes the inner one; an inner entry of reps 1 only moves the origin; and when the
 *     outer stride equals inner reps x inner stride the two levels become one (a subarray
 *     face, a vector of contiguous rows);
 *   - a leaf repeated with stride == its length becomes one bigger leaf;
 *   - a node body with reps 1 and at most IR_SPLICE_MAX entries is spliced into the parent
 *     (struct of struct), so the depth stays small;
 *   - an entry merges with the previous one when the two leaves are adjacent (blocks of
 *     different basic types too: the signature then lists both), or when it continues the
 *     previous entry's repetition of the same body (regular indexed types become vectors).
 * Counts are only ever multiplied, so the result's size does not depend on them. Nodes may
 * be shared (a struct's repeated field types, an indexed type's blocks) and are placed once.
 *
 * Errors: every function sets ir->failed (out of memory, an overflowing size or address, a
 * tree too big to flatten) and then does nothing more; the caller checks failed once at the
 * end. Nodes live in ir's arena until ir_free().
 */
#ifndef METAMPI_DATATYPE_ENGINE_BUILD_H
#define METAMPI_DATATYPE_ENGINE_BUILD_H

#include "datatype/engine/format.h"

#include <stddef.h>
#include <stdint.h>

enum { IR_SPLICE_MAX = 16 };
/* Leaf entries a flattening may produce before the compile gives up. */
#define IR_FLAT_MAX_ENTRIES (1u << 22)

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

/* A node remembered under (key, tag): the compiler keys the nodes of types, the depth limit
 * the limited copies of nodes. */
typedef struct memo {
    const void *key;
    uint32_t tag;
    ir_node_t *node;
} memo_t;

typedef struct ir {
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
} ir_t;

/* An empty builder; ir_free() releases everything it holds. */
void ir_init(ir_t *ir);
void ir_free(ir_t *ir);

/* Grows the array *p of *cap elements of elsize bytes to hold need; 0 (failed set) when out
 * of memory. */
int ir_grow(ir_t *ir, void **p, size_t *cap, size_t need, size_t elsize);

/* A new empty node (NULL when out of memory). */
ir_node_t *ir_new_node(ir_t *ir);
/* Adds entry e to nd, normalised (see above); nothing when nd is NULL or ir failed. */
void ir_add(ir_t *ir, ir_node_t *nd, ir_ent_t e);
/* Computes a node's totals once its entries are final; returns nd (NULL on failure). */
ir_node_t *ir_finish(ir_t *ir, ir_node_t *nd);
/* A finished node of one entry: reps repetitions of body at disp, disp + stride, ... */
ir_node_t *ir_rep_node(ir_t *ir, int64_t disp, uint64_t reps, int64_t stride,
                       ir_node_t *body);
/* Packed bytes of one repetition of e's body. */
uint64_t ir_ent_size(const ir_ent_t *e);

/* The signature of a leaf of one basic type (index basic, elements of esize bytes). */
uint32_t ir_sig_basic(ir_t *ir, uint32_t basic, uint64_t esize);

ir_node_t *ir_memo_get(const ir_t *ir, const void *key, uint32_t tag);
void ir_memo_put(ir_t *ir, const void *key, uint32_t tag, ir_node_t *nd);

/* nd, or an equivalent node of height at most maxh (the lowest levels flattened into
 * explicit block lists), so that a cursor can follow it (DT_CURSOR_DEPTH). */
ir_node_t *ir_limit(ir_t *ir, ir_node_t *nd, uint32_t maxh);
/* The layout of elements that are one instance of root, extent bytes apart (NULL on
 * failure). The caller owns it (dt_layout_free). */
dt_layout_t *ir_emit(ir_t *ir, ir_node_t *root, int64_t extent);

#endif
