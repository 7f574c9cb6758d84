/*
 * Handle tables: the mapping from an integer MPI handle to the library object behind it, for
 * every object kind with user-created instances (groups, communicators, datatypes, info,
 * error handlers, keyvals, requests, messages, ...).
 *
 * A handle is `kind | index` (see mpi.h): the kind bits make a handle of the wrong kind fail
 * lookup, and index 0 is the kind's null handle. Indices below `first` are reserved for the
 * kind's predefined objects, which their module registers with handle_set(). Freed indices
 * are reused (LIFO) so tables stay dense.
 *
 * Chunks that never move (docs/threads.md, "Splitting the lock", step (a)). The slots are in
 * chunks of HANDLE_CHUNK slots (a page): the first in the table itself, so a lookup of one of
 * the first 511 indices — a program with fewer live objects of the kind — costs what an array
 * did; the others allocated as the table grows and freed only by handle_table_destroy, found
 * through a directory of one pointer per possible chunk (HANDLE_INDEX_MASK + 1 indices:
 * 512 KiB of address space, mapped when index 512 is first needed, of which only the pages
 * holding chunk pointers become memory). A slot, once it exists, stays at its address, so a
 * lookup needs no lock while another thread grows the table (a realloc'd array would move
 * under it).
 *
 * Threads. Invariants, relied on by the lock split (core/lock.h):
 *  - handle_get takes no lock. It may run at any time, concurrently with every other call
 *    here but handle_table_destroy; it sees either the object a concurrent handle_new or
 *    handle_set publishes, fully initialised by whatever that thread wrote before the call
 *    (release/acquire on the slot and on `near`/`used`), or NULL.
 *  - handle_new, handle_set, handle_release(_live), handle_foreach, handle_count and
 *    handle_table_destroy change or walk the table's bookkeeping (the free list, the chunks'
 *    allocation, `near`/`used`): their callers serialise them (the core lock today; the
 *    object lock once the lock is split; the request table's, core/request_cache.c's pool
 *    lock). handle_publish and handle_withdraw, on a slot the caller reserved, need none.
 *  - Whether the object a lookup returned still lives is the caller's business: a handle
 *    freed while another thread uses it is the program's error (MPI-3.1 §2.5.1); objects that
 *    operations use are reference counted (comm_retain, dtype_retain).
 */
#ifndef METAMPI_UTIL_HANDLES_H
#define METAMPI_UTIL_HANDLES_H

#include <stdatomic.h>
#include <stddef.h>

#define HANDLE_INDEX_MASK 0x01ffffffu   /* bits 0..24: bit 25 marks predefined datatypes */
#define HANDLE_KIND_MASK  0xfe000000u

#define HANDLE_CHUNK_BITS 9
#define HANDLE_CHUNK (1u << HANDLE_CHUNK_BITS)
#define HANDLE_NCHUNKS ((HANDLE_INDEX_MASK + 1u) >> HANDLE_CHUNK_BITS)

typedef _Atomic(void *) handle_slot_t;

typedef struct handle_table {
    unsigned kind;     /* the kind bits of every handle in the table */
    int first;         /* first index handle_new() hands out */
    atomic_uint near;  /* min(used, HANDLE_CHUNK): indices below it are in chunk0 */
    atomic_uint used;  /* one past the highest index ever handed out or set: its chunk (and,
                        * from HANDLE_CHUNK on, the directory) exist */
    int *free_list, nfree, free_cap;
    /* the directory: HANDLE_NCHUNKS chunk pointers, [0] unused (NULL until index 512) */
    _Atomic(handle_slot_t *) *_Atomic chunks;
    handle_slot_t chunk0[HANDLE_CHUNK]; /* indices 0 .. HANDLE_CHUNK - 1; [0] stays NULL */
} handle_table_t;

#define HANDLE_TABLE_INIT(kind_bits, first_index) { .kind = (kind_bits), .first = (first_index) }

/* The slot of index (< used: its chunk exists). Relaxed loads: the reader's acquire of
 * `used` (or the caller's serialisation) orders the directory's and chunk's creation first. */
static inline handle_slot_t *handle_slot(const handle_table_t *t, unsigned index)
{
    if (__builtin_expect(index < HANDLE_CHUNK, 1))
        return (handle_slot_t *)&t->chunk0[index];
    _Atomic(handle_slot_t *) *dir = atomic_load_explicit(
        (_Atomic(handle_slot_t *) *_Atomic *)&t->chunks, memory_order_relaxed);
    handle_slot_t *chunk =
        atomic_load_explicit(&dir[index >> HANDLE_CHUNK_BITS], memory_order_relaxed);
    return &chunk[index & (HANDLE_CHUNK - 1)];
}

