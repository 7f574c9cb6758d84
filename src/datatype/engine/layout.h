/*
 * The datatype engine (MPI-free): a committed datatype compiled into a compact, position-
 * independent description (a *layout*) and cursors that walk "count repetitions of the type
 * at address base" as one packed byte stream.
 *
 *   layout  distinct leaf blocks (runs of one basic element type) with their repetition
 *           levels (count, stride); memory is independent of repetition counts. It is a
 *           single relocatable byte string (no pointers), so it can be handed to another
 *           process on the same host (rendezvous by remote read) and validated there.
 *   cursor  a position in the packed stream of (layout, base, count). Seeking to any byte
 *           offset costs O(depth) (O(depth · log blocks) for indexed levels) — never O(offset).
 *           Addresses are computed as integers (base + displacement), so a cursor can also
 *           describe another process's memory (remote iovecs for process_vm_readv).
 *
 * A contiguous layout (the data of count elements is one gap-free run) is reported by
 * dt_layout_contiguous(); callers then use (base + true_lb, count * size) directly and never
 * need a cursor on their hot path.
 */
#ifndef METAMPI_DATATYPE_ENGINE_LAYOUT_H
#define METAMPI_DATATYPE_ENGINE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

typedef struct dt_layout dt_layout_t;

/* Bytes of data in one element (the type's size). */
size_t dt_layout_size(const dt_layout_t *l);
/* The element's extent (stride between repetitions) and true lower bound. */
ssize_t dt_layout_extent(const dt_layout_t *l);
ssize_t dt_layout_true_lb(const dt_layout_t *l);
/* Nonzero when count elements are one gap-free run of count*size bytes at base + true_lb. */
int dt_layout_contiguous(const dt_layout_t *l, size_t count);
/* Contiguous pieces in one element (after merging): size / blocks is the average block, which
 * decides between remote iovecs and packing (proto/). */
size_t dt_layout_blocks(const dt_layout_t *l);
/* The layout as a relocatable byte string, and validation of such a string received from a
 * peer: returns the layout (bytes itself, which must be 8-byte aligned and stay alive), or
 * NULL when len or any field is inconsistent. A layout that passes can be walked by a cursor
 * without ever reading outside it, looping or dividing by zero. */
const void *dt_layout_bytes(const dt_layout_t *l, size_t *len);
const dt_layout_t *dt_layout_check(const void *bytes, size_t len);
/* A layout's byte string as written by a process of the other byte order, turned into this
 * host's order in place (swap.c); 0, or -1 when it is inconsistent. Run dt_layout_check on
 * it after. */
int dt_layout_swap(void *bytes, size_t len);
/* Number of basic elements in the first `bytes` bytes of the packed stream of count
 * elements (MPI_Get_elements); -1 when bytes ends inside a basic element. */
long long dt_layout_elements(const dt_layout_t *l, size_t bytes);
void dt_layout_free(dt_layout_t *l);

/* Levels of repetition a cursor follows (the element level included); deeper types are
 * flattened by the compiler until they fit. */
#define DT_CURSOR_DEPTH 16

/* One level of a cursor's position (engine-private). */
typedef struct dt_level {
    const void *node;         /* the node whose entries this level walks */
    size_t e, i;              /* entry index, repetition index within the entry */
    uintptr_t org;            /* origin of repetition i of entry e */
} dt_level_t;

typedef struct dt_cursor {
    const dt_layout_t *layout;
    uintptr_t base;
    size_t count;             /* elements */
    size_t total;             /* count * size */
    size_t pos;               /* packed-stream offset */
    /* position inside the layout's repetition levels (engine-private) */
    uintptr_t addr;           /* address of the current leaf block's next byte */
    size_t left;              /* bytes left in the current leaf block */
    int depth;                /* index of the leaf level in lv[] */
    uint64_t top[12];         /* the element level: a node of one entry (count x extent) */
    dt_level_t lv[DT_CURSOR_DEPTH];
} dt_cursor_t;

/* A cursor at offset 0 of count elements of l at base. */
void dt_cursor_init(dt_cursor_t *c, const dt_layout_t *l, uintptr_t base, size_t count);
void dt_cursor_seek(dt_cursor_t *c, size_t offset);
/* Copies the next min(n, remaining) bytes of the stream out of the typed buffer into dst
 * (pack) or from src into the typed buffer (unpack); returns the bytes copied. */
size_t dt_pack(dt_cursor_t *c, void *dst, size_t n);
size_t dt_unpack(dt_cursor_t *c, const void *src, size_t n);
/* Describes the next at most maxbytes bytes as at most maxiov iovecs (adjacent blocks are
 * merged); advances past them; sets *bytes to what they cover and returns their number. */
int dt_iov(dt_cursor_t *c, struct iovec *iov, int maxiov, size_t maxbytes, size_t *bytes);
/* The next leaf block piece that holds one basic type only: its address, length and basic
 * type index (dtype_t.basic of the predefined type); returns 0 at the end of the stream.
 * Advances past it. */
int dt_next_block(dt_cursor_t *c, uintptr_t *addr, size_t *len, int *basic);

#endif
