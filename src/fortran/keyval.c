/* Keyvals with Fortran callbacks (MPI-3.1 §6.7.2-6.7.4, §15.1): MPI_COMM/TYPE/WIN_
 * CREATE_KEYVAL, MPI_KEYVAL_CREATE, the attribute setters, and the predefined Fortran
 * callbacks (MPI_COMM_DUP_FN, ...).
 *
 * A Fortran copy callback is SUBROUTINE(OLD, KEYVAL, EXTRA_STATE, VALUE_IN, VALUE_OUT, FLAG,
 * IERROR), everything by reference, the values INTEGER(KIND=MPI_ADDRESS_KIND) (default
 * INTEGER for MPI-1's MPI_KEYVAL_CREATE); a delete callback SUBROUTINE(OBJ, KEYVAL, VALUE,
 * EXTRA_STATE, IERROR). The C keyval gets C trampolines and, as its extra_state, an entry of
 * the table below holding the Fortran procedures and the program's EXTRA_STATE.
 *
 * Invariants: an entry is claimed once and never reused (the core may call its callbacks
 * for attributes still set after MPI_COMM_FREE_KEYVAL), so no entry is ever freed and
 * nothing leaks; F_KEYVALS_MAX keyvals created from Fortran are the limit (MPI_ERR_OTHER,
 * naming it, beyond). An attribute value set from Fortran is stored as the pointer's bits. */
#include "fortran/fortran.h"

#include <stdio.h>

enum { F_KEYVALS_MAX = 1024 };

typedef void f_copy_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                       MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void f_delete_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra,
                         MPI_Fint *ierror);
