/* Subarray and distributed-array constructors (MPI-3.1 §4.1.3, §4.1.4): argument checks. */
#include "api/type_common.h"

static int check_order(int order, const char *F)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    return MPI_SUCCESS;
}

static int publish(int rc, dtype_t *t, MPI_Datatype *newtype, const char *F)
{
    if (rc != MPI_SUCCESS)
        return raise_construct(rc, F);
    dtype_publish(t, newtype);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[],
                                         const int array_of_starts[], int order,
                                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_create_subarray";
    state_require_initialized(F);
    API_CHECK_PTR(newtype, MPI_COMM_WORLD, F, "newtype");
    if (ndims <= 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "ndims %d is not positive", ndims);
    API_CHECK_PTR(array_of_sizes, MPI_COMM_WORLD, F, "array_of_sizes");
    API_CHECK_PTR(array_of_subsizes, MPI_COMM_WORLD, F, "array_of_subsizes");
    API_CHECK_PTR(array_of_starts, MPI_COMM_WORLD, F, "array_of_starts");
    for (int i = 0; i < ndims; i++) {
        int size = array_of_sizes[i], sub = array_of_subsizes[i], start = array_of_starts[i];
        if (size <= 0)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                             "array_of_sizes[%d] = %d is not positive", i, size);
        if (sub <= 0 || sub > size)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                             "array_of_subsizes[%d] = %d is not in 1..%d", i, sub, size);
        if (start < 0 || start > size - sub)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                             "array_of_starts[%d] = %d is not in 0..%d", i, start, size - sub);
    }
    if (check_order(order, F) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    dtype_t *t = NULL;
    int rc = dtype_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                            old, &t);
    return publish(rc, t, newtype, F);
}
API_WEAK_ALIAS(Type_create_subarray)

static int check_distrib(int i, int gsize, int distrib, int darg, int psize, const char *F)
{
    if (gsize <= 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "array_of_gsizes[%d] = %d is not positive", i, gsize);
    if (psize <= 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "array_of_psizes[%d] = %d is not positive", i, psize);
    switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
        if (psize != 1)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                             "dimension %d is MPI_DISTRIBUTE_NONE over %d processes (must be 1)",
                             i, psize);
        return MPI_SUCCESS;
    case MPI_DISTRIBUTE_BLOCK:
        if (darg == MPI_DISTRIBUTE_DFLT_DARG)
            return MPI_SUCCESS;
        if (darg <= 0 || (long long)darg * psize < gsize)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                             "array_of_dargs[%d] = %d: %d blocks of it do not cover %d elements",
                             i, darg, psize, gsize);
        return MPI_SUCCESS;
    case MPI_DISTRIBUTE_CYCLIC:
        if (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0)
            return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                             "array_of_dargs[%d] = %d is not positive", i, darg);
        return MPI_SUCCESS;
    default:
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "array_of_distribs[%d] = %d is not a distribution", i, distrib);
    }
}

API_EXPORT int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order,
                                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_create_darray";
    state_require_initialized(F);
    API_CHECK_PTR(newtype, MPI_COMM_WORLD, F, "newtype");
    if (size <= 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "size %d is not positive", size);
    if (rank < 0 || rank >= size)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_RANK, F, "rank %d is not in 0..%d", rank,
                         size - 1);
    if (ndims <= 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "ndims %d is not positive", ndims);
    API_CHECK_PTR(array_of_gsizes, MPI_COMM_WORLD, F, "array_of_gsizes");
    API_CHECK_PTR(array_of_distribs, MPI_COMM_WORLD, F, "array_of_distribs");
    API_CHECK_PTR(array_of_dargs, MPI_COMM_WORLD, F, "array_of_dargs");
    API_CHECK_PTR(array_of_psizes, MPI_COMM_WORLD, F, "array_of_psizes");
    long long procs = 1;
    for (int i = 0; i < ndims; i++) {
        if (check_distrib(i, array_of_gsizes[i], array_of_distribs[i], array_of_dargs[i],
                          array_of_psizes[i], F) != MPI_SUCCESS)
            return MPI_ERR_ARG;
        if (procs <= size)
            procs *= array_of_psizes[i];
    }
    if (procs != size)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "the process grid (product of array_of_psizes) does not have size %d",
                         size);
    if (check_order(order, F) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    dtype_t *t = NULL;
    int rc = dtype_darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                          array_of_psizes, order, old, &t);
    return publish(rc, t, newtype, F);
}
API_WEAK_ALIAS(Type_create_darray)
