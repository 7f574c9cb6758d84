/*
 * Argument checks of the one-sided calls (src/api/win_*.c). An error is raised on the
 * window's error handler (MPI_ERRORS_ARE_FATAL unless set), with a message naming the call
 * and the argument; a bad window handle is raised on MPI_COMM_WORLD (MPI-3.1 §8.3: errors
 * that belong to no object).
 */
#ifndef METAMPI_API_WIN_CHECKS_H
#define METAMPI_API_WIN_CHECKS_H

#include "api/api.h"
#include "datatype/dtype.h"
#include "rma/win.h"
#include "runtime/peer_arch.h"

/* Raises errclass on w's handler. */
int win_raise(const win_t *w, int errclass, const char *func, const char *fmt, ...)
    __attribute__((cold, format(printf, 4, 5)));
/* MPI_ERR_WIN on MPI_COMM_WORLD for a handle that is no window. */
int win_raise_bad(MPI_Win win, const char *func);

#define API_GET_WIN(var, win, func)                                                            \
    win_t *var = win_lookup(win);                                                              \
    if (!var)                                                                                  \
        return win_raise_bad(win, func);

#define WIN_CHECK_PTR(w, ptr, func, argname)                                                   \
    do {                                                                                       \
        if (!(ptr))                                                                            \
            return win_raise(w, MPI_ERR_ARG, func, "argument %s is NULL", argname);            \
    } while (0)

/* The checks below are inline, for the one-sided calls' fast path; each raises through its
 * out-of-line win_bad_* / win_check_unlike_peer (win_checks.c). */
int win_bad_rank(const win_t *w, int rank, const char *func) __attribute__((cold));
int win_bad_data(const win_t *w, int count, MPI_Datatype type, const char *what,
                 const char *func) __attribute__((cold));
int win_bad_range(const win_t *w, int target, MPI_Aint disp, int count, const struct dtype *t,
                  const char *func) __attribute__((cold));
int win_bad_epoch(const win_t *w, int target, const char *func) __attribute__((cold));
int win_check_unlike_peer(const win_t *w, int target, struct dtype *t, const char *func);

/* A target rank of w (MPI_PROC_NULL allowed). */
static inline int win_check_rank(const win_t *w, int rank, const char *func)
{
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->comm->size))
        return win_bad_rank(w, rank, func);
    return MPI_SUCCESS;
}

/* (count, type) with a committed type: *t is set. what names the argument group ("origin",
 * "target", "result"). */
static inline int win_check_data(const win_t *w, int count, MPI_Datatype type,
                                 struct dtype **t, const char *what, const char *func)
{
    dtype_t *dt = dtype_lookup_user(type);
    if (count < 0 || !dt || !dt->committed)
        return win_bad_data(w, count, type, what, func);
    *t = dt;
    return MPI_SUCCESS;
}

/* count elements of t at displacement disp lie inside target's window (MPI_ERR_RMA_RANGE). A
 * dynamic window's memory is known at the target only (rma/target.c checks it there). */
static inline int win_check_range(const win_t *w, int target, MPI_Aint disp, int count,
                                  const struct dtype *t, const char *func)
{
    if (count == 0 || t->size == 0 || w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return MPI_SUCCESS;
    long long unit = w->disp_units[target];
    long long lo = (long long)disp * unit + t->true_lb;
    long long hi = (long long)disp * unit + (long long)(count - 1) * (t->ub - t->lb) + t->true_ub;
    if (disp < 0 || lo < 0 || hi > (long long)w->sizes[target])
        return win_bad_range(w, target, disp, count, t, func);
    return MPI_SUCCESS;
}

/* Between this rank and a target of another architecture (issue 19, rma/wire.h) the target
 * datatype must hold elements of one basic type of the same size on both, in any layout:
 * else MPI_ERR_TYPE naming both ranks and architectures. */
static inline int win_check_unlike(const win_t *w, int target, struct dtype *t, const char *func)
{
    if (peer_arch_all_same() || target == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return win_check_unlike_peer(w, target, t, func);
}

/* An access epoch to target is open (fence, lock, lock_all): else MPI_ERR_RMA_SYNC. */
static inline int win_check_epoch(const win_t *w, int target, const char *func)
{
    if (w->fence_epoch || w->lock_all || w->lock_held[target] ||
        (w->naccess >= 0 && w->access_member[target]))
        return MPI_SUCCESS;
    return win_bad_epoch(w, target, func);
}

#endif