/* The object behind h, or NULL for the null handle, a freed handle or a handle of another kind.
 * Lock-free (above): `near` and `used` read with acquire order the chunk's allocation before
 * the slot's read, the slot read with acquire the object's initialisation. Inline for the
 * first chunk, as cheap as an array's lookup; handle_get_far for the others (and NULL). */
void *handle_get_far(const handle_table_t *t, unsigned index);
static inline void *handle_get(const handle_table_t *t, int h)
{
    unsigned u = (unsigned)h;
    if ((u & HANDLE_KIND_MASK) != t->kind)
        return NULL;
    size_t index = u & HANDLE_INDEX_MASK; /* 0, the null handle: chunk0[0] is NULL */
    if (__builtin_expect(index < atomic_load_explicit((atomic_uint *)&t->near,
                                                      memory_order_acquire), 1))
        return atomic_load_explicit((handle_slot_t *)&t->chunk0[index], memory_order_acquire);
    return handle_get_far(t, (unsigned)index);
}

/* The rest is under the caller's serialisation (above). */

/* A new handle for obj, or 0 when out of memory (0 is never a valid handle of any kind).
 * Inline while a freed index waits for reuse (every message's request takes one). */
int handle_new_grow(handle_table_t *t, void *obj);
static inline int handle_new(handle_table_t *t, void *obj)
{
    if (__builtin_expect(t->nfree == 0, 0))
        return handle_new_grow(t, obj);
    unsigned index = (unsigned)t->free_list[--t->nfree];
    atomic_store_explicit(handle_slot(t, index), obj, memory_order_release);
    return (int)(t->kind | index);
}

/* Frees h's index for reuse (a no-op on the null handle, a handle never handed out and a
 * freed one). handle_release_live: the same for a live handle of t above the predefined ones
 * (the caller knows: its object holds it), without the checks. */
static inline void handle_release(handle_table_t *t, int h)
{
    unsigned index = (unsigned)h & HANDLE_INDEX_MASK;
    if (index == 0 || index >= atomic_load_explicit(&t->used, memory_order_relaxed))
        return;
    handle_slot_t *s = handle_slot(t, index);
    if (!atomic_load_explicit(s, memory_order_relaxed))
        return;
    atomic_store_explicit(s, NULL, memory_order_relaxed);
    if ((int)index >= t->first)
        t->free_list[t->nfree++] = (int)index; /* room for every index below used */
}
static inline void handle_release_live(handle_table_t *t, int h)
{
    unsigned index = (unsigned)h & HANDLE_INDEX_MASK;
    atomic_store_explicit(handle_slot(t, index), NULL, memory_order_relaxed);
    t->free_list[t->nfree++] = (int)index;
}

/* Slots a caller keeps across reuse (core/request_cache.h: a spare request keeps its slot
 * while it waits to be reused, so reuse touches neither the free list nor a lock):
 * handle_new(t, NULL) reserves one, under the serialisation above; handle_publish puts obj in
 * it (release: a lookup that finds obj finds it initialised), handle_withdraw empties it (a
 * lookup of h finds NULL, a freed handle). Both touch that slot only, so they need no lock:
 * the index is the caller's alone until it gives it back with handle_release_live. */
static inline void handle_publish(handle_table_t *t, int h, void *obj)
{
    atomic_store_explicit(handle_slot(t, (unsigned)h & HANDLE_INDEX_MASK), obj,
                          memory_order_release);
}
static inline void handle_withdraw(handle_table_t *t, int h)
{
    atomic_store_explicit(handle_slot(t, (unsigned)h & HANDLE_INDEX_MASK), NULL,
                          memory_order_relaxed);
}

/* Registers obj under a fixed (predefined) index in [1, t->first). Returns 0, or -1 (no
 * memory). */
int handle_set(handle_table_t *t, int index, void *obj);
/* Frees the table's memory (MPI_Finalize); objects are the owner's business. The table is
 * empty and usable again afterwards. */
void handle_table_destroy(handle_table_t *t);
/* Calls fn(obj, arg) for every live object (for leak reports and finalize). */
void handle_foreach(const handle_table_t *t, void (*fn)(void *obj, void *arg), void *arg);
/* How many live objects the table holds. */
int handle_count(const handle_table_t *t);

#endif
