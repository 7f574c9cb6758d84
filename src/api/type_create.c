/* Datatype constructors (MPI-3.1 §4.1.2, §4.1.7, MPI_Type_dup of §6.7.4 is here too). */
#include "api/type_common.h"

#include "datatype/predefined.h"

#include <stdio.h>
#include <string.h>

int raise_bad_type(MPI_Comm comm, MPI_Datatype h, const char *func, const char *argname)
{
    if (h == MPI_DATATYPE_NULL)
        return err_raise(comm, MPI_ERR_TYPE, func, "%s is MPI_DATATYPE_NULL", argname);
    return err_raise(comm, MPI_ERR_TYPE, func,
                     "%s 0x%x is not a datatype (invalid or freed handle)", argname,
                     (unsigned)h);
}

int raise_construct(int rc, const char *func)
{
    if (rc == MPI_ERR_NO_MEM)
        return err_raise(MPI_COMM_WORLD, rc, func, "out of memory");
    return err_raise(MPI_COMM_WORLD, rc, func,
                     "the new type's bounds or size do not fit in MPI_Aint/MPI_Count");
}

int type_finish(dtype_t *t, MPI_Datatype *newtype, const char *func)
{
    int rc = dtype_derive(t);
    if (rc != MPI_SUCCESS) {
        dtype_release(t);
        return raise_construct(rc, func);
    }
    dtype_publish(t, newtype);
    return MPI_SUCCESS;
}

/* A new object for the envelope sizes, or the raised error in *rc. */
static dtype_t *alloc(int nints, int naddrs, int ntypes, int combiner, int *rc,
                      const char *func)
{
    dtype_t *t = dtype_alloc(nints, naddrs, ntypes);
    if (!t)
        *rc = raise_construct(MPI_ERR_NO_MEM, func);
    else
        t->combiner = combiner;
    return t;
}

static int check_count(int count, const char *func)
{
    if (count < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, func, "negative count %d", count);
    return MPI_SUCCESS;
}

static int check_blocklength(int bl, const char *func, const char *what, int i)
{
    if (bl < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, func, "negative %s[%d] = %d", what, i, bl);
    return MPI_SUCCESS;
}

/* The checks every constructor with a count starts with. */
#define CHECK_COMMON(F, count, newtype)                                                        \
    state_require_initialized(F);                                                              \
    API_CHECK_PTR(newtype, MPI_COMM_WORLD, F, "newtype");                                      \
    if (check_count(count, F) != MPI_SUCCESS)                                                  \
        return MPI_ERR_COUNT;

API_EXPORT int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_contiguous";
    CHECK_COMMON(F, count, newtype);
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    int rc;
    dtype_t *t = alloc(1, 0, 1, MPI_COMBINER_CONTIGUOUS, &rc, F);
    if (!t)
        return rc;
    t->ints[0] = count;
    dtype_set_type(t, 0, old);
    return type_finish(t, newtype, F);
}
API_WEAK_ALIAS(Type_contiguous)

static int vector(int count, int blocklength, MPI_Aint stride, int in_bytes,
                  MPI_Datatype oldtype, MPI_Datatype *newtype, const char *F)
{
    CHECK_COMMON(F, count, newtype);
    if (check_blocklength(blocklength, F, "blocklength", 0) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    int rc;
    dtype_t *t = in_bytes ? alloc(2, 1, 1, MPI_COMBINER_HVECTOR, &rc, F)
                          : alloc(3, 0, 1, MPI_COMBINER_VECTOR, &rc, F);
    if (!t)
        return rc;
    t->ints[0] = count;
    t->ints[1] = blocklength;
    if (in_bytes)
        t->addrs[0] = stride;
    else
        t->ints[2] = (int)stride;
    dtype_set_type(t, 0, old);
    return type_finish(t, newtype, F);
}

API_EXPORT int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    API_ENTER();
    return vector(count, blocklength, stride, 0, oldtype, newtype, "MPI_Type_vector");
}
API_WEAK_ALIAS(Type_vector)

API_EXPORT int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    return vector(count, blocklength, stride, 1, oldtype, newtype, "MPI_Type_create_hvector");
}
API_WEAK_ALIAS(Type_create_hvector)

/* indexed / hindexed: ints {count, bl[]} then int displacements (indexed) or addrs. */
static int indexed(int count, const int *bls, const int *idisps, const MPI_Aint *adisps,
                   int in_bytes, MPI_Datatype oldtype, MPI_Datatype *newtype, const char *F)
{
    CHECK_COMMON(F, count, newtype);
    if (count > 0) {
        API_CHECK_PTR(bls, MPI_COMM_WORLD, F, "array_of_blocklengths");
        API_CHECK_PTR(in_bytes ? (const void *)adisps : (const void *)idisps, MPI_COMM_WORLD,
                      F, "array_of_displacements");
    }
    for (int i = 0; i < count; i++)
        if (check_blocklength(bls[i], F, "array_of_blocklengths", i) != MPI_SUCCESS)
            return MPI_ERR_ARG;
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    int rc;
    dtype_t *t = in_bytes ? alloc(1 + count, count, 1, MPI_COMBINER_HINDEXED, &rc, F)
                          : alloc(1 + 2 * count, 0, 1, MPI_COMBINER_INDEXED, &rc, F);
    if (!t)
        return rc;
    t->ints[0] = count;
    if (count > 0) {
        memcpy(t->ints + 1, bls, (size_t)count * sizeof *bls);
        if (!in_bytes)
            memcpy(t->ints + 1 + count, idisps, (size_t)count * sizeof *idisps);
        else
            memcpy(t->addrs, adisps, (size_t)count * sizeof *adisps);
    }
    dtype_set_type(t, 0, old);
    return type_finish(t, newtype, F);
}