typedef void f_copy_int_fn(MPI_Fint *old, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in,
                           MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void f_delete_int_fn(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *value,
                             MPI_Fint *extra, MPI_Fint *ierror);

typedef struct {
    f_copy_fn *copy;
    f_delete_fn *del;
    f_copy_int_fn *copy_int; /* MPI-1 (MPI_KEYVAL_CREATE): INTEGER values */
    f_delete_int_fn *del_int;
    MPI_Aint extra;
} f_keyval_t;

static f_keyval_t table[F_KEYVALS_MAX];
static int claimed;

static f_keyval_t *claim(const char *func)
{
    int i = __atomic_fetch_add(&claimed, 1, __ATOMIC_RELAXED);
    if (i < F_KEYVALS_MAX)
        return &table[i];
    fprintf(stderr, "metampi: %s: more than %d keyvals created from Fortran\n", func,
            F_KEYVALS_MAX);
    return NULL;
}

/* Communicators, datatypes and windows are all int handles: one trampoline serves the three
 * C callback types (the same function type once the typedefs are resolved). */
static int copy_trampoline(int old, int keyval, void *extra_state, void *in, void *out,
                           int *flag)
{
    const f_keyval_t *k = extra_state;
    MPI_Fint f_old = old, f_keyval = keyval, f_flag = 0, ierror = MPI_SUCCESS;
    if (k->copy_int) {
        MPI_Fint extra = (MPI_Fint)k->extra, value_in = (MPI_Fint)(MPI_Aint)in, value_out = 0;
        k->copy_int(&f_old, &f_keyval, &extra, &value_in, &value_out, &f_flag, &ierror);
        if (f_flag)
            *(void **)out = (void *)(MPI_Aint)value_out;
    } else {
        MPI_Aint extra = k->extra, value_in = (MPI_Aint)in, value_out = 0;
        k->copy(&f_old, &f_keyval, &extra, &value_in, &value_out, &f_flag, &ierror);
        if (f_flag)
            *(void **)out = (void *)value_out;
    }
    *flag = f_flag != 0;
    return ierror;
}

static int delete_trampoline(int obj, int keyval, void *value, void *extra_state)
{
    const f_keyval_t *k = extra_state;
    MPI_Fint f_obj = obj, f_keyval = keyval, ierror = MPI_SUCCESS;
    if (k->del_int) {
        MPI_Fint extra = (MPI_Fint)k->extra, f_value = (MPI_Fint)(MPI_Aint)value;
        k->del_int(&f_obj, &f_keyval, &f_value, &extra, &ierror);
    } else {
        MPI_Aint extra = k->extra, f_value = (MPI_Aint)value;
        k->del(&f_obj, &f_keyval, &f_value, &extra, &ierror);
    }
    return ierror;
}

#define CREATE_KEYVAL(lower, UPPER, Name)                                                      \
    static void lower(int profiled, f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,     \
                      MPI_Aint *extra, MPI_Fint *ierror)                                       \
    {                                                                                          \
        f_keyval_t *k = claim(#Name);                                                          \
        if (!k) {                                                                              \
            MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);                           \
            F_RETURN(ierror, MPI_ERR_OTHER);                                                   \
            return;                                                                            \
        }                                                                                      \
        k->copy = copy, k->del = del, k->extra = *extra;                                       \
        F_RETURN(ierror, P(profiled, Name)(copy_trampoline, delete_trampoline, keyval, k));   \
    }                                                                                          \
    F_EXPORT void mpi_##lower##_(f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,          \
                                 MPI_Aint *extra, MPI_Fint *ierror)                            \
    {                                                                                          \
        lower(0, copy, del, keyval, extra, ierror);                                            \
    }                                                                                          \
    F_ALIASES(mpi_##lower, MPI_##UPPER)                                                        \
    F_EXPORT void pmpi_##lower##_(f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval,         \
                                  MPI_Aint *extra, MPI_Fint *ierror)                           \
    {                                                                                          \
        lower(1, copy, del, keyval, extra, ierror);                                            \
    }                                                                                          \
    F_ALIASES(pmpi_##lower, PMPI_##UPPER)
CREATE_KEYVAL(comm_create_keyval, COMM_CREATE_KEYVAL, MPI_Comm_create_keyval)
CREATE_KEYVAL(type_create_keyval, TYPE_CREATE_KEYVAL, MPI_Type_create_keyval)
CREATE_KEYVAL(win_create_keyval, WIN_CREATE_KEYVAL, MPI_Win_create_keyval)

static void keyval_create(int profiled, f_copy_int_fn *copy, f_delete_int_fn *del,
                          MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *ierror)
{
    f_keyval_t *k = claim("MPI_Keyval_create");
    if (!k) {
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
        F_RETURN(ierror, MPI_ERR_OTHER);
        return;
    }
    k->copy_int = copy, k->del_int = del, k->extra = *extra;
    F_RETURN(ierror,
             P(profiled, MPI_Keyval_create)(copy_trampoline, delete_trampoline, keyval, k));
}
F_EXPORT void mpi_keyval_create_(f_copy_int_fn *copy, f_delete_int_fn *del, MPI_Fint *keyval,
                                 MPI_Fint *extra, MPI_Fint *ierror)
{
    keyval_create(0, copy, del, keyval, extra, ierror);
}
F_ALIASES(mpi_keyval_create, MPI_KEYVAL_CREATE)
F_EXPORT void pmpi_keyval_create_(f_copy_int_fn *copy, f_delete_int_fn *del, MPI_Fint *keyval,
                                  MPI_Fint *extra, MPI_Fint *ierror)
{
    keyval_create(1, copy, del, keyval, extra, ierror);
}
F_ALIASES(pmpi_keyval_create, PMPI_KEYVAL_CREATE)

/* ---- the setters: the value's bits become the pointer --------------------------------- */
#define SET_ATTR(lower, UPPER, Name, ValueT)                                                   \
    static void lower(int profiled, MPI_Fint *object, MPI_Fint *keyval, ValueT *value,       \
                      MPI_Fint *ierror)                                                        \
    {                                                                                          \
        F_RETURN(ierror, P(profiled, Name)(*object, *keyval, (void *)(MPI_Aint)*value));      \
    }                                                                                          \
    F_EXPORT void mpi_##lower##_(MPI_Fint *object, MPI_Fint *keyval, ValueT *value,            \
                                 MPI_Fint *ierror)                                             \
    {                                                                                          \
        lower(0, object, keyval, value, ierror);                                               \
    }                                                                                          \
    F_ALIASES(mpi_##lower, MPI_##UPPER)                                                        \
    F_EXPORT void pmpi_##lower##_(MPI_Fint *object, MPI_Fint *keyval, ValueT *value,           \
                                  MPI_Fint *ierror)                                            \
    {                                                                                          \
        lower(1, object, keyval, value, ierror);                                               \
    }                                                                                          \
    F_ALIASES(pmpi_##lower, PMPI_##UPPER)
SET_ATTR(comm_set_attr, COMM_SET_ATTR, MPI_Comm_set_attr, MPI_Aint)
SET_ATTR(type_set_attr, TYPE_SET_ATTR, MPI_Type_set_attr, MPI_Aint)
SET_ATTR(win_set_attr, WIN_SET_ATTR, MPI_Win_set_attr, MPI_Aint)
SET_ATTR(attr_put, ATTR_PUT, MPI_Attr_put, MPI_Fint)

/* ---- the predefined Fortran callbacks (lower case only: MPI_COMM_DUP_FN in upper case is
 * libmpi's C function) --------------------------------------------------------------------- */
#define F_LOWER_ALIAS(name)                                                                    \
    F_EXPORT extern __typeof__(name##_) name##__ __attribute__((alias(#name "_")));

#define NULL_COPY(name, ValueT)                                                                \
    F_EXPORT void name##_(MPI_Fint *old, MPI_Fint *keyval, ValueT *extra, ValueT *in,        \
                          ValueT *out, MPI_Fint *flag, MPI_Fint *ierror)                       \
    {                                                                                          \
        (void)old, (void)keyval, (void)extra, (void)in, (void)out;                             \
        *flag = 0;                                                                             \
        *ierror = MPI_SUCCESS;                                                                 \
    }                                                                                          \
    F_LOWER_ALIAS(name)
#define DUP(name, ValueT)                                                                      \
    F_EXPORT void name##_(MPI_Fint *old, MPI_Fint *keyval, ValueT *extra, ValueT *in,        \
                          ValueT *out, MPI_Fint *flag, MPI_Fint *ierror)                       \
    {                                                                                          \
        (void)old, (void)keyval, (void)extra;                                                  \
        *out = *in;                                                                            \
        *flag = 1;                                                                             \
        *ierror = MPI_SUCCESS;                                                                 \
    }                                                                                          \
    F_LOWER_ALIAS(name)
