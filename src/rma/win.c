/* Window objects: creation (collective: a private communicator, every member's size and
 * displacement unit), handles, and freeing (collective, after a fence). */
#include "rma/win.h"

#include "core/errhandler.h"
#include "core/errors.h"
#include "core/icoll.h"
#include "core/progress.h"
#include "util/handles.h"

#include <stdlib.h>
#include <string.h>

static handle_table_t table = HANDLE_TABLE_INIT(WIN_KIND, 1);
static unsigned long windows_created;

win_t *win_lookup(MPI_Win h)
{
    return handle_get(&table, h);
}

static void destroy(win_t *w)
{
    rma_gather_free(w);
    if (w->comm)
        comm_free_handle(w->comm);
    if (w->info)
        info_destroy(w->info);
    errhandler_release(w->errhandler);
    free(w->allocated);
    rma_shared_unmap(w);
    free(w->sizes);
    free(w->disp_units);
    free(w->remote_base);
    free(w->sent);
    free(w->unconfirmed);
    free(w->applied);
    free(w->held_at);
    free(w->lock_held);
    free(w->lock_reply);
    free(w->access);
    free(w->access_member);
    free(w->exposure);
    free(w->attached);
    free(w->posts);
    free(w->completes);
    free(w);
}

/* Every member's size and displacement unit, exchanged once: the origin checks the range of
 * each access against the target's window. */
typedef struct member_shape {
    int64_t size;
    int64_t disp_unit;
} member_shape_t;

static int exchange_shapes(win_t *w)
{
    int n = w->comm->size;
    uint64_t mine[2] = { (uint64_t)w->size, (uint64_t)(int64_t)w->disp_unit };
    uint64_t *all = malloc(2 * (size_t)n * sizeof *all);
    if (!all)
        return MPI_ERR_NO_MEM;
    int rc = icoll_allgather_u64(w->comm, mine, 2, all);
    for (int r = 0; rc == MPI_SUCCESS && r < n; r++) {
        w->sizes[r] = (MPI_Aint)all[2 * r];
        w->disp_units[r] = (int)(int64_t)all[2 * r + 1];
    }
    free(all);
    return rc;
}


/* MPI_Win_allocate's memory under the emulation: zeroed, page-aligned as in the shared
 * segment (shared.c), never NULL, so that a zero-size window still has a distinct base. */
static void *allocate_part(MPI_Aint size)
{
    size_t bytes = ((size > 0 ? (size_t)size : 1) + 4095) / 4096 * 4096;
    void *p = aligned_alloc(4096, bytes);
    if (p)
        memset(p, 0, bytes);
    return p;
}

int win_create(comm_t *c, void *base, MPI_Aint size, int disp_unit, int flavor, info_t *info,
               win_t **out)
{
    *out = NULL;
    win_t *w = calloc(1, sizeof *w);
    if (!w)
        return MPI_ERR_NO_MEM;
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->exclusive_holder = -1;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->size = size;
    w->disp_unit = disp_unit;
    w->base = base;
    /* direct access needs the memory in a segment every member maps: win_create agrees on
     * it below, and MPI_Win_allocate then takes its memory there too */
    int direct = rma_direct_wanted(c, flavor);
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE && !direct) {
        w->allocated = allocate_part(size);
        w->base = size > 0 ? w->allocated : NULL;
    }
    int n = c->size;
    w->sizes = calloc((size_t)n, sizeof *w->sizes);
    w->disp_units = calloc((size_t)n, sizeof *w->disp_units);
    w->sent = calloc((size_t)n, sizeof *w->sent);
    w->unconfirmed = calloc((size_t)n, sizeof *w->unconfirmed);
    w->applied = calloc((size_t)n, sizeof *w->applied);
    w->held_at = calloc((size_t)n, sizeof *w->held_at);
    w->lock_held = calloc((size_t)n, sizeof *w->lock_held);
    w->naccess = w->nexposure = -1;
    w->access_member = calloc((size_t)n, sizeof *w->access_member);
    w->posts = calloc((size_t)n, sizeof *w->posts);
    w->completes = calloc((size_t)n, sizeof *w->completes);
    /* every member takes part in the dup even when its own memory failed, so none waits */
    int rc = comm_dup(c, &w->comm);
    if (rc != MPI_SUCCESS)
        w->comm = NULL;
    int ok = w->sizes && w->disp_units && w->sent && w->unconfirmed && w->applied &&
             w->held_at && w->lock_held && w->access_member && w->posts && w->completes &&
             (flavor != MPI_WIN_FLAVOR_ALLOCATE || direct || w->allocated);
    /* every member learns whether all have their memory, so all fail or go on together, and
     * whether all chose direct access */
    int agree[2] = { ok, direct };
    if (rc == MPI_SUCCESS)
        rc = icoll_allreduce_int(w->comm, agree, 2, ICOLL_MIN);
    if (rc == MPI_SUCCESS && !agree[0])
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = exchange_shapes(w);
    if (rc == MPI_SUCCESS && flavor == MPI_WIN_FLAVOR_ALLOCATE && direct && !agree[1]) {
        /* another member does not take part in direct access (METAMPI_RMA_DIRECT differs
         * between them): the emulation for all. The others go on, so no failure here can
         * be agreed on any more. */
        if (!(w->allocated = allocate_part(size)))
            err_fatal(MPI_ERR_NO_MEM, "MPI_Win_allocate", "out of memory for %lld bytes",
                      (long long)size);
        w->base = size > 0 ? w->allocated : NULL;
    }
    if (rc == MPI_SUCCESS && flavor == MPI_WIN_FLAVOR_CREATE && agree[1])
        rc = rma_direct_remote_setup(w, &agree[1]);
    if (rc == MPI_SUCCESS && (flavor == MPI_WIN_FLAVOR_SHARED || (direct && agree[1])))
        rc = rma_shared_map(w);
    w->direct = rc == MPI_SUCCESS && agree[1];
    if (rc == MPI_SUCCESS && info) {
        w->info = info_copy(info);
        if (!w->info)
            rc = MPI_ERR_NO_MEM;
    }
    if (rc == MPI_SUCCESS) {
        w->handle = handle_new(&table, w);
        if (!w->handle)
            rc = MPI_ERR_NO_MEM;
    }
    if (rc != MPI_SUCCESS) {
        destroy(w);
        return rc;
    }
    w->serial = windows_created++;
    rma_serve(w);
    *out = w;
    return MPI_SUCCESS;
}