API_EXPORT int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype *newtype)
{
    API_ENTER();
    return indexed(count, array_of_blocklengths, array_of_displacements, NULL, 0, oldtype,
                   newtype, "MPI_Type_indexed");
}
API_WEAK_ALIAS(Type_indexed)

API_EXPORT int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    return indexed(count, array_of_blocklengths, NULL, array_of_displacements, 1, oldtype,
                   newtype, "MPI_Type_create_hindexed");
}
API_WEAK_ALIAS(Type_create_hindexed)

/* indexed_block / hindexed_block: ints {count, blocklength} then int displacements or addrs */
static int indexed_block(int count, int blocklength, const int *idisps,
                         const MPI_Aint *adisps, int in_bytes, MPI_Datatype oldtype,
                         MPI_Datatype *newtype, const char *F)
{
    CHECK_COMMON(F, count, newtype);
    if (count > 0)
        API_CHECK_PTR(in_bytes ? (const void *)adisps : (const void *)idisps, MPI_COMM_WORLD,
                      F, "array_of_displacements");
    if (check_blocklength(blocklength, F, "blocklength", 0) != MPI_SUCCESS)
        return MPI_ERR_ARG;
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    int rc;
    dtype_t *t = in_bytes ? alloc(2, count, 1, MPI_COMBINER_HINDEXED_BLOCK, &rc, F)
                          : alloc(2 + count, 0, 1, MPI_COMBINER_INDEXED_BLOCK, &rc, F);
    if (!t)
        return rc;
    t->ints[0] = count;
    t->ints[1] = blocklength;
    if (count > 0) {
        if (!in_bytes)
            memcpy(t->ints + 2, idisps, (size_t)count * sizeof *idisps);
        else
            memcpy(t->addrs, adisps, (size_t)count * sizeof *adisps);
    }
    dtype_set_type(t, 0, old);
    return type_finish(t, newtype, F);
}

API_EXPORT int PMPI_Type_create_indexed_block(int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    return indexed_block(count, blocklength, array_of_displacements, NULL, 0, oldtype, newtype,
                         "MPI_Type_create_indexed_block");
}
API_WEAK_ALIAS(Type_create_indexed_block)

API_EXPORT int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    return indexed_block(count, blocklength, NULL, array_of_displacements, 1, oldtype, newtype,
                         "MPI_Type_create_hindexed_block");
}
API_WEAK_ALIAS(Type_create_hindexed_block)

API_EXPORT int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[],
                                       MPI_Datatype *newtype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_create_struct";
    CHECK_COMMON(F, count, newtype);
    if (count > 0) {
        API_CHECK_PTR(array_of_blocklengths, MPI_COMM_WORLD, F, "array_of_blocklengths");
        API_CHECK_PTR(array_of_displacements, MPI_COMM_WORLD, F, "array_of_displacements");
        API_CHECK_PTR(array_of_types, MPI_COMM_WORLD, F, "array_of_types");
    }
    for (int i = 0; i < count; i++) {
        if (check_blocklength(array_of_blocklengths[i], F, "array_of_blocklengths", i) !=
            MPI_SUCCESS)
            return MPI_ERR_ARG;
        if (!dtype_lookup_user(array_of_types[i])) {
            char arg[32];
            snprintf(arg, sizeof arg, "array_of_types[%d]", i);
            return raise_bad_type(MPI_COMM_WORLD, array_of_types[i], F, arg);
        }
    }
    int rc;
    dtype_t *t = alloc(1 + count, count, count, MPI_COMBINER_STRUCT, &rc, F);
    if (!t)
        return rc;
    t->ints[0] = count;
    if (count > 0) {
        memcpy(t->ints + 1, array_of_blocklengths, (size_t)count * sizeof(int));
        memcpy(t->addrs, array_of_displacements, (size_t)count * sizeof(MPI_Aint));
    }
    for (int i = 0; i < count; i++)
        dtype_set_type(t, i, dtype_lookup_user(array_of_types[i]));
    return type_finish(t, newtype, F);
}
API_WEAK_ALIAS(Type_create_struct)

API_EXPORT int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype *newtype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_create_resized";
    state_require_initialized(F);
    API_CHECK_PTR(newtype, MPI_COMM_WORLD, F, "newtype");
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    int rc;
    dtype_t *t = alloc(0, 2, 1, MPI_COMBINER_RESIZED, &rc, F);
    if (!t)
        return rc;
    t->addrs[0] = lb;
    t->addrs[1] = extent;
    dtype_set_type(t, 0, old);
    return type_finish(t, newtype, F);
}
API_WEAK_ALIAS(Type_create_resized)

/* MPI-3.1 §4.1.10: same typemap, same committed state, copied attributes; the name is not
 * copied (as for communicators). */
API_EXPORT int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    API_ENTER();
    static const char *const F = "MPI_Type_dup";
    state_require_initialized(F);
    API_CHECK_PTR(newtype, MPI_COMM_WORLD, F, "newtype");
    API_GET_TYPE(old, oldtype, MPI_COMM_WORLD, F, "oldtype");
    dtype_t *t;
    int rc = dtype_create_alias(old, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old, &t);
    if (rc != MPI_SUCCESS)
        return raise_construct(rc, F);
    if (old->committed && (rc = dtype_commit(t)) != MPI_SUCCESS) {
        dtype_release(t);
        return raise_construct(rc, F);
    }
    rc = attr_copy_all(ATTR_TYPE, oldtype, &old->attrs, &t->attrs);
    if (rc != MPI_SUCCESS) {
        dtype_release(t);
        return err_raise(MPI_COMM_WORLD, rc, F, "an attribute copy callback failed");
    }
    dtype_publish(t, newtype);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_dup)
