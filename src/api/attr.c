/* Attribute caching on communicators and datatypes (MPI-3.1 §6.7) and the predefined
 * attributes of §8.1.2, with the deprecated MPI-1 names (§15.1). Keyvals and lists:
 * core/attr.c. */
#include "api/api.h"
#include "api/type_common.h"

#include "core/p2p.h"
#include "runtime/job.h"

#include <limits.h>

/* ---- predefined callbacks ------------------------------------------------------------------- */

static int null_copy(int oldobj, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    (void)oldobj, (void)keyval, (void)extra_state, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static int dup_copy(int oldobj, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    (void)oldobj, (void)keyval, (void)extra_state;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int null_delete(int obj, int keyval, void *value, void *extra_state)
{
    (void)obj, (void)keyval, (void)value, (void)extra_state;
    return MPI_SUCCESS;
}

#define COPY_CALLBACK(name, impl)                                                              \
    API_EXPORT int name(int oldobj, int keyval, void *extra_state, void *in, void *out,         \
                        int *flag)                                                             \
    {                                                                                          \
        return impl(oldobj, keyval, extra_state, in, out, flag);                               \
    }
#define DELETE_CALLBACK(name)                                                                  \
    API_EXPORT int name(int obj, int keyval, void *value, void *extra_state)                   \
    {                                                                                          \
        return null_delete(obj, keyval, value, extra_state);                                   \
    }

COPY_CALLBACK(MPI_COMM_NULL_COPY_FN, null_copy)
COPY_CALLBACK(MPI_COMM_DUP_FN, dup_copy)
DELETE_CALLBACK(MPI_COMM_NULL_DELETE_FN)
COPY_CALLBACK(MPI_TYPE_NULL_COPY_FN, null_copy)
COPY_CALLBACK(MPI_TYPE_DUP_FN, dup_copy)
DELETE_CALLBACK(MPI_TYPE_NULL_DELETE_FN)
COPY_CALLBACK(MPI_NULL_COPY_FN, null_copy)
COPY_CALLBACK(MPI_DUP_FN, dup_copy)
DELETE_CALLBACK(MPI_NULL_DELETE_FN)

/* The core runs no callback for NULL: the null functions (or NULL, as some codes pass) are
 * stored as NULL, so objects with only such attributes copy and free without calls. */
static attr_copy_fn *copy_callback(attr_copy_fn *fn)
{
    return fn == MPI_COMM_NULL_COPY_FN || fn == MPI_TYPE_NULL_COPY_FN || fn == MPI_NULL_COPY_FN
               ? NULL
               : fn;
}

static attr_delete_fn *delete_callback(attr_delete_fn *fn)
{
    return fn == MPI_COMM_NULL_DELETE_FN || fn == MPI_TYPE_NULL_DELETE_FN ||
                   fn == MPI_NULL_DELETE_FN
               ? NULL
               : fn;
}

/* ---- the shared bodies (for the MPI-2 and the deprecated MPI-1 names) --------------------- */

static int create_keyval(attr_kind_t kind, attr_copy_fn *copy, attr_delete_fn *del, int *keyval,
                         void *extra_state, const char *func)
{
    state_require_initialized(func);
    API_CHECK_PTR(keyval, MPI_COMM_WORLD, func, "keyval");
    int rc = keyval_create(kind, copy_callback(copy), delete_callback(del), extra_state, keyval);
    if (rc != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, rc, func, "out of memory for a keyval");
    return MPI_SUCCESS;
}

static int free_keyval(attr_kind_t kind, int *keyval, const char *func)
{
    state_require_initialized(func);
    API_CHECK_PTR(keyval, MPI_COMM_WORLD, func, "keyval");
    const char *why;
    if (keyval_check(kind, *keyval, 0, &why) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, func, "%s (0x%x)", why,
                         (unsigned)*keyval);
    keyval_free(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

#define CHECK_KEYVAL(comm, kind, keyval, freed_ok, func)                                       \
    do {                                                                                       \
        const char *why_;                                                                      \
        if (keyval_check(kind, keyval, freed_ok, &why_) != MPI_SUCCESS)                        \
            return err_raise(comm, MPI_ERR_KEYVAL, func, "%s (0x%x)", why_,                    \
                             (unsigned)(keyval));                                              \
    } while (0)

static int comm_set_attr(MPI_Comm comm, int keyval, void *value, const char *func)
{
    state_require_initialized(func);
    API_GET_COMM_LOCAL(c, comm, func);
    CHECK_KEYVAL(comm, ATTR_COMM, keyval, 0, func);
    int rc = attr_set(ATTR_COMM, c->handle, &c->attrs, keyval, value);
    if (rc != MPI_SUCCESS)
        return err_raise(comm, rc, func,
                         rc == MPI_ERR_NO_MEM ? "out of memory for an attribute"
                                              : "the delete callback of the old value failed");
    return MPI_SUCCESS;
}

/* Values of the predefined attributes. MPI-3.1 §8.1.2 caches them on MPI_COMM_WORLD; like
 * MPICH we answer them on every communicator, because programs ask their own (MPI_TAG_UB).
 * The attribute value is a pointer to an int. */
static int tag_ub = INT_MAX;
static int host = MPI_PROC_NULL;     /* no process is distinguished as the host */
static int io = MPI_ANY_SOURCE;      /* every process can do I/O */
static int wtime_is_global = 0;      /* clocks of different ranks are not synchronised */
static int universe_size, appnum, site;

static int *predefined_value(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB: return &tag_ub;
    case MPI_HOST: return &host;
    case MPI_IO: return &io;
    case MPI_WTIME_IS_GLOBAL: return &wtime_is_global;
    case MPI_UNIVERSE_SIZE:
        /* absent when the process manager does not know it (MPI-3.1 §10.5.1) */
        universe_size = job.universe_size;
        return universe_size > 0 ? &universe_size : NULL;
    case MPI_LASTUSEDCODE: return err_last_used_code();
    case MPI_APPNUM: appnum = job.appnum; return &appnum;
    case METAMPI_SITE: site = p2p_site_of(job.rank); return &site;
    default: return NULL;
    }
}

static int comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag, const char *func)
{
    state_require_initialized(func);
    API_GET_COMM_LOCAL(c, comm, func);
    API_CHECK_PTR(value, comm, func, "attribute_val");
    API_CHECK_PTR(flag, comm, func, "flag");
    if (keyval_is_predefined(keyval)) {
        int *v = predefined_value(keyval);
        if (v)
            *(int **)value = v;
        *flag = v != NULL;
        return MPI_SUCCESS;
    }
    CHECK_KEYVAL(comm, ATTR_COMM, keyval, 1, func);
    void *v;
    *flag = attr_get(&c->attrs, keyval, &v);
    if (*flag)
        *(void **)value = v;
    return MPI_SUCCESS;
}

static int comm_delete_attr(MPI_Comm comm, int keyval, const char *func)
{
    state_require_initialized(func);
    API_GET_COMM_LOCAL(c, comm, func);
    CHECK_KEYVAL(comm, ATTR_COMM, keyval, 1, func);
    int rc = attr_delete(ATTR_COMM, c->handle, &c->attrs, keyval);
    if (rc != MPI_SUCCESS)
        return err_raise(comm, rc, func, "the delete callback of the attribute failed");
    return MPI_SUCCESS;
}

/* ---- communicator attributes -------------------------------------------------------------- */

API_EXPORT int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                       MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                       int *comm_keyval, void *extra_state)
{
    API_ENTER();
    return create_keyval(ATTR_COMM, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                         extra_state, "MPI_Comm_create_keyval");
}
API_WEAK_ALIAS(Comm_create_keyval)

API_EXPORT int PMPI_Comm_free_keyval(int *comm_keyval)
{
    API_ENTER();
    return free_keyval(ATTR_COMM, comm_keyval, "MPI_Comm_free_keyval");
}
API_WEAK_ALIAS(Comm_free_keyval)

API_EXPORT int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    API_ENTER();
    return comm_set_attr(comm, comm_keyval, attribute_val, "MPI_Comm_set_attr");
}
API_WEAK_ALIAS(Comm_set_attr)

