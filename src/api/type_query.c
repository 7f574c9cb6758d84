/* Committing, freeing and querying datatypes (MPI-3.1 §4.1.5–4.1.13, §6.8 names, §17.1.9
 * MPI_Type_match_size), addresses. */
#include "api/type_common.h"

#include "datatype/predefined.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

API_EXPORT int PMPI_Type_commit(MPI_Datatype *datatype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_commit";
    state_require_initialized(F);
    API_CHECK_PTR(datatype, MPI_COMM_WORLD, F, "datatype");
    API_GET_TYPE(t, *datatype, MPI_COMM_WORLD, F, "datatype");
    int rc = dtype_commit(t);
    return rc == MPI_SUCCESS ? rc : raise_construct(rc, F);
}
API_WEAK_ALIAS(Type_commit)

/* The handle goes at once; the object lives while types built on it or pending operations
 * reference it (dtype.h). */
API_EXPORT int PMPI_Type_free(MPI_Datatype *datatype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_free";
    state_require_initialized(F);
    API_CHECK_PTR(datatype, MPI_COMM_WORLD, F, "datatype");
    API_GET_TYPE(t, *datatype, MPI_COMM_WORLD, F, "datatype");
    if (t->predefined)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, F, "%s is predefined and cannot be freed",
                         t->name);
    int rc = dtype_unpublish(t);
    if (rc != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, rc, F, "an attribute delete callback failed");
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_free)

/* ---- size and extents ----------------------------------------------------------------- */

/* The int results are MPI_UNDEFINED when the value does not fit (MPI-3.1 §4.1.5). */
static int to_int(MPI_Count v)
{
    return v > INT_MAX || v < INT_MIN ? MPI_UNDEFINED : (int)v;
}

API_EXPORT int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    API_ENTER();
    static const char *const F = "MPI_Type_size";
    state_require_initialized(F);
    API_CHECK_PTR(size, MPI_COMM_WORLD, F, "size");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    *size = to_int(t->size);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_size)

API_EXPORT int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    API_ENTER();
    static const char *const F = "MPI_Type_size_x";
    state_require_initialized(F);
    API_CHECK_PTR(size, MPI_COMM_WORLD, F, "size");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    *size = t->size;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_size_x)

/* Both bounds queries: (lb, extent) of the typemap, or of the data alone (true). */
static int extent(MPI_Datatype datatype, int true_bounds, MPI_Aint *lb, MPI_Aint *ext,
                  const char *F)
{
    state_require_initialized(F);
    API_CHECK_PTR(lb, MPI_COMM_WORLD, F, true_bounds ? "true_lb" : "lb");
    API_CHECK_PTR(ext, MPI_COMM_WORLD, F, true_bounds ? "true_extent" : "extent");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    *lb = true_bounds ? t->true_lb : t->lb;
    *ext = true_bounds ? t->true_ub - t->true_lb : t->ub - t->lb;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent_)
{
    API_ENTER();
    return extent(datatype, 0, lb, extent_, "MPI_Type_get_extent");
}
API_WEAK_ALIAS(Type_get_extent)

API_EXPORT int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb,
                                         MPI_Aint *true_extent)
{
    API_ENTER();
    return extent(datatype, 1, true_lb, true_extent, "MPI_Type_get_true_extent");
}
API_WEAK_ALIAS(Type_get_true_extent)

/* MPI_Count holds every MPI_Aint here (both are 64-bit). */
API_EXPORT int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent_)
{
    API_ENTER();
    MPI_Aint l = 0, e = 0;
    int rc = extent(datatype, 0, lb ? &l : NULL, extent_ ? &e : NULL, "MPI_Type_get_extent_x");
    if (rc == MPI_SUCCESS) {
        *lb = l;
        *extent_ = e;
    }
    return rc;
}
API_WEAK_ALIAS(Type_get_extent_x)

API_EXPORT int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb,
                                           MPI_Count *true_extent)
{
    API_ENTER();
    MPI_Aint l = 0, e = 0;
    int rc = extent(datatype, 1, true_lb ? &l : NULL, true_extent ? &e : NULL,
                    "MPI_Type_get_true_extent_x");
    if (rc == MPI_SUCCESS) {
        *true_lb = l;
        *true_extent = e;
    }
    return rc;
}
API_WEAK_ALIAS(Type_get_true_extent_x)

/* ---- envelope and contents (MPI-3.1 §4.1.13) ------------------------------------------ */

API_EXPORT int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers,
                                      int *num_addresses, int *num_datatypes, int *combiner)
{
    API_ENTER();
    static const char *const F = "MPI_Type_get_envelope";
    state_require_initialized(F);
    API_CHECK_PTR(num_integers, MPI_COMM_WORLD, F, "num_integers");
    API_CHECK_PTR(num_addresses, MPI_COMM_WORLD, F, "num_addresses");
    API_CHECK_PTR(num_datatypes, MPI_COMM_WORLD, F, "num_datatypes");
    API_CHECK_PTR(combiner, MPI_COMM_WORLD, F, "combiner");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    /* the pair types are structs inside (dtype.h) but named to the user */
    *num_integers = t->predefined ? 0 : t->nints;
    *num_addresses = t->predefined ? 0 : t->naddrs;
    *num_datatypes = t->predefined ? 0 : t->ntypes;
    *combiner = t->predefined ? MPI_COMBINER_NAMED : t->combiner;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_get_envelope)

