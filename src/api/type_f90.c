/* MPI_Type_create_f90_integer/real/complex (MPI-3.1 §17.1.9): the datatype of a Fortran
 * variable of KIND selected_int_kind(r) / selected_real_kind(p, r), as gfortran chooses the
 * kinds.
 *
 * Invariants:
 *  - The answer has the typemap of the predefined type of that kind (MPI_INTEGERn, MPI_REALn,
 *    MPI_COMPLEXn; gfortran's REAL(10) is C's long double) and the envelope the standard
 *    asks for: combiner MPI_COMBINER_F90_INTEGER/REAL/COMPLEX with the integers (r) or
 *    (p, r) of the call, no addresses, no types.
 *  - One call with the same arguments returns the same handle (a cache); the cache holds a
 *    user reference of its own, so a program's MPI_Type_free of it never frees it, and
 *    MPI_Finalize drops every reference left (type_f90_finalize). */
#include "api/type_common.h"

#include "datatype/construct.h"

enum { F90_CACHE_MAX = 32 };

static struct {
    int combiner, p, r;
    MPI_Datatype handle;
} cache[F90_CACHE_MAX];
static int cached;

/* The predefined type of the kind gfortran's selected_*_kind chooses, or MPI_DATATYPE_NULL
 * when it has none (selected_*_kind < 0). MPI_UNDEFINED stands for an omitted argument. */
static MPI_Datatype gfortran_kind(int combiner, int p, int r)
{
    if (p == MPI_UNDEFINED)
        p = 0;
    if (r == MPI_UNDEFINED)
        r = 0;
    if (combiner == MPI_COMBINER_F90_INTEGER)
        return r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2 : r <= 9 ? MPI_INTEGER4
             : r <= 18 ? MPI_INTEGER8 : MPI_DATATYPE_NULL;
    int complex = combiner == MPI_COMBINER_F90_COMPLEX;
    if (p <= 6 && r <= 37)
        return complex ? MPI_COMPLEX8 : MPI_REAL4;
    if (p <= 15 && r <= 307)
        return complex ? MPI_COMPLEX16 : MPI_REAL8;
    if (p <= 18 && r <= 4931) /* REAL(10): the x87 80-bit type, C's long double */
        return complex ? MPI_C_LONG_DOUBLE_COMPLEX : MPI_LONG_DOUBLE;
    if (p <= 33 && r <= 4931)
        return complex ? MPI_COMPLEX32 : MPI_REAL16;
    return MPI_DATATYPE_NULL;
}

static int create_f90(int combiner, int p, int r, MPI_Datatype *newtype, const char *F)
{
    state_require_initialized(F);
    API_CHECK_PTR(newtype, MPI_COMM_WORLD, F, "newtype");
    if (combiner != MPI_COMBINER_F90_INTEGER && p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "p and r are both MPI_UNDEFINED (one of them must be given)");
    if (p < 0 && p != MPI_UNDEFINED)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "negative p %d", p);
    if (r < 0 && r != MPI_UNDEFINED)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "negative r %d", r);
    for (int i = 0; i < cached; i++)
        if (cache[i].combiner == combiner && cache[i].p == p && cache[i].r == r) {
            dtype_t *t = dtype_lookup(cache[i].handle);
            dtype_retain(t);
            dtype_publish(t, newtype);
            return MPI_SUCCESS;
        }
    MPI_Datatype kind = gfortran_kind(combiner, p, r);
    if (kind == MPI_DATATYPE_NULL)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F,
                         "gfortran has no kind with precision %d and range %d", p, r);
    if (cached == F90_CACHE_MAX)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INTERN, F,
                         "more than %d different (p, r) pairs asked for", F90_CACHE_MAX);
    const int ints[2] = {combiner == MPI_COMBINER_F90_INTEGER ? r : p, r};
    int nints = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    dtype_t *t;
    int rc = dtype_create_alias(dtype_lookup(kind), combiner, nints, ints, 0, NULL, 0, NULL, &t);
    if (rc == MPI_SUCCESS && (rc = dtype_commit(t)) != MPI_SUCCESS)
        dtype_release(t);
    if (rc != MPI_SUCCESS)
        return raise_construct(rc, F);
    dtype_publish(t, &cache[cached].handle);
    cache[cached].combiner = combiner;
    cache[cached].p = p;
    cache[cached].r = r;
    cached++;
    dtype_retain(t);
    dtype_publish(t, newtype);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    API_ENTER();
    return create_f90(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, newtype,
                      "MPI_Type_create_f90_integer");
}
API_WEAK_ALIAS(Type_create_f90_integer)

API_EXPORT int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    API_ENTER();
    return create_f90(MPI_COMBINER_F90_REAL, p, r, newtype, "MPI_Type_create_f90_real");
}
API_WEAK_ALIAS(Type_create_f90_real)

API_EXPORT int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    API_ENTER();
    return create_f90(MPI_COMBINER_F90_COMPLEX, p, r, newtype, "MPI_Type_create_f90_complex");
}
API_WEAK_ALIAS(Type_create_f90_complex)

void type_f90_finalize(void)
{
    for (int i = 0; i < cached; i++) {
        dtype_t *t = dtype_lookup(cache[i].handle);
        /* the last unpublish destroys t: count first */
        for (int n = t ? t->user_refs : 0; n > 0; n--)
            dtype_unpublish(t);
    }
    cached = 0;
}
