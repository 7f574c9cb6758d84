#include "api/coll_api.h"

#include "coll/trace.h"
#include "core/match.h"
#include "core/request.h"

int coll_check_type(MPI_Comm comm, MPI_Datatype t, dtype_t **out, const char *func,
                    const char *arg)
{
    if (t == MPI_DATATYPE_NULL)
        return err_raise(comm, MPI_ERR_TYPE, func, "%s is MPI_DATATYPE_NULL", arg);
    dtype_t *dt = dtype_lookup_user(t);
    if (!dt)
        return err_raise(comm, MPI_ERR_TYPE, func, "invalid %s handle 0x%x", arg, (unsigned)t);
    if (!dt->committed || !dt->layout)
        return err_raise(comm, MPI_ERR_TYPE, func, "%s 0x%x is not committed", arg,
                         (unsigned)t);
    *out = dt;
    return MPI_SUCCESS;
}

int coll_check_count(MPI_Comm comm, int count, const char *func, const char *arg)
{
    if (count < 0)
        return err_raise(comm, MPI_ERR_COUNT, func, "negative %s %d", arg, count);
    return MPI_SUCCESS;
}

int coll_check_buf(MPI_Comm comm, const void *buf, int count, MPI_Datatype t, dtype_t **out,
                   const char *func, const char *arg)
{
    int rc = coll_check_count(comm, count, func, "count");
    if (rc == MPI_SUCCESS)
        rc = coll_check_type(comm, t, out, func, "datatype");
    if (rc == MPI_SUCCESS && count > 0 && !buf && (*out)->predefined)
        rc = err_raise(comm, MPI_ERR_BUFFER, func, "%s is NULL but count is %d", arg, count);
    return rc;
}

int coll_check_counts(MPI_Comm comm, const int *counts, int n, const char *func,
                      const char *arg)
{
    if (n > 0 && !counts)
        return err_raise(comm, MPI_ERR_ARG, func, "argument %s is NULL", arg);
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return err_raise(comm, MPI_ERR_COUNT, func, "%s[%d] is negative (%d)", arg, i,
                             counts[i]);
    return MPI_SUCCESS;
}

int coll_check_array(MPI_Comm comm, const void *array, int n, const char *func,
                     const char *arg)
{
    if (n > 0 && !array)
        return err_raise(comm, MPI_ERR_ARG, func, "argument %s is NULL", arg);
    return MPI_SUCCESS;
}

int coll_check_root(const comm_t *c, MPI_Comm comm, int root, const char *func)
{
    if (comm_is_inter(c)) {
        if (root == MPI_ROOT || root == MPI_PROC_NULL ||
            (root >= 0 && root < c->remote_group->size))
            return MPI_SUCCESS;
        return err_raise(comm, MPI_ERR_ROOT, func,
                         "invalid root %d on an inter-communicator (remote group of %d; "
                         "MPI_ROOT or MPI_PROC_NULL in the root's group)",
                         root, c->remote_group->size);
    }
    if (root < 0 || root >= c->size)
        return err_raise(comm, MPI_ERR_ROOT, func,
                         "invalid root %d in a communicator of size %d", root, c->size);
    return MPI_SUCCESS;
}

int coll_check_op(MPI_Comm comm, MPI_Op op, dtype_t *dt, op_t **out, const char *func)
{
    if (op == MPI_OP_NULL)
        return err_raise(comm, MPI_ERR_OP, func, "op is MPI_OP_NULL");
    op_t *o = op_lookup(op);
    if (!o)
        return err_raise(comm, MPI_ERR_OP, func, "invalid op handle 0x%x", (unsigned)op);
    if (op_is_rma_only(o))
        return err_raise(comm, MPI_ERR_OP, func,
                         "%s is defined for one-sided accumulates only", op_name(o));
    if (op_apply(o, NULL, NULL, 0, dt) != MPI_SUCCESS)
        return err_raise(comm, MPI_ERR_OP, func, "%s is not defined on datatype %s",
                         op_name(o), dt->name[0] ? dt->name : "(derived)");
    *out = o;
    return MPI_SUCCESS;
}

int coll_check_intra(const comm_t *c, MPI_Comm comm, const char *func)
{
    if (comm_is_inter(c))
        return err_raise(comm, MPI_ERR_COMM, func,
                         "not defined on an inter-communicator");
    return MPI_SUCCESS;
}

int coll_raise_in_place(MPI_Comm comm, const char *func, const char *arg)
{
    return err_raise(comm, MPI_ERR_BUFFER, func, "MPI_IN_PLACE is not allowed as %s here",
                     arg);
}

int coll_check_request(MPI_Comm comm, const MPI_Request *request, const char *func)
{
    if (!request)
        return err_raise(comm, MPI_ERR_ARG, func, "argument request is NULL");
    return MPI_SUCCESS;
}

icoll_sched_t *coll_begin(comm_t *c, comm_stream_t stream, comm_op_kind_t kind)
{
    return icoll_sched_new_op(c, stream, kind);
}

static int raise_failed(MPI_Comm comm, int rc, const char *func)
{
    if (rc == MPI_ERR_TRUNCATE)
        return err_raise(comm, rc, func,
                         "a member sent more data than this process's receive buffer holds "
                         "(the type signatures of the members do not match)");
    if (rc == MPI_ERR_NO_MEM)
        return err_raise(comm, rc, func, "out of memory");
    if (rc == MPI_ERR_NOT_SAME)
        return err_raise(comm, rc, func,
                         "the members called collective operations in different orders: %s "
                         "(on a communicator the blocking collectives, and the nonblocking "
                         "ones, must be called in the same order by every member)",
                         match_last_clash());
    return err_raise(comm, rc, func, "the collective operation failed");
}

int coll_finish(MPI_Comm comm, icoll_sched_t *s, int rc, const char *func)
{
    if (coll_trace_level())
        coll_trace_emit(func, comm_lookup(comm), s);
    if (rc == MPI_SUCCESS && s)
        rc = icoll_sched_run(s);
    else if (s)
        icoll_sched_discard(s);
    if (!s && rc == MPI_SUCCESS)
        rc = MPI_ERR_NO_MEM;
    return rc == MPI_SUCCESS ? rc : raise_failed(comm, rc, func);
}

int coll_finish_call(MPI_Comm comm, const coll_call_t *call, int rc, const char *func)
{
    if (!call->direct)
        return coll_finish(comm, call->s, rc, func);
    if (coll_trace_level())
        coll_trace_emit(func, call->comm, NULL);
    return rc == MPI_SUCCESS ? rc : raise_failed(comm, rc, func);
}

static void nb_done(int err, void *arg)
{
    request_complete_internal(arg, err);
}

int coll_finish_nb(comm_t *c, MPI_Comm comm, icoll_sched_t *s, int rc, MPI_Request *request,
                   const char *func)
{
    request_t *r = NULL;
    if (coll_trace_level())
        coll_trace_emit(func, c, s);
    if (!s && rc == MPI_SUCCESS)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && !(r = request_new(REQ_COLL, c)))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        if (s)
            icoll_sched_discard(s);
        return raise_failed(comm, rc, func);
    }
    r->active = 1;
    *request = r->handle;
    icoll_sched_start(s, nb_done, r);
    return MPI_SUCCESS;
}
