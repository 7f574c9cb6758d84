/* Memory for one-sided communication (MPI_Alloc_mem, MPI_Free_mem, MPI-3.1 §8.2) and the
 * creation and freeing of windows (§11.2). The mechanism: src/rma/. */
#include "api/win_checks.h"

#include "core/info.h"

#include <stdlib.h>
#include <string.h>

/* Memory from malloc: the emulation needs nothing special (docs/rma.md). */
API_EXPORT int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    API_ENTER();
    static const char *const F = "MPI_Alloc_mem";
    state_require_initialized(F);
    API_CHECK_PTR(baseptr, MPI_COMM_WORLD, F, "baseptr");
    if (size < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_SIZE, F, "negative size %lld",
                         (long long)size);
    if (info != MPI_INFO_NULL && !info_lookup(info))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, F, "invalid info handle 0x%x",
                         (unsigned)info);
    void *p = malloc(size > 0 ? (size_t)size : 1);
    if (!p)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, F, "cannot allocate %lld bytes",
                         (long long)size);
    memcpy(baseptr, &p, sizeof p);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Alloc_mem)

API_EXPORT int PMPI_Free_mem(void *base)
{
    API_ENTER();
    state_require_initialized("MPI_Free_mem");
    free(base);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Free_mem)

static int create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                  int flavor, MPI_Win *win, const char *func)
{
    state_require_initialized(func);
    API_GET_COMM(c, comm, func);
    API_CHECK_PTR(win, comm, func, "win");
    if (comm_is_inter(c))
        return err_raise(comm, MPI_ERR_COMM, func,
                         "windows need an intra-communicator (%s is an inter-communicator)",
                         comm_name(comm));
    if (size < 0)
        return err_raise(comm, MPI_ERR_SIZE, func, "negative window size %lld",
                         (long long)size);
    if (disp_unit <= 0)
        return err_raise(comm, MPI_ERR_DISP, func, "displacement unit %d is not positive",
                         disp_unit);
    info_t *i = NULL;
    if (info != MPI_INFO_NULL && !(i = info_lookup(info)))
        return err_raise(comm, MPI_ERR_INFO, func, "invalid info handle 0x%x",
                         (unsigned)info);
    win_t *w;
    int rc = win_create(c, base, size, disp_unit, flavor, i, &w);
    if (rc != MPI_SUCCESS)
        return err_raise(comm, rc, func, "cannot create the window");
    *win = w->handle;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                               MPI_Comm comm, MPI_Win *win)
{
    API_ENTER();
    return create(base, size, disp_unit, info, comm, MPI_WIN_FLAVOR_CREATE, win,
                  "MPI_Win_create");
}
API_WEAK_ALIAS(Win_create)

API_EXPORT int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                 void *baseptr, MPI_Win *win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_allocate";
    state_require_initialized(F);
    API_CHECK_PTR(baseptr, comm, F, "baseptr");
    int rc = create(NULL, size, disp_unit, info, comm, MPI_WIN_FLAVOR_ALLOCATE, win, F);
    if (rc == MPI_SUCCESS) {
        void *base = win_lookup(*win)->base;
        memcpy(baseptr, &base, sizeof base);
    }
    return rc;
}
API_WEAK_ALIAS(Win_allocate)

/* A window without memory: the addresses of memory attached later are the displacements
 * (MPI_BOTTOM base, unit 1). */
API_EXPORT int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    API_ENTER();
    return create(NULL, 0, 1, info, comm, MPI_WIN_FLAVOR_DYNAMIC, win, "MPI_Win_create_dynamic");
}
API_WEAK_ALIAS(Win_create_dynamic)

static int check_dynamic(const win_t *w, const char *func)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return win_raise(w, MPI_ERR_RMA_FLAVOR, func,
                         "the window was not created by MPI_Win_create_dynamic");
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    API_ENTER();
    static const char *const F = "MPI_Win_attach";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = check_dynamic(w, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (size < 0)
        return win_raise(w, MPI_ERR_SIZE, F, "negative size %lld", (long long)size);
    if (size > 0 && !base)
        return win_raise(w, MPI_ERR_ARG, F, "base is NULL");
    rc = win_attach(w, base, (size_t)size);
    if (rc == MPI_ERR_RMA_ATTACH)
        return win_raise(w, rc, F, "memory at %p (%lld bytes) overlaps memory already attached",
                         base, (long long)size);
    if (rc != MPI_SUCCESS)
        return win_raise(w, rc, F, "out of memory");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_attach)

API_EXPORT int PMPI_Win_detach(MPI_Win win, const void *base)
{
    API_ENTER();
    static const char *const F = "MPI_Win_detach";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = check_dynamic(w, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (win_detach(w, base) != MPI_SUCCESS)
        return win_raise(w, MPI_ERR_RMA_ATTACH, F, "no memory is attached at %p", base);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_detach)

API_EXPORT int PMPI_Win_free(MPI_Win *win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_free";
    state_require_initialized(F);
    API_CHECK_PTR(win, MPI_COMM_WORLD, F, "win");
    API_GET_WIN(w, *win, F);
    if (w->lock_all || w->nlocks || w->naccess >= 0 || w->nexposure >= 0)
        return win_raise(w, MPI_ERR_RMA_SYNC, F,
                         "an epoch is still open (unlock, complete or wait first)");
    int rc = win_free(w);
    *win = MPI_WIN_NULL;
    if (rc != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, rc, F, "a window attribute's delete callback failed");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_free)

/* Every member must run on this host: MPI_ERR_RMA_SHARED otherwise (the same answer at
 * every member, from the job's host map). */
API_EXPORT int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
                                        MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_allocate_shared";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(baseptr, comm, F, "baseptr");
    if (!comm_is_inter(c) && !rma_shared_on_one_host(c))
        return err_raise(comm, MPI_ERR_RMA_SHARED, F,
                         "the processes of %s do not all run on one host", comm_name(comm));
    int rc = create(NULL, size, disp_unit, info, comm, MPI_WIN_FLAVOR_SHARED, win, F);
    if (rc == MPI_SUCCESS) {
        void *base = win_lookup(*win)->base;
        memcpy(baseptr, &base, sizeof base);
    }
    return rc;
}
API_WEAK_ALIAS(Win_allocate_shared)

/* rank MPI_PROC_NULL: the part of the lowest rank with a nonzero size (MPI-3.1 §11.2.3). */
API_EXPORT int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                                     void *baseptr)
{
    API_ENTER();
    static const char *const F = "MPI_Win_shared_query";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, size, F, "size");
    WIN_CHECK_PTR(w, disp_unit, F, "disp_unit");
    WIN_CHECK_PTR(w, baseptr, F, "baseptr");
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return win_raise(w, MPI_ERR_RMA_FLAVOR, F,
                         "the window was not created by MPI_Win_allocate_shared");
    int rc = win_check_rank(w, rank, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank == MPI_PROC_NULL)
        for (rank = 0; rank < w->comm->size - 1 && w->sizes[rank] == 0; rank++)
            ;
    void *base = w->sizes[rank] ? w->parts[rank] : NULL;
    *size = w->sizes[rank];
    *disp_unit = w->disp_units[rank];
    memcpy(baseptr, &base, sizeof base);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_shared_query)
