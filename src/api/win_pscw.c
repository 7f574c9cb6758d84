/* Generalized active target (MPI-3.1 §11.5.2): MPI_Win_post, start, complete, wait, test. */
#include "api/win_checks.h"

#include "core/group.h"

#include <stdlib.h>

static const int known_asserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT;

/* The window ranks of group's members in *ranks (freed by the caller): MPI_ERR_GROUP for a
 * process outside the window. */
static int window_ranks(const win_t *w, MPI_Group group, int assert, int **ranks, int *n,
                        const char *func)
{
    group_t *g = group_lookup(group);
    if (!g)
        return win_raise(w, MPI_ERR_GROUP, func,
                         group == MPI_GROUP_NULL ? "group is MPI_GROUP_NULL"
                                                 : "invalid group handle 0x%x",
                         (unsigned)group);
    if (assert & ~known_asserts)
        return win_raise(w, MPI_ERR_ASSERT, func, "invalid assert 0x%x", (unsigned)assert);
    int *r = malloc((size_t)(g->size ? g->size : 1) * sizeof *r);
    if (!r)
        return win_raise(w, MPI_ERR_NO_MEM, func, "out of memory");
    for (int i = 0; i < g->size; i++) {
        r[i] = group_find(w->comm->group, group_world_rank(g, i));
        if (r[i] == MPI_UNDEFINED) {
            free(r);
            return win_raise(w, MPI_ERR_GROUP, func,
                             "member %d of the group is not a process of the window", i);
        }
    }
    *ranks = r;
    *n = g->size;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_post";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    if (w->nexposure >= 0)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "an exposure epoch is already open");
    int *ranks, n;
    int rc = window_ranks(w, group, assert, &ranks, &n, F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = rma_post(w, ranks, n);
    free(ranks);
    return rc == MPI_SUCCESS ? rc : win_raise(w, rc, F, "out of memory");
}
API_WEAK_ALIAS(Win_post)

API_EXPORT int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_start";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    if (w->naccess >= 0 || w->lock_all || w->nlocks)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "an access epoch is already open");
    int *ranks, n;
    int rc = window_ranks(w, group, assert, &ranks, &n, F);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = rma_start_access(w, ranks, n);
    free(ranks);
    return rc == MPI_SUCCESS ? rc : win_raise(w, rc, F, "out of memory");
}
API_WEAK_ALIAS(Win_start)

API_EXPORT int PMPI_Win_complete(MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_complete";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    if (w->naccess < 0)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "MPI_Win_start was not called");
    rma_complete(w);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_complete)

API_EXPORT int PMPI_Win_wait(MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_wait";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    if (w->nexposure < 0)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "MPI_Win_post was not called");
    rma_wait(w, 1);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_wait)

API_EXPORT int PMPI_Win_test(MPI_Win win, int *flag)
{
    API_ENTER();
    static const char *const F = "MPI_Win_test";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, flag, F, "flag");
    if (w->nexposure < 0)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "MPI_Win_post was not called");
    *flag = rma_wait(w, 0);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_test)
