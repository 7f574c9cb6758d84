/*
 * Datatype objects: predefined and derived types, their handles, bounds, envelopes (how they
 * were built), names and attributes. The packed-stream machinery lives in layout.h; a type
 * gets its layout when committed (the compiler, compile.h).
 *
 * Life cycle (reference counted): a derived type is referenced by the user's handles to it
 * (user_refs: its creation, plus every MPI_Type_get_contents that returned it, each until
 * MPI_Type_free), by every type built from it, and by every pending operation that uses it,
 * so MPI_Type_free while a send or receive is in flight is safe. Predefined types are never
 * freed. A handle stays valid for dtype_lookup as long as its object lives (types built on it
 * name it in their envelope); dtype_lookup_user, which argument checks use, refuses it as
 * soon as the user holds no handle to it any more.
 *
 * Handles: single-element predefined types are 0x0e00SSII (size SS, basic index II; the hot
 * path reads the size from the handle, see predefined.h). Every other type has a handle of
 * the derived kind 0x0c000000 | index; indices 1..DTYPE_NPAIRS are the predefined pair types
 * (MPI_FLOAT_INT ... MPI_LONG_DOUBLE_INT, then Fortran's MPI_2REAL ... MPI_2INTEGER). The
 * pieces the library builds for itself (of
 * subarray, darray and pair typemaps) have handles too, which the user never sees.
 *
 * How to walk a typemap (compile, external32): by combiner, with the arguments of the MPI
 * call in ints/addrs/types in the order of MPI_Type_get_contents (MPI-3.1 §4.1.13): NAMED (a
 * single basic element: `basic`), DUP, CONTIGUOUS, VECTOR, HVECTOR, INDEXED, HINDEXED,
 * INDEXED_BLOCK, HINDEXED_BLOCK, STRUCT, RESIZED, SUBARRAY, DARRAY. The pair types are
 * STRUCTs here {first at 0, int at offsetof}; MPI_Type_get_envelope reports them, like every
 * predefined type, as MPI_COMBINER_NAMED. For DUP, SUBARRAY and DARRAY `equiv` is a type with
 * the same typemap built from the simpler combiners (a walker may use it instead).
 */
#ifndef METAMPI_DATATYPE_DTYPE_H
#define METAMPI_DATATYPE_DTYPE_H

#include "datatype/engine/layout.h"

#include <mpi.h>
#include <stdatomic.h>

#define DTYPE_NPAIRS 9

struct attr_node; /* an attribute (core/attr.c) */

typedef struct dtype {
    MPI_Datatype handle;       /* valid while the object lives */
    atomic_int refs;           /* all references, user_refs included; atomic (dtype_retain) */
    int user_refs;             /* handles the user holds (0: freed, or internal) */
    int committed;             /* predefined types are always committed */
    int predefined;            /* single-element and pair types */
    MPI_Count size;            /* bytes of data in one element */
    MPI_Aint lb, ub;           /* bounds of the typemap, with markers and resizing */
    MPI_Aint true_lb, true_ub; /* bounds of the data alone (0, 0 when there is no data) */
    int lb_marker, ub_marker;  /* the typemap holds explicit lb / ub markers (create_resized,
                                * subarray, darray); they decide the bounds of every type
                                * built on this one (sticky, MPI-3.1 §4.1.7) */
    int align;                 /* largest alignment of its basic types (pads struct extents) */
    MPI_Count nelems;          /* basic elements in one element */
    MPI_Count ext32_size;      /* bytes of one element in the external32 representation */
    /* single-element predefined types: the basic type's index II (low byte of the handle),
     * which is what layouts record for leaf blocks (dt_next_block); -1 for all other types */
    int basic;
    /* DUP, SUBARRAY, DARRAY: the same typemap from simpler combiners (referenced); else NULL */
    struct dtype *equiv;
    /* envelope (MPI_Type_get_envelope / MPI_Type_get_contents) */
    int combiner;
    int nints, naddrs, ntypes;
    int *ints;
    MPI_Aint *addrs;
    MPI_Datatype *types;       /* referenced (refs) by this type */
    char name[MPI_MAX_OBJECT_NAME];
    /* attributes (MPI-3.1 §6.7): core's list (core/attr.h, whose attr_list_t is this type);
     * this layer only hands it to the dtype_attr_delete_fn when they must go */
    struct attr_node *attrs;
    dt_layout_t *layout;       /* set by commit; NULL before */
} dtype_t;

/* The type behind a handle (predefined or derived), or NULL for MPI_DATATYPE_NULL, invalid
 * handles and handles of types that no longer exist. */
dtype_t *dtype_lookup(MPI_Datatype h);
/* The same for a handle the user passed: also NULL when the user freed every handle to it
 * (MPI_ERR_TYPE). Argument checks use this one. */
dtype_t *dtype_lookup_user(MPI_Datatype h);
/* References for types built on t and for pending operations; no-ops on predefined types.
 * Atomic, as comm_retain's (core/comm.h): any thread that holds a reference may take or drop
 * one without a lock (increments relaxed, decrements acq_rel); the last release destroys the
 * type, which changes the handle table and runs under the lock that serialises creation and
 * freeing. user_refs changes only under that lock (MPI_Type_free, MPI_Type_get_contents). */
void dtype_retain(dtype_t *t);
/* Drops a reference; the last one frees the type (its layout, envelope, attributes). */
void dtype_release(dtype_t *t);

/* Deletes the attributes of type (running their delete callbacks) and empties *attrs;
 * returns MPI_SUCCESS or a callback's error. Attributes are the core's (core/attr.c), which
 * sits above this layer, so MPI_Init hands this function to dtype_init. */
typedef int dtype_attr_delete_fn(MPI_Datatype type, struct attr_node **attrs);

/* The predefined objects (MPI_Init; their layouts are compiled here) and their end
 * (MPI_Finalize). delete_attrs is called when the user's last handle to a type with
 * attributes goes (dtype_unpublish) and when such a type is destroyed; NULL where no
 * attributes are ever set (unit tests). dtype_init returns 0, or -1 when out of memory. */
int dtype_init(dtype_attr_delete_fn *delete_attrs);
void dtype_finalize(void);

#endif
