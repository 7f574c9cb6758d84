#include "util/handles.h"

#include <stdlib.h>
#include <sys/mman.h>

#define DIR_BYTES ((size_t)HANDLE_NCHUNKS * sizeof(_Atomic(handle_slot_t *)))

/* Makes index's slot exist (past chunk0: the directory, the chunks up to index's), and room on the free
 * list for every index up to it: 0, or -1 when out of memory or past the mask. Whatever is new
 * is complete before it is published (a new chunk all NULL); the caller raises `used` over
 * index afterwards with release, which publishes it to lock-free lookups (handles.h). */
static int grow(handle_table_t *t, unsigned index)
{
    if (index > HANDLE_INDEX_MASK)
        return -1;
    _Atomic(handle_slot_t *) *dir = atomic_load_explicit(&t->chunks, memory_order_relaxed);
    if (!dir && index >= HANDLE_CHUNK) {
        /* address space only: pages of it become memory as chunk pointers are written */
        void *m = mmap(NULL, DIR_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED)
            return -1;
        dir = m;
        atomic_store_explicit(&t->chunks, dir, memory_order_release);
    }
    for (unsigned k = 1; k <= index >> HANDLE_CHUNK_BITS; k++) {
        if (atomic_load_explicit(&dir[k], memory_order_relaxed))
            continue;
        handle_slot_t *c = malloc(HANDLE_CHUNK * sizeof *c);
        if (!c)
            return -1;
        for (unsigned i = 0; i < HANDLE_CHUNK; i++)
            atomic_init(&c[i], NULL);
        atomic_store_explicit(&dir[k], c, memory_order_release);
    }
    if ((int)index >= t->free_cap) {
        int cap = t->free_cap ? t->free_cap : 64;
        while (cap <= (int)index)
            cap *= 2;
        int *f = realloc(t->free_list, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        t->free_list = f;
        t->free_cap = cap;
    }
    return 0;
}

/* Publishes obj at index (whose slot exists), then raises `used` (and `near`) over it: release
 * all, so a lookup that finds the handle finds obj initialised. */
static void publish(handle_table_t *t, unsigned index, void *obj)
{
    atomic_store_explicit(handle_slot(t, index), obj, memory_order_release);
    if (atomic_load_explicit(&t->used, memory_order_relaxed) < index + 1) {
        atomic_store_explicit(&t->used, index + 1, memory_order_release);
        if (index < HANDLE_CHUNK)
            atomic_store_explicit(&t->near, index + 1, memory_order_release);
    }
}

void *handle_get_far(const handle_table_t *t, unsigned index)
{
    if (index >= atomic_load_explicit((atomic_uint *)&t->used, memory_order_acquire))
        return NULL;
    return atomic_load_explicit(handle_slot(t, index), memory_order_acquire);
}

int handle_new_grow(handle_table_t *t, void *obj)
{
    if (t->nfree)
        return handle_new(t, obj);
    unsigned used = atomic_load_explicit(&t->used, memory_order_relaxed);
    unsigned index = used > (unsigned)t->first ? used : (unsigned)t->first;
    if (grow(t, index) != 0)
        return 0;
    publish(t, index, obj);
    return (int)(t->kind | index);
}

int handle_set(handle_table_t *t, int index, void *obj)
{
    if (index < 1 || grow(t, (unsigned)index) != 0)
        return -1;
    publish(t, (unsigned)index, obj);
    return 0;
}

void handle_table_destroy(handle_table_t *t)
{
    _Atomic(handle_slot_t *) *dir = atomic_load_explicit(&t->chunks, memory_order_relaxed);
    atomic_store_explicit(&t->used, 0, memory_order_relaxed);
    atomic_store_explicit(&t->near, 0, memory_order_relaxed);
    atomic_store_explicit(&t->chunks, NULL, memory_order_relaxed);
    if (dir) {
        /* grow allocates chunks in order: the first NULL ends them */
        for (unsigned k = 1; k < HANDLE_NCHUNKS; k++) {
            handle_slot_t *c = atomic_load_explicit(&dir[k], memory_order_relaxed);
            if (!c)
                break;
            free(c);
        }
        munmap(dir, DIR_BYTES);
    }
    for (unsigned i = 0; i < HANDLE_CHUNK; i++)
        atomic_store_explicit(&t->chunk0[i], NULL, memory_order_relaxed);
    free(t->free_list);
    t->free_list = NULL;
    t->nfree = t->free_cap = 0;
}

void handle_foreach(const handle_table_t *t, void (*fn)(void *obj, void *arg), void *arg)
{
    for (unsigned i = 1; i < atomic_load_explicit(&t->used, memory_order_relaxed); i++) {
        void *obj = atomic_load_explicit(handle_slot(t, i), memory_order_relaxed);
        if (obj)
            fn(obj, arg);
    }
}

int handle_count(const handle_table_t *t)
{
    int n = 0;
    for (unsigned i = 1; i < atomic_load_explicit(&t->used, memory_order_relaxed); i++)
        n += atomic_load_explicit(handle_slot(t, i), memory_order_relaxed) != NULL;
    return n;
}
