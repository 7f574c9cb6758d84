/* Reduction operations (MPI-3.1 §5.9.5–5.9.7): user ops and MPI_Reduce_local. Op objects
 * and kernels: core/op.c, core/op_kernels.c. */
#include "api/api.h"

#include "core/op.h"
#include "datatype/dtype.h"

/* Looks up op for func, raising MPI_ERR_OP on comm when it is not a live op. */
#define API_GET_OP(var, h, comm, func)                                                         \
    op_t *var = op_lookup(h);                                                                  \
    if (!var)                                                                                  \
        return err_raise(comm, MPI_ERR_OP, func,                                               \
                         (h) == MPI_OP_NULL ? "op is MPI_OP_NULL" : "invalid op handle 0x%x",  \
                         (unsigned)(h));

API_EXPORT int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    API_ENTER();
    state_require_initialized("MPI_Op_create");
    API_CHECK_PTR(user_fn, MPI_COMM_WORLD, "MPI_Op_create", "user_fn");
    API_CHECK_PTR(op, MPI_COMM_WORLD, "MPI_Op_create", "op");
    if (op_create(user_fn, commute, op) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Op_create",
                         "out of memory for an op");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Op_create)

/* The op lives on while pending operations use it (op_release). */
API_EXPORT int PMPI_Op_free(MPI_Op *op)
{
    API_ENTER();
    state_require_initialized("MPI_Op_free");
    API_CHECK_PTR(op, MPI_COMM_WORLD, "MPI_Op_free", "op");
    API_GET_OP(o, *op, MPI_COMM_WORLD, "MPI_Op_free");
    if (o->kind != OP_USER)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free",
                         "%s is predefined and cannot be freed", op_name(o));
    op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Op_free)

API_EXPORT int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    API_ENTER();
    state_require_initialized("MPI_Op_commutative");
    API_GET_OP(o, op, MPI_COMM_WORLD, "MPI_Op_commutative");
    API_CHECK_PTR(commute, MPI_COMM_WORLD, "MPI_Op_commutative", "commute");
    *commute = o->commute;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Op_commutative)

API_EXPORT int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op)
{
    API_ENTER();
    static const char *const F = "MPI_Reduce_local";
    state_require_initialized(F);
    if (count < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, F, "count %d is negative", count);
    dtype_t *t = dtype_lookup_user(datatype);
    if (!t)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, F,
                         datatype == MPI_DATATYPE_NULL ? "datatype is MPI_DATATYPE_NULL"
                                                       : "invalid datatype handle 0x%x",
                         (unsigned)datatype);
    if (!t->committed)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, F, "datatype %s is not committed",
                         t->name[0] ? t->name : "(derived)");
    API_GET_OP(o, op, MPI_COMM_WORLD, F);
    if (op_is_rma_only(o))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_OP, F,
                         "%s is defined for one-sided accumulates only", op_name(o));
    if (count > 0 && t->predefined && (!inbuf || !inoutbuf)) /* derived: MPI_BOTTOM is valid */
        return err_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, F, "%s is NULL",
                         inbuf ? "inoutbuf" : "inbuf");
    int rc = op_apply(o, inbuf, inoutbuf, (size_t)count, t);
    if (rc == MPI_ERR_OP)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_OP, F, "%s is not defined on datatype %s",
                         op_name(o), t->name[0] ? t->name : "(derived)");
    if (rc != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, rc, F, "out of memory for packing buffers");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Reduce_local)
