/*
 * Handle tables: the mapping from an integer MPI handle to the library object behind it, for
 * every object kind with user-created instances (groups, communicators, datatypes, info,
 * error handlers, keyvals, ...).
 *
 * A handle is `kind | index` (see mpi.h): the kind bits make a handle of the wrong kind fail
 * lookup, and index 0 is the kind's null handle. Indices below `first` are reserved for the
 * kind's predefined objects, which their module registers with handle_set(). Freed indices
 * are reused (LIFO) so tables stay dense.
 */
#ifndef METAMPI_UTIL_HANDLES_H
#define METAMPI_UTIL_HANDLES_H

#define HANDLE_INDEX_MASK 0x01ffffffu   /* bits 0..24: bit 25 marks predefined datatypes */
#define HANDLE_KIND_MASK  0xfe000000u

typedef struct handle_table {
    unsigned kind;     /* the kind bits of every handle in the table */
    int first;         /* first index handle_new() hands out */
    void **slots;
    int cap, used;     /* used: one past the highest index ever handed out */
    int *free_list, nfree;
} handle_table_t;

#define HANDLE_TABLE_INIT(kind_bits, first_index) { (kind_bits), (first_index), 0, 0, 0, 0, 0 }

/* A new handle for obj, or 0 when out of memory (0 is never a valid handle of any kind). */
int handle_new(handle_table_t *t, void *obj);
/* Registers obj under a fixed (predefined) index below t->first. Returns 0, or -1 (no memory). */
int handle_set(handle_table_t *t, int index, void *obj);
/* The object behind h, or NULL for the null handle, a freed handle or a handle of another kind. */
void *handle_get(const handle_table_t *t, int h);
/* Frees h's index for reuse. */
void handle_release(handle_table_t *t, int h);
/* Frees the table's memory (MPI_Finalize); objects are the owner's business. */
void handle_table_destroy(handle_table_t *t);
/* Calls fn(obj, arg) for every live object (for leak reports and finalize). */
void handle_foreach(const handle_table_t *t, void (*fn)(void *obj, void *arg), void *arg);

#endif
