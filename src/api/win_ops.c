/* Remote memory access (MPI-3.1 §11.3): put, get, the accumulates, fetch-and-op and
 * compare-and-swap. The checks are here; the operations travel as messages (src/rma/). */
#include "api/win_checks.h"

#include "core/op.h"
#include "core/request.h"
#include "datatype/dtype.h"
#include "datatype/predefined.h"

/* The checks every operation shares: target rank, origin and target data, the range at the
 * target, the epoch. *skip is set for MPI_PROC_NULL (the call then does nothing). */
static inline __attribute__((always_inline)) int check_common(win_t *w, rma_args_t *a, const void *origin, int origin_count,
                        MPI_Datatype origin_type, int target, MPI_Aint disp, int target_count,
                        MPI_Datatype target_type, int *skip, const char *func)
{
    *skip = 0;
    int rc = win_check_rank(w, target, func);
    if (rc == MPI_SUCCESS)
        rc = win_check_data(w, origin_count, origin_type, &a->origin_type, "origin",
                            func);
    if (rc == MPI_SUCCESS)
        rc = win_check_data(w, target_count, target_type, &a->target_type, "target",
                            func);
    if (rc != MPI_SUCCESS)
        return rc;
    if (target == MPI_PROC_NULL) {
        *skip = 1;
        return MPI_SUCCESS;
    }
    rc = win_check_range(w, target, disp, target_count, a->target_type, func);
    if (rc == MPI_SUCCESS)
        rc = win_check_unlike(w, target, a->target_type, func);
    if (rc == MPI_SUCCESS)
        rc = win_check_epoch(w, target, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((MPI_Count)origin_count * a->origin_type->size !=
        (MPI_Count)target_count * a->target_type->size)
        return win_raise(w, MPI_ERR_TYPE, func,
                         "origin (%d elements, %lld bytes) and target (%d elements, %lld "
                         "bytes) data differ in size",
                         origin_count, (long long)origin_count * a->origin_type->size,
                         target_count, (long long)target_count * a->target_type->size);
    a->origin = origin;
    a->origin_count = origin_count;
    a->target = target;
    a->disp = disp;
    a->target_count = target_count;
    return MPI_SUCCESS;
}

/* Starts the operation; for the request-based forms (request not NULL) with a request that
 * completes at local completion. Those belong to passive-target epochs (MPI-3.1 §11.3.5). */
static int run_with(win_t *w, rma_kind_t kind, rma_args_t *a, MPI_Request *request,
                    const char *func)
{
    request_t *r = NULL;
    if (request) {
        if (a->target != MPI_PROC_NULL && !w->lock_all && !w->lock_held[a->target])
            return win_raise(w, MPI_ERR_RMA_SYNC, func,
                             "request-based operations need a passive-target epoch (rank %d "
                             "is not locked)",
                             a->target);
        if (!(r = request_new(REQ_RMA, w->comm)))
            return win_raise(w, MPI_ERR_NO_MEM, func, "out of memory for a request");
        r->active = 1;
        *request = r->handle;
        if (a->target == MPI_PROC_NULL) {
            request_complete_internal(r, MPI_SUCCESS);
            return MPI_SUCCESS;
        }
    }
    a->request = r;
    int rc = rma_start(w, kind, a);
    if (rc != MPI_SUCCESS) {
        if (r)
            request_complete_internal(r, rc);
        return win_raise(w, rc, func, "out of memory for the operation");
    }
    return MPI_SUCCESS;
}

static int run(win_t *w, rma_kind_t kind, rma_args_t *a, const char *func)
{
    return run_with(w, kind, a, NULL, func);
}

/* MPI_PROC_NULL (skip): nothing to do, but a request-based call still returns a request */
static int finish(win_t *w, rma_kind_t kind, rma_args_t *a, int skip, MPI_Request *request,
                  const char *func)
{
    if (skip) {
        a->target = MPI_PROC_NULL;
        return request ? run_with(w, kind, a, request, func) : MPI_SUCCESS;
    }
    return run_with(w, kind, a, request, func);
}

static int put_get(rma_kind_t kind, const void *origin, int origin_count,
                   MPI_Datatype origin_type, int target, MPI_Aint disp, int target_count,
                   MPI_Datatype target_type, MPI_Win win, MPI_Request *request,
                   const char *func)
{
    state_require_initialized(func);
    API_GET_WIN(w, win, func);
    if (request)
        WIN_CHECK_PTR(w, request, func, "request");
    rma_args_t a = { 0 };
    int skip, rc = check_common(w, &a, origin, origin_count, origin_type, target, disp,
                                target_count, target_type, &skip, func);
    if (rc != MPI_SUCCESS)
        return rc;
    return finish(w, kind, &a, skip, request, func);
}

API_EXPORT int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win)
{
    API_ENTER();
    return put_get(RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, NULL, "MPI_Put");
}
API_WEAK_ALIAS(Put)