API_EXPORT int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    API_ENTER();
    return comm_get_attr(comm, comm_keyval, attribute_val, flag, "MPI_Comm_get_attr");
}
API_WEAK_ALIAS(Comm_get_attr)

API_EXPORT int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    API_ENTER();
    return comm_delete_attr(comm, comm_keyval, "MPI_Comm_delete_attr");
}
API_WEAK_ALIAS(Comm_delete_attr)

/* ---- deprecated MPI-1 names ------------------------------------------------------------------ */

API_EXPORT int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                                  int *keyval, void *extra_state)
{
    API_ENTER();
    return create_keyval(ATTR_COMM, copy_fn, delete_fn, keyval, extra_state,
                         "MPI_Keyval_create");
}
API_WEAK_ALIAS(Keyval_create)

API_EXPORT int PMPI_Keyval_free(int *keyval)
{
    API_ENTER();
    return free_keyval(ATTR_COMM, keyval, "MPI_Keyval_free");
}
API_WEAK_ALIAS(Keyval_free)

API_EXPORT int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    API_ENTER();
    return comm_set_attr(comm, keyval, attribute_val, "MPI_Attr_put");
}
API_WEAK_ALIAS(Attr_put)

API_EXPORT int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    API_ENTER();
    return comm_get_attr(comm, keyval, attribute_val, flag, "MPI_Attr_get");
}
API_WEAK_ALIAS(Attr_get)