int win_attach(win_t *w, void *base, size_t size)
{
    uintptr_t b = (uintptr_t)base;
    for (int i = 0; i < w->nattached; i++) {
        const rma_region_t *r = &w->attached[i];
        if (b < r->base + r->size && r->base < b + size)
            return MPI_ERR_RMA_ATTACH;
    }
    if (w->nattached == w->attached_cap) {
        int cap = w->attached_cap ? 2 * w->attached_cap : 8;
        rma_region_t *a = realloc(w->attached, (size_t)cap * sizeof *a);
        if (!a)
            return MPI_ERR_NO_MEM;
        w->attached = a;
        w->attached_cap = cap;
    }
    w->attached[w->nattached++] = (rma_region_t){ b, size };
    return MPI_SUCCESS;
}

int win_detach(win_t *w, const void *base)
{
    for (int i = 0; i < w->nattached; i++)
        if (w->attached[i].base == (uintptr_t)base) {
            w->attached[i] = w->attached[--w->nattached];
            return MPI_SUCCESS;
        }
    return MPI_ERR_RMA_ATTACH;
}

int win_free(win_t *w)
{
    /* MPI_Win_free is collective: no member's memory goes while another may still address it
     * (the fence's exchange alone lets a member leave before the others applied everything) */
    int rc = rma_fence(w, 0);
    if (rc == MPI_SUCCESS)
        rc = icoll_barrier(w->comm);
    rc = attr_delete_all(ATTR_WIN, w->handle, &w->attrs) != MPI_SUCCESS && rc == MPI_SUCCESS
             ? MPI_ERR_OTHER
             : rc;
    rma_unserve(w);
    handle_release(&table, w->handle);
    destroy(w);
    return rc;
}

typedef struct leftovers {
    win_t **w;
    int n;
} leftovers_t;

static void collect(void *obj, void *arg)
{
    leftovers_t *l = arg;
    l->w[l->n++] = obj;
}

static int by_serial(const void *a, const void *b)
{
    const win_t *x = *(win_t *const *)a, *y = *(win_t *const *)b;
    return x->serial < y->serial ? -1 : x->serial > y->serial;
}

static void count(void *obj, void *arg)
{
    (void)obj;
    ++*(int *)arg;
}

void win_finalize(void)
{
    int n = 0;
    handle_foreach(&table, count, &n);
    leftovers_t l = { n ? malloc((size_t)n * sizeof *l.w) : NULL, 0 };
    if (n && !l.w)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Finalize", "out of memory freeing the windows left open");
    handle_foreach(&table, collect, &l);
    if (l.n)
        qsort(l.w, (size_t)l.n, sizeof *l.w, by_serial);
    for (int i = 0; i < l.n; i++)
        win_free(l.w[i]);
    free(l.w);
    handle_table_destroy(&table);
}
