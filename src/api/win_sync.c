/* Synchronisation calls (MPI-3.1 §11.5): fence, and the passive-target lock, unlock, flush and
 * sync. Epoch state is the origin's (win_t.fence_epoch, lock_held, lock_all). */
#include "api/win_checks.h"

#include "core/progress.h"

static const int known_asserts = MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT |
                                 MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED;

static int check_assert(const win_t *w, int assert, const char *func)
{
    if (assert & ~known_asserts)
        return win_raise(w, MPI_ERR_ASSERT, func, "invalid assert 0x%x", (unsigned)assert);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Win_fence(int assert, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_fence";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = check_assert(w, assert, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (w->lock_all || w->nlocks)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "a passive-target epoch is open");
    if (w->naccess >= 0 || w->nexposure >= 0)
        return win_raise(w, MPI_ERR_RMA_SYNC, F,
                         "an MPI_Win_start or MPI_Win_post epoch is open");
    if ((assert & MPI_MODE_NOPRECEDE) && w->fence_ops)
        return win_raise(w, MPI_ERR_RMA_SYNC, F,
                         "MPI_MODE_NOPRECEDE asserted, but this process issued %llu "
                         "operations since the last fence, which this fence must complete",
                         (unsigned long long)w->fence_ops);
    rc = rma_fence(w, assert);
    if (rc != MPI_SUCCESS)
        return win_raise(w, rc, F, "the fence failed");
    w->fence_ops = 0;
    w->fence_epoch = !(assert & MPI_MODE_NOSUCCEED);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_fence)

API_EXPORT int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_lock";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = check_assert(w, assert, F);
    if (rc == MPI_SUCCESS)
        rc = win_check_rank(w, rank, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return win_raise(w, MPI_ERR_LOCKTYPE, F, "invalid lock type %d", lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (w->lock_all || w->lock_held[rank])
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "rank %d is already locked by this process",
                         rank);
    if (assert & MPI_MODE_NOCHECK) {
        w->lock_held[rank] = RMA_LOCKED_NOCHECK;   /* nothing to ask the target */
    } else {
        rma_lock(w, rank, lock_type);
        w->lock_held[rank] = lock_type == MPI_LOCK_SHARED ? RMA_LOCKED_SHARED
                                                          : RMA_LOCKED_EXCLUSIVE;
    }
    w->nlocks++;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_lock)

API_EXPORT int PMPI_Win_unlock(int rank, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_unlock";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = win_check_rank(w, rank, F);
    if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
        return rc;
    if (!w->lock_held[rank])
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "rank %d is not locked by this process", rank);
    /* the unlock reaches the target after every operation sent before it, and is answered
     * once they are applied; without a lock taken there, a flush does the same */
    if (w->lock_held[rank] == RMA_LOCKED_NOCHECK)
        rma_flush(w, rank);
    else
        rma_unlock(w, rank,
                   w->lock_held[rank] == RMA_LOCKED_SHARED ? MPI_LOCK_SHARED
                                                           : MPI_LOCK_EXCLUSIVE);
    rma_complete_local(w, rank);
    w->lock_held[rank] = RMA_UNLOCKED;
    w->nlocks--;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_unlock)

API_EXPORT int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_lock_all";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = check_assert(w, assert, F);
    if (rc != MPI_SUCCESS)
        return rc;
    if (w->lock_all || w->nlocks)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "this process already holds a lock");
    if (assert & MPI_MODE_NOCHECK) {
        w->lock_all = RMA_LOCKED_NOCHECK;
    } else {
        rma_lock_all(w);
        w->lock_all = RMA_LOCKED_SHARED;
    }
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_lock_all)

API_EXPORT int PMPI_Win_unlock_all(MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_unlock_all";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    if (!w->lock_all)
        return win_raise(w, MPI_ERR_RMA_SYNC, F, "MPI_Win_lock_all was not called");
    if (w->lock_all == RMA_LOCKED_NOCHECK)
        rma_flush(w, -1);
    else
        rma_unlock_all(w);
    rma_complete_local(w, -1);
    w->lock_all = RMA_UNLOCKED;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_unlock_all)

static int passive_epoch(const win_t *w, int rank, const char *func)
{
    int rc = win_check_rank(w, rank, func);
    if (rc != MPI_SUCCESS || rank == MPI_PROC_NULL)
        return rc;
    if (!w->lock_all && !w->lock_held[rank])
        return win_raise(w, MPI_ERR_RMA_SYNC, func, "rank %d is not locked by this process",
                         rank);
    return MPI_SUCCESS;
}

static int passive_all(const win_t *w, const char *func)
{
    if (!w->lock_all && !w->nlocks)
        return win_raise(w, MPI_ERR_RMA_SYNC, func, "no passive-target epoch is open");
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Win_flush(int rank, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_flush";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = passive_epoch(w, rank, F);
    if (rc == MPI_SUCCESS && rank != MPI_PROC_NULL)
        rma_flush(w, rank);
    return rc;
}
API_WEAK_ALIAS(Win_flush)

API_EXPORT int PMPI_Win_flush_all(MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_flush_all";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = passive_all(w, F);
    if (rc == MPI_SUCCESS)
        rma_flush(w, -1);
    return rc;
}
API_WEAK_ALIAS(Win_flush_all)

/* Local completion: the origin buffers may be reused, results are in. */
API_EXPORT int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_flush_local";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = passive_epoch(w, rank, F);
    if (rc == MPI_SUCCESS && rank != MPI_PROC_NULL)
        rma_complete_local(w, rank);
    return rc;
}
API_WEAK_ALIAS(Win_flush_local)

API_EXPORT int PMPI_Win_flush_local_all(MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_flush_local_all";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    int rc = passive_all(w, F);
    if (rc == MPI_SUCCESS)
        rma_complete_local(w, -1);
    return rc;
}
API_WEAK_ALIAS(Win_flush_local_all)

/* The public and private copies are one (MPI_WIN_UNIFIED): a memory barrier orders this
 * process's loads and stores, and a pass of progress applies what arrived. */
API_EXPORT int PMPI_Win_sync(MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Win_sync";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    (void)w;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    progress_poll();
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_sync)