API_EXPORT int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers,
                                      int max_addresses, int max_datatypes,
                                      int array_of_integers[], MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[])
{
    API_ENTER();
    static const char *const F = "MPI_Type_get_contents";
    state_require_initialized(F);
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    if (t->predefined)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, F,
                         "%s is a named predefined datatype: it has no contents", t->name);
    if (max_integers < t->nints || max_addresses < t->naddrs || max_datatypes < t->ntypes)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "the arrays hold (%d, %d, %d) values; the type has (%d, %d, %d)",
                         max_integers, max_addresses, max_datatypes, t->nints, t->naddrs,
                         t->ntypes);
    if (t->nints)
        API_CHECK_PTR(array_of_integers, MPI_COMM_WORLD, F, "array_of_integers");
    if (t->naddrs)
        API_CHECK_PTR(array_of_addresses, MPI_COMM_WORLD, F, "array_of_addresses");
    if (t->ntypes)
        API_CHECK_PTR(array_of_datatypes, MPI_COMM_WORLD, F, "array_of_datatypes");
    /* A derived inner type comes back as a new user handle to it (MPI-3.1 §4.1.13: the user
     * frees it), which is its own handle again, as in MPICH and Open MPI. */
    for (int i = 0; i < t->ntypes; i++) {
        dtype_t *inner = dtype_lookup(t->types[i]);
        if (inner->predefined) {
            array_of_datatypes[i] = inner->handle;
        } else {
            dtype_retain(inner);
            dtype_publish(inner, &array_of_datatypes[i]);
        }
    }
    if (t->nints)
        memcpy(array_of_integers, t->ints, (size_t)t->nints * sizeof *t->ints);
    if (t->naddrs)
        memcpy(array_of_addresses, t->addrs, (size_t)t->naddrs * sizeof *t->addrs);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_get_contents)

/* ---- names ---------------------------------------------------------------------------- */

API_EXPORT int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    API_ENTER();
    static const char *const F = "MPI_Type_set_name";
    state_require_initialized(F);
    API_CHECK_PTR(type_name, MPI_COMM_WORLD, F, "type_name");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    /* longer names are truncated (MPI-3.1 §6.8) */
    size_t n = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(t->name, type_name, n);
    t->name[n] = '\0';
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_set_name)

API_EXPORT int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    API_ENTER();
    static const char *const F = "MPI_Type_get_name";
    state_require_initialized(F);
    API_CHECK_PTR(type_name, MPI_COMM_WORLD, F, "type_name");
    API_CHECK_PTR(resultlen, MPI_COMM_WORLD, F, "resultlen");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, F, "datatype");
    size_t n = strlen(t->name);
    memcpy(type_name, t->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_get_name)

/* ---- MPI_Type_match_size (MPI-3.1 §17.1.9): the C types of each class, smallest first -- */

API_EXPORT int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_match_size";
    static const MPI_Datatype reals[] = {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE};
    static const MPI_Datatype integers[] = {MPI_SIGNED_CHAR, MPI_SHORT, MPI_INT, MPI_LONG,
                                            MPI_LONG_LONG};
    static const MPI_Datatype complexes[] = {MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,
                                             MPI_C_LONG_DOUBLE_COMPLEX};
    state_require_initialized(F);
    API_CHECK_PTR(datatype, MPI_COMM_WORLD, F, "datatype");
    const MPI_Datatype *list;
    size_t n;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL:
        list = reals, n = sizeof reals / sizeof *reals;
        break;
    case MPI_TYPECLASS_INTEGER:
        list = integers, n = sizeof integers / sizeof *integers;
        break;
    case MPI_TYPECLASS_COMPLEX:
        list = complexes, n = sizeof complexes / sizeof *complexes;
        break;
    default:
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "invalid typeclass %d", typeclass);
    }
    for (size_t i = 0; i < n; i++)
        if ((int)dtype_predefined_size(list[i]) == size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                     "no predefined type of class %d has size %d", typeclass, size);
}
API_WEAK_ALIAS(Type_match_size)

/* ---- addresses (MPI-3.1 §4.1.5, §4.1.12) ---------------------------------------------- */

API_EXPORT int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    API_ENTER();
    static const char *const F = "MPI_Get_address";
    state_require_initialized(F);
    API_CHECK_PTR(address, MPI_COMM_WORLD, F, "address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Get_address)

/* Addresses are byte offsets from MPI_BOTTOM (0), so address arithmetic is integer
 * arithmetic; done in unsigned to wrap rather than overflow. */
API_EXPORT MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    API_ENTER();
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}
API_WEAK_ALIAS(Aint_add)

API_EXPORT MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    API_ENTER();
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
API_WEAK_ALIAS(Aint_diff)
