/*
 * Argument checks of the one-sided calls (src/api/win_*.c). An error is raised on the
 * window's error handler (MPI_ERRORS_ARE_FATAL unless set), with a message naming the call
 * and the argument; a bad window handle is raised on MPI_COMM_WORLD (MPI-3.1 §8.3: errors
 * that belong to no object).
 */
#ifndef METAMPI_API_WIN_CHECKS_H
#define METAMPI_API_WIN_CHECKS_H

#include "api/api.h"
#include "rma/win.h"

/* Raises errclass on w's handler. */
int win_raise(const win_t *w, int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
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

/* A target rank of w (MPI_PROC_NULL allowed). */
int win_check_rank(const win_t *w, int rank, const char *func);
/* (buf, count, type) with a committed type: *t is set. what names the argument group
 * ("origin", "target", "result"). */
int win_check_data(const win_t *w, const void *buf, int count, MPI_Datatype type,
                   struct dtype **t, const char *what, const char *func);
/* count elements of t at displacement disp lie inside target's window (MPI_ERR_RMA_RANGE). */
int win_check_range(const win_t *w, int target, MPI_Aint disp, int count, const struct dtype *t,
                    const char *func);
/* Between this rank and a target of another architecture (issue 19, rma/wire.h) the target
 * datatype must hold elements of one basic type of the same size on both, in any layout:
 * else MPI_ERR_TYPE naming both ranks and architectures. */
int win_check_unlike(const win_t *w, int target, struct dtype *t, const char *func);
/* An access epoch to target is open (fence, lock, lock_all): else MPI_ERR_RMA_SYNC. */
int win_check_epoch(const win_t *w, int target, const char *func);

#endif
