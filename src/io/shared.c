/* The shared file pointer: a counter in an internal window at its holder (rank 0 of the file's
 * communicator, or each site's lowest rank with a file per site), moved by fetch-and-add
 * under a shared passive-target lock (file.h). */
#include "io/file.h"

#include "core/icoll.h"
#include "core/op.h"

#include <string.h>

int io_shared_holder(const io_file_t *f)
{
    return f->sites == IO_SITES_EACH ? f->site_leader : 0;
}

int io_shared_create(io_file_t *f, MPI_Offset initial)
{
    int root = io_sites_keeper(f);
    int rc = win_create(f->comm, NULL, root ? (MPI_Aint)sizeof(int64_t) : 0, 1,
                        MPI_WIN_FLAVOR_ALLOCATE, NULL, &f->shared);
    if (rc != MPI_SUCCESS) {
        f->shared = NULL;
        return rc;
    }
    if (root)
        io_shared_local_set(f, initial);
    /* nobody moves the pointer before it holds its first value */
    return icoll_barrier(f->comm);
}

void io_shared_free(io_file_t *f)
{
    if (f->shared)
        win_free(f->shared);
    f->shared = NULL;
}

int io_shared_fetch_add(io_file_t *f, MPI_Offset delta, MPI_Offset *old)
{
    win_t *w = f->shared;
    dtype_t *i64 = dtype_lookup(MPI_INT64_T);
    int64_t add = (int64_t)delta, before = 0;
    rma_args_t a = { 0 };
    a.origin = &add;
    a.origin_count = 1;
    a.origin_type = i64;
    int holder = io_shared_holder(f);
    a.target = holder;
    a.disp = 0;
    a.target_count = 1;
    a.target_type = i64;
    a.op = op_lookup(delta ? MPI_SUM : MPI_NO_OP);
    a.result = &before;
    a.result_count = 1;
    a.result_type = i64;
    /* the epoch as MPI_Win_lock / MPI_Win_unlock keep it (rma/win.h) */
    rma_control(w, RMA_LOCK, holder, MPI_LOCK_SHARED);
    w->lock_held[holder] = RMA_LOCKED_SHARED;
    w->nlocks++;
    int rc = rma_start(w, RMA_GACC, &a);
    rma_control(w, RMA_UNLOCK, holder, MPI_LOCK_SHARED);
    rma_complete_local(w, holder);
    w->lock_held[holder] = RMA_UNLOCKED;
    w->nlocks--;
    *old = (MPI_Offset)before;
    return rc;
}

MPI_Offset io_shared_local_get(io_file_t *f)
{
    int64_t v;
    memcpy(&v, f->shared->base, sizeof v);
    return (MPI_Offset)v;
}

void io_shared_local_set(io_file_t *f, MPI_Offset value)
{
    int64_t v = (int64_t)value;
    memcpy(f->shared->base, &v, sizeof v);
}
