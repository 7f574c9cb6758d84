/*
 * The layout's byte format (internal to the datatype engine: emit.c writes it, layout.c
 * validates it, cursor.c walks it). All fields are in host order and 8-byte aligned; every
 * reference is an offset from the start of the layout, so the bytes can be copied anywhere
 * (another process reads them for a rendezvous).
 *
 *   | header | signatures | runs | nodes (children before parents) |
 *
 * One element of the type is one instance of the root node. A node is a list of entries,
 * walked in order; entry k places `reps` repetitions of its body at disp, disp + stride, ...
 * (relative to the node instance's origin). A body is either a leaf block (`size` contiguous
 * bytes) or an instance of a child node. Packed offsets: entry k starts at prefix[k] in the
 * node's packed stream and repetition i at prefix[k] + i * size.
 *
 *   LIST    n dt_entry_t (any bodies)
 *   BLOCKS  leaf entries with reps 1 and a common signature, stored as arrays: int64 disp[n],
 *           uint64 prefix[n + 1] (prefix[n] = node size; block k has prefix[k+1] - prefix[k]
 *           bytes). Indexed types of a basic type take 16 bytes per block.
 *
 * Signatures say which basic types a leaf holds: a leaf of len bytes is len / period copies
 * of the signature's runs (basic type, element size, bytes); a leaf merged from blocks of
 * different types has several runs (at most DT_SIG_MAX_RUNS).
 *
 * Invariants (checked by dt_layout_check for layouts from elsewhere): every node has n >= 1
 * entries, every entry reps >= 1 and size >= 1; sizes and element counts add up exactly; a
 * child's offset is below its parent's (so the graph is acyclic); node height is 1 + the
 * largest child height and the root's height is below DT_CURSOR_DEPTH; a leaf's size is a
 * multiple of its signature's period.
 */
#ifndef METAMPI_DATATYPE_ENGINE_FORMAT_H
#define METAMPI_DATATYPE_ENGINE_FORMAT_H

#include "datatype/engine/layout.h"

#include <stdint.h>

#define DT_MAGIC 0x4c54444du /* "MDTL" */
#define DT_VERSION 1u
#define DT_SIG_MAX_RUNS 16u

enum { DT_FLAG_CONTIG = 1 }; /* one element is one in-order run of size bytes at true_lb */

struct dt_layout {
    uint32_t magic, version;
    uint64_t len;             /* bytes of the whole layout */
    uint64_t size;            /* packed bytes of one element */
    int64_t extent, true_lb;
    uint64_t nelem;           /* basic elements in one element */
    uint64_t nblocks;         /* contiguous pieces in one element (a heuristic, saturating) */
    uint32_t root;            /* offset of the root node; 0 when size is 0 */
    uint32_t flags;
    uint32_t nsigs, nruns;
    uint32_t sigs_off, runs_off;
};

typedef struct dt_run {
    uint32_t basic;           /* dtype_t.basic of the predefined type */
    uint32_t esize;           /* bytes of one element of it */
    uint64_t bytes;           /* a multiple of esize */
} dt_run_t;

typedef struct dt_sig {
    uint64_t period;          /* sum of the runs' bytes */
    uint64_t nelem;           /* basic elements in one period */
    uint32_t first, nruns;    /* runs[first .. first + nruns) */
} dt_sig_t;

enum { DT_NODE_LIST = 1, DT_NODE_BLOCKS = 2 };

typedef struct dt_node {
    uint32_t kind;
    uint32_t height;          /* 1 + the largest child height (leaves count 0) */
    uint64_t n;               /* entries */
    uint64_t size;            /* packed bytes of one instance */
    uint64_t nelem;           /* basic elements of one instance */
    uint32_t sig;             /* BLOCKS: every block's signature */
    uint32_t pad;
} dt_node_t;

typedef struct dt_entry {
    int64_t disp;
    uint64_t reps;
    int64_t stride;           /* between repetitions (meaningless when reps is 1) */
    uint64_t size;            /* packed bytes of one repetition */
    uint64_t prefix;          /* packed offset of the entry in the node */
    uint64_t eprefix;         /* basic elements before the entry in the node */
    uint32_t child;           /* offset of the body's node; 0: the body is a leaf block */
    uint32_t sig;             /* leaf: its signature */
} dt_entry_t;

_Static_assert(sizeof(struct dt_layout) % 8 == 0, "header keeps 8-byte alignment");
_Static_assert(sizeof(dt_node_t) % 8 == 0 && sizeof(dt_entry_t) % 8 == 0 &&
                   sizeof(dt_sig_t) % 8 == 0 && sizeof(dt_run_t) % 8 == 0,
               "records keep 8-byte alignment");

static inline const dt_node_t *dt_node_at(const dt_layout_t *l, uint32_t off)
{
    return (const dt_node_t *)((const char *)l + off);
}
static inline const dt_entry_t *dt_list_entries(const dt_node_t *n)
{
    return (const dt_entry_t *)(n + 1);
}
static inline const int64_t *dt_blocks_disp(const dt_node_t *n)
{
    return (const int64_t *)(n + 1);
}
static inline const uint64_t *dt_blocks_prefix(const dt_node_t *n)
{
    return (const uint64_t *)(n + 1) + n->n;
}
static inline const dt_sig_t *dt_sigs(const dt_layout_t *l)
{
    return (const dt_sig_t *)((const char *)l + l->sigs_off);
}
static inline const dt_run_t *dt_runs(const dt_layout_t *l)
{
    return (const dt_run_t *)((const char *)l + l->runs_off);
}
/* Bytes a node takes in the layout. */
static inline uint64_t dt_node_bytes(uint32_t kind, uint64_t n)
{
    return sizeof(dt_node_t) +
           (kind == DT_NODE_LIST ? n * sizeof(dt_entry_t) : n * 8 + (n + 1) * 8);
}

#endif