API_EXPORT int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Win win)
{
    API_ENTER();
    return put_get(RMA_GET, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, NULL, "MPI_Get");
}
API_WEAK_ALIAS(Get)

API_EXPORT int PMPI_Rput(const void *origin_addr, int origin_count,
                         MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                         int target_count, MPI_Datatype target_datatype, MPI_Win win,
                         MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Rput";
    if (!request)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "argument request is NULL");
    return put_get(RMA_PUT, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request, F);
}
API_WEAK_ALIAS(Rput)

API_EXPORT int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Rget";
    if (!request)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "argument request is NULL");
    return put_get(RMA_GET, origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request, F);
}
API_WEAK_ALIAS(Rget)

/* op and the types of an accumulate: a predefined op (or MPI_REPLACE; MPI_NO_OP only when
 * fetching) on data made of one basic type, the same at origin and target (§11.3.4). */
static int check_op(win_t *w, rma_args_t *a, MPI_Op op, int fetching, const char *func)
{
    op_t *o = op_lookup(op);
    if (!o || o->kind == OP_USER)
        return win_raise(w, MPI_ERR_OP, func,
                         o ? "user-defined operations are not allowed in one-sided accumulates"
                           : "invalid operation 0x%x",
                         (unsigned)op);
    if (o->kind == OP_NO_OP && !fetching)
        return win_raise(w, MPI_ERR_OP, func, "MPI_NO_OP is only for the fetching accumulates");
    a->op = o;
    /* no data: nothing to combine (as MPICH and Open MPI, which mpi4py's tests rely on) */
    if (o->kind == OP_NO_OP || a->target_count == 0 || a->target_type->size == 0)
        return MPI_SUCCESS;
    int lo = op_leaf(a->origin_type), lt = op_leaf(a->target_type);
    if (lo < 0 || lt < 0 || (lo && lt && lo != lt))
        return win_raise(w, MPI_ERR_TYPE, func,
                         "origin and target data must be made of one and the same predefined "
                         "type");
    if (!op_leaf_allowed(o, lo ? lo : lt))
        return win_raise(w, MPI_ERR_OP, func, "%s is not defined on the datatype", op_name(o));
    return MPI_SUCCESS;
}

static int accumulate(const void *origin, int origin_count, MPI_Datatype origin_type,
                      int target, MPI_Aint disp, int target_count, MPI_Datatype target_type,
                      MPI_Op op, MPI_Win win, MPI_Request *request, const char *func)
{
    state_require_initialized(func);
    API_GET_WIN(w, win, func);
    rma_args_t a = { 0 };
    int skip, rc = check_common(w, &a, origin, origin_count, origin_type, target, disp,
                                target_count, target_type, &skip, func);
    if (rc == MPI_SUCCESS)
        rc = check_op(w, &a, op, 0, func);
    if (rc != MPI_SUCCESS)
        return rc;
    return finish(w, RMA_ACC, &a, skip, request, func);
}

API_EXPORT int PMPI_Accumulate(const void *origin_addr, int origin_count,
                               MPI_Datatype origin_datatype, int target_rank,
                               MPI_Aint target_disp, int target_count,
                               MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    API_ENTER();
    return accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, op, win, NULL, "MPI_Accumulate");
}
API_WEAK_ALIAS(Accumulate)

API_EXPORT int PMPI_Raccumulate(const void *origin_addr, int origin_count,
                                MPI_Datatype origin_datatype, int target_rank,
                                MPI_Aint target_disp, int target_count,
                                MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Raccumulate";
    if (!request)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "argument request is NULL");
    return accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                      target_count, target_datatype, op, win, request, F);
}
API_WEAK_ALIAS(Raccumulate)

