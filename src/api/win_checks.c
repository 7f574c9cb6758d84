/* Argument checks of the one-sided calls. */
#include "api/win_checks.h"

#include "core/op.h"
#include "datatype/construct.h"
#include "datatype/dtype.h"
#include "datatype/engine/convert.h"
#include "datatype/predefined.h"
#include "runtime/peer_arch.h"

#include <stdarg.h>
#include <stdio.h>

int win_raise(const win_t *w, int errclass, const char *func, const char *fmt, ...)
{
    char detail[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return err_raise_on(w->errhandler, w->handle, errclass, func, "%s (window %s)", detail,
                        w->name[0] ? w->name : "without a name");
}

int win_raise_bad(MPI_Win win, const char *func)
{
    return err_raise(MPI_COMM_WORLD, MPI_ERR_WIN, func,
                     win == MPI_WIN_NULL ? "window is MPI_WIN_NULL"
                                         : "invalid window handle 0x%x",
                     (unsigned)win);
}

int win_bad_rank(const win_t *w, int rank, const char *func)
{
    return win_raise(w, MPI_ERR_RANK, func, "invalid target rank %d in a window of %d processes",
                     rank, w->comm->size);
}

int win_bad_data(const win_t *w, int count, MPI_Datatype type, const char *what,
                 const char *func)
{
    if (count < 0)
        return win_raise(w, MPI_ERR_COUNT, func, "negative %s count %d", what, count);
    if (!dtype_lookup_user(type))
        return win_raise(w, MPI_ERR_TYPE, func,
                         type == MPI_DATATYPE_NULL ? "%s datatype is MPI_DATATYPE_NULL"
                                                   : "invalid %s datatype handle",
                         what);
    return win_raise(w, MPI_ERR_TYPE, func, "%s datatype 0x%x is not committed", what,
                     (unsigned)type);
}

int win_check_unlike_peer(const win_t *w, int target, struct dtype *t, const char *func)
{
    const arch_desc_t *theirs = peer_arch(comm_peer_world_rank(w->comm, target));
    if (arch_same(theirs, arch_local()))
        return MPI_SUCCESS;
    /* the data travel as a stream of the type's basic elements, converted element by
     * element at the target whatever the layout; the layout the origin computed is the
     * target's too when every basic type has the same size on both (its displacements are
     * counted in them or given in bytes by the origin, as for a struct) */
    const dt_layout_t *l = dtype_layout(t);
    if (l && dt_conv_sizes_alike(l, theirs))
        return MPI_SUCCESS;
    char mine[96], other[96];
    return win_raise(w, MPI_ERR_TYPE, func,
                     "target rank %d (%s) is of another architecture than rank %d (%s): "
                     "one-sided operations between them take target data whose basic types "
                     "have the same size on both, which datatype %#x has not", target,
                     arch_describe(theirs, other, sizeof other), w->comm->rank,
                     arch_describe(arch_local(), mine, sizeof mine), (unsigned)t->handle);
}

int win_bad_range(const win_t *w, int target, MPI_Aint disp, int count, const struct dtype *t,
                  const char *func)
{
    long long unit = w->disp_units[target];
    long long lo = (long long)disp * unit + t->true_lb;
    long long hi = (long long)disp * unit + (long long)(count - 1) * (t->ub - t->lb) + t->true_ub;
    return win_raise(w, MPI_ERR_RMA_RANGE, func,
                     "target displacement %lld (%d elements) reaches bytes %lld..%lld, "
                     "outside the %lld bytes of rank %d's window",
                     (long long)disp, count, lo, hi, (long long)w->sizes[target], target);
}

int win_bad_epoch(const win_t *w, int target, const char *func)
{
    return win_raise(w, MPI_ERR_RMA_SYNC, func,
                     "no access epoch to rank %d is open (call MPI_Win_fence, MPI_Win_start, "
                     "MPI_Win_lock or MPI_Win_lock_all first)",
                     target);
}
