/*
 * Reduction operations (MPI-3.1 §5.9): the predefined ops, user ops (MPI_Op_create) and the
 * kernel entry point op_apply() that every reduction (Reduce_local, the collectives, later
 * accumulate) calls.
 *
 * Handles: kind 0x20000000 (mpi.h); index 0 is MPI_OP_NULL, indices 1..OP_NPREDEFINED are
 * the predefined ops in op_kind_t order (static objects, never freed), user ops come after.
 * A user op is reference counted: its handle (until MPI_Op_free) and every pending operation
 * that uses it (op_retain/op_release), so MPI_Op_free during a nonblocking collective is safe.
 *
 * Semantics of op_apply: inout[i] = in[i] op inout[i] for count elements of type t, i.e. `in`
 * is the left operand (for a non-commutative op the caller passes the lower rank's data as
 * `in`). Which (op, type) pairs are allowed is MPI-3.1 §5.9.2 (see op.c); a predefined op on a
 * derived type is allowed when all basic elements of the type are one type the op allows
 * (for MINLOC/MAXLOC: one pair type).
 */
#ifndef METAMPI_CORE_OP_H
#define METAMPI_CORE_OP_H

#include <mpi.h>
#include <stddef.h>

#include "datatype/dtype.h"

#define OP_KIND 0x20000000u

/* The predefined ops; the value is the index of the op's handle (mpi.h relies on it). */
typedef enum {
    OP_MAX = 1, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_BAND, OP_LOR, OP_BOR, OP_LXOR, OP_BXOR,
    OP_MAXLOC, OP_MINLOC, OP_REPLACE, OP_NO_OP,
    OP_NPREDEFINED = OP_NO_OP,
    OP_USER = 100
} op_kind_t;

typedef struct op {
    MPI_Op handle;
    op_kind_t kind;
    MPI_User_function *fn;   /* user ops */
    int commute;
    int refs;                /* user ops: the user's handle + pending operations */
} op_t;

/* The op behind a handle, or NULL (MPI_OP_NULL, freed, garbage, other kinds). */
op_t *op_lookup(MPI_Op h);
/* A new user op (one reference: the handle); MPI_SUCCESS or MPI_ERR_NO_MEM. */
int op_create(MPI_User_function *fn, int commute, MPI_Op *out);
/* References held by pending operations; no-ops on predefined ops. */
void op_retain(op_t *op);
void op_release(op_t *op);
/* "MPI_SUM", ..., "user op" */
const char *op_name(const op_t *op);
/* MPI_REPLACE and MPI_NO_OP are defined for one-sided accumulates only (MPI-3.1 §11.3.4):
 * collective reductions and MPI_Reduce_local refuse them. */
int op_is_rma_only(const op_t *op);

/* inout = in op inout on count elements of t (committed). Returns MPI_SUCCESS, MPI_ERR_OP
 * when the standard does not define op on t, or MPI_ERR_NO_MEM. Thread-compatible: no state
 * besides the buffers. For a pair that is not allowed nothing is written. */
int op_apply(op_t *op, const void *in, void *inout, size_t count, dtype_t *t);

/* ---- packed operands (one-sided accumulates: rma/ moves them packed between processes) ----
 * A leaf is what a type's data is made of, as a code that means the same in every process of
 * the job: a basic type's index, or a pair type's (MINLOC/MAXLOC); 0 for a type without data.
 * op_leaf: t's leaf, or -1 when t mixes basic types. op_leaf_size: bytes of one packed leaf.
 * op_leaf_allowed: op (predefined, MPI_REPLACE or MPI_NO_OP) is defined on that leaf.
 * op_apply_leaves: inout = in op inout on n packed leaves (REPLACE copies, NO_OP does nothing);
 * buffers aligned as malloc aligns. */
int op_leaf(const dtype_t *t);
size_t op_leaf_size(int leaf);
int op_leaf_allowed(const op_t *op, int leaf);
int op_apply_leaves(op_kind_t kind, int leaf, const void *in, void *inout, size_t n);

/* ---- kernels (op_kernels.c) -------------------------------------------------------------
 * Nonzero when the predefined op kind is defined on the basic type with index `basic`. */
int op_kernel_allowed(op_kind_t kind, int basic);
/* On n contiguous elements of the basic type with index `basic` (dtype_basic): MPI_ERR_OP
 * when kind is not defined on it. Buffers are aligned for the type. */
int op_kernel_basic(op_kind_t kind, int basic, const void *in, void *inout, size_t n);
/* MINLOC/MAXLOC on n pairs of pair type p (index into dtype_pairs) placed `stride` bytes
 * apart with the int at int_off (stride = extent for arrays of the C struct, or the packed
 * size); no alignment required. */
int op_kernel_pair(op_kind_t kind, int p, const void *in, void *inout, size_t n,
                   size_t stride, size_t int_off);

#endif