static int get_accumulate(const void *origin, int origin_count, MPI_Datatype origin_type,
                          void *result, int result_count, MPI_Datatype result_type, int target,
                          MPI_Aint disp, int target_count, MPI_Datatype target_type, MPI_Op op,
                          MPI_Win win, rma_kind_t kind, MPI_Request *request,
                          const char *func)
{
    state_require_initialized(func);
    API_GET_WIN(w, win, func);
    rma_args_t a = { 0 };
    int nop = op == MPI_NO_OP, skip;
    /* with MPI_NO_OP the origin buffer is ignored: check the target's shape in its place */
    int rc = check_common(w, &a, origin, nop ? target_count : origin_count,
                          nop ? target_type : origin_type, target, disp, target_count,
                          target_type, &skip, func);
    if (rc == MPI_SUCCESS)
        rc = win_check_data(w, result_count, result_type, &a.result_type, "result",
                            func);
    if (rc == MPI_SUCCESS && kind != RMA_CAS)
        rc = check_op(w, &a, op, 1, func);
    if (rc != MPI_SUCCESS)
        return rc;
    if (skip)
        return finish(w, kind, &a, skip, request, func);
    if ((MPI_Count)result_count * a.result_type->size !=
        (MPI_Count)target_count * a.target_type->size)
        return win_raise(w, MPI_ERR_TYPE, func, "result and target data differ in size");
    a.result = result;
    a.result_count = result_count;
    return run_with(w, kind, &a, request, func);
}

API_EXPORT int PMPI_Get_accumulate(const void *origin_addr, int origin_count,
                                   MPI_Datatype origin_datatype, void *result_addr,
                                   int result_count, MPI_Datatype result_datatype,
                                   int target_rank, MPI_Aint target_disp, int target_count,
                                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    API_ENTER();
    return get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                          result_datatype, target_rank, target_disp, target_count,
                          target_datatype, op, win, RMA_GACC, NULL, "MPI_Get_accumulate");
}
API_WEAK_ALIAS(Get_accumulate)

API_EXPORT int PMPI_Rget_accumulate(const void *origin_addr, int origin_count,
                                    MPI_Datatype origin_datatype, void *result_addr,
                                    int result_count, MPI_Datatype result_datatype,
                                    int target_rank, MPI_Aint target_disp, int target_count,
                                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                                    MPI_Request *request)
{
    API_ENTER();
    static const char *const F = "MPI_Rget_accumulate";
    if (!request)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "argument request is NULL");
    return get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                          result_datatype, target_rank, target_disp, target_count,
                          target_datatype, op, win, RMA_GACC, request, F);
}
API_WEAK_ALIAS(Rget_accumulate)

API_EXPORT int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr,
                                 MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                                 MPI_Op op, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Fetch_and_op";
    win_t *w;
    if (datatype != MPI_DATATYPE_NULL && !dtype_is_predefined(datatype) && (w = win_lookup(win)))
        return win_raise(w, MPI_ERR_TYPE, F, "datatype must be predefined");
    return get_accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                          target_disp, 1, datatype, op, win, RMA_GACC, NULL, F);
}
API_WEAK_ALIAS(Fetch_and_op)

API_EXPORT int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr,
                                     void *result_addr, MPI_Datatype datatype, int target_rank,
                                     MPI_Aint target_disp, MPI_Win win)
{
    API_ENTER();
    static const char *const F = "MPI_Compare_and_swap";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    if (datatype != MPI_DATATYPE_NULL && !dtype_is_predefined(datatype))
        return win_raise(w, MPI_ERR_TYPE, F, "datatype must be predefined");
    WIN_CHECK_PTR(w, origin_addr, F, "origin_addr");
    WIN_CHECK_PTR(w, compare_addr, F, "compare_addr");
    WIN_CHECK_PTR(w, result_addr, F, "result_addr");
    rma_args_t a = { 0 };
    int skip, rc = check_common(w, &a, origin_addr, 1, datatype, target_rank, target_disp, 1,
                                datatype, &skip, F);
    if (rc != MPI_SUCCESS || skip)
        return rc;
    a.result = result_addr;
    a.result_count = 1;
    a.result_type = a.origin_type;
    a.compare = compare_addr;
    return run(w, RMA_CAS, &a, F);
}
API_WEAK_ALIAS(Compare_and_swap)