#define NULL_DELETE(name, ValueT)                                                              \
    F_EXPORT void name##_(MPI_Fint *obj, MPI_Fint *keyval, ValueT *value, ValueT *extra,     \
                          MPI_Fint *ierror)                                                    \
    {                                                                                          \
        (void)obj, (void)keyval, (void)value, (void)extra;                                     \
        *ierror = MPI_SUCCESS;                                                                 \
    }                                                                                          \
    F_LOWER_ALIAS(name)
NULL_COPY(mpi_comm_null_copy_fn, MPI_Aint)
DUP(mpi_comm_dup_fn, MPI_Aint)
NULL_DELETE(mpi_comm_null_delete_fn, MPI_Aint)
NULL_COPY(mpi_type_null_copy_fn, MPI_Aint)
DUP(mpi_type_dup_fn, MPI_Aint)
NULL_DELETE(mpi_type_null_delete_fn, MPI_Aint)
NULL_COPY(mpi_win_null_copy_fn, MPI_Aint)
DUP(mpi_win_dup_fn, MPI_Aint)
NULL_DELETE(mpi_win_null_delete_fn, MPI_Aint)
NULL_COPY(mpi_null_copy_fn, MPI_Fint)
DUP(mpi_dup_fn, MPI_Fint)
NULL_DELETE(mpi_null_delete_fn, MPI_Fint)