API_EXPORT int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    API_ENTER();
    return comm_delete_attr(comm, keyval, "MPI_Attr_delete");
}
API_WEAK_ALIAS(Attr_delete)

/* ---- datatype attributes (MPI-3.1 §6.7.4); errors belong to no communicator ------------- */

API_EXPORT int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                                       MPI_Type_delete_attr_function *type_delete_attr_fn,
                                       int *type_keyval, void *extra_state)
{
    API_ENTER();
    return create_keyval(ATTR_TYPE, type_copy_attr_fn, type_delete_attr_fn, type_keyval,
                         extra_state, "MPI_Type_create_keyval");
}
API_WEAK_ALIAS(Type_create_keyval)

API_EXPORT int PMPI_Type_free_keyval(int *type_keyval)
{
    API_ENTER();
    return free_keyval(ATTR_TYPE, type_keyval, "MPI_Type_free_keyval");
}
API_WEAK_ALIAS(Type_free_keyval)

API_EXPORT int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    API_ENTER();
    state_require_initialized("MPI_Type_set_attr");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, "MPI_Type_set_attr", "datatype");
    CHECK_KEYVAL(MPI_COMM_WORLD, ATTR_TYPE, type_keyval, 0, "MPI_Type_set_attr");
    int rc = attr_set(ATTR_TYPE, t->handle, &t->attrs, type_keyval, attribute_val);
    if (rc != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, rc, "MPI_Type_set_attr",
                         rc == MPI_ERR_NO_MEM ? "out of memory for an attribute"
                                              : "the delete callback of the old value failed");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_set_attr)

API_EXPORT int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                                  int *flag)
{
    API_ENTER();
    state_require_initialized("MPI_Type_get_attr");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, "MPI_Type_get_attr", "datatype");
    API_CHECK_PTR(attribute_val, MPI_COMM_WORLD, "MPI_Type_get_attr", "attribute_val");
    API_CHECK_PTR(flag, MPI_COMM_WORLD, "MPI_Type_get_attr", "flag");
    CHECK_KEYVAL(MPI_COMM_WORLD, ATTR_TYPE, type_keyval, 1, "MPI_Type_get_attr");
    void *v;
    *flag = attr_get(&t->attrs, type_keyval, &v);
    if (*flag)
        *(void **)attribute_val = v;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_get_attr)

API_EXPORT int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    API_ENTER();
    state_require_initialized("MPI_Type_delete_attr");
    API_GET_TYPE(t, datatype, MPI_COMM_WORLD, "MPI_Type_delete_attr", "datatype");
    CHECK_KEYVAL(MPI_COMM_WORLD, ATTR_TYPE, type_keyval, 1, "MPI_Type_delete_attr");
    int rc = attr_delete(ATTR_TYPE, t->handle, &t->attrs, type_keyval);
    if (rc != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, rc, "MPI_Type_delete_attr",
                         "the delete callback of the attribute failed");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Type_delete_attr)
