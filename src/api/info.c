/* Info objects (MPI-3.1 §9) and MPI_INFO_ENV (§8.7.2). Info calls belong to no communicator:
 * their errors are raised on MPI_COMM_WORLD. Objects: core/info.c. */
#include "api/api.h"

#include <string.h>

#define GET_INFO(var, info, func)                                                              \
    info_t *var = info_lookup(info);                                                           \
    if (!var)                                                                                  \
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, func,                                   \
                         (info) == MPI_INFO_NULL ? "info is MPI_INFO_NULL"                     \
                                                 : "invalid info handle 0x%x",                 \
                         (unsigned)(info));

#define CHECK_PTR(ptr, func, argname) API_CHECK_PTR(ptr, MPI_COMM_WORLD, func, argname)

/* A key has 1..MPI_MAX_INFO_KEY characters. */
#define CHECK_KEY(key, func)                                                                   \
    do {                                                                                       \
        CHECK_PTR(key, func, "key");                                                           \
        size_t len_ = strnlen(key, MPI_MAX_INFO_KEY + 1);                                      \
        if (len_ == 0 || len_ > MPI_MAX_INFO_KEY)                                              \
            return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, func,                           \
                             len_ ? "key is longer than MPI_MAX_INFO_KEY (%d) characters"      \
                                  : "key is empty",                                            \
                             MPI_MAX_INFO_KEY);                                                \
    } while (0)

API_EXPORT int PMPI_Info_create(MPI_Info *info)
{
    API_ENTER();
    state_require_initialized("MPI_Info_create");
    CHECK_PTR(info, "MPI_Info_create", "info");
    info_t *i = info_copy(NULL);
    if (!i || !info_publish(i)) {
        info_destroy(i);
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Info_create",
                         "out of memory for an info object");
    }
    *info = info_handle(i);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_create)

API_EXPORT int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    API_ENTER();
    state_require_initialized("MPI_Info_set");
    GET_INFO(i, info, "MPI_Info_set");
    CHECK_KEY(key, "MPI_Info_set");
    CHECK_PTR(value, "MPI_Info_set", "value");
    if (strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, "MPI_Info_set",
                         "value is longer than MPI_MAX_INFO_VAL (%d) characters",
                         MPI_MAX_INFO_VAL);
    if (info_set(i, key, value) != 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Info_set",
                         "out of memory for an info value");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_set)

API_EXPORT int PMPI_Info_delete(MPI_Info info, const char *key)
{
    API_ENTER();
    state_require_initialized("MPI_Info_delete");
    GET_INFO(i, info, "MPI_Info_delete");
    CHECK_KEY(key, "MPI_Info_delete");
    if (info_delete(i, key) != 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, "MPI_Info_delete",
                         "key '%s' is not set", key);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_delete)

/* MPI-3.1 §9: at most valuelen characters are copied (a longer value is truncated, which is
 * not an error) and a null character follows them: value must hold valuelen + 1. */
API_EXPORT int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    API_ENTER();
    state_require_initialized("MPI_Info_get");
    GET_INFO(i, info, "MPI_Info_get");
    CHECK_KEY(key, "MPI_Info_get");
    if (valuelen < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_get", "valuelen %d is negative",
                         valuelen);
    CHECK_PTR(value, "MPI_Info_get", "value");
    CHECK_PTR(flag, "MPI_Info_get", "flag");
    const char *v = info_get(i, key);
    *flag = v != NULL;
    if (v) {
        size_t n = strlen(v);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_get)

API_EXPORT int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    API_ENTER();
    state_require_initialized("MPI_Info_get_valuelen");
    GET_INFO(i, info, "MPI_Info_get_valuelen");
    CHECK_KEY(key, "MPI_Info_get_valuelen");
    CHECK_PTR(valuelen, "MPI_Info_get_valuelen", "valuelen");
    CHECK_PTR(flag, "MPI_Info_get_valuelen", "flag");
    const char *v = info_get(i, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_get_valuelen)

/* MPI-4.0 §10: *buflen in: the size of value; out: the value's length with its terminator.
 * A value that does not fit is truncated to *buflen - 1 characters; with *buflen 0, value is
 * not touched (and may be NULL). */
API_EXPORT int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value,
                                    int *flag)
{
    API_ENTER();
    static const char *const F = "MPI_Info_get_string";
    state_require_initialized(F);
    GET_INFO(i, info, F);
    CHECK_KEY(key, F);
    CHECK_PTR(buflen, F, "buflen");
    CHECK_PTR(flag, F, "flag");
    if (*buflen < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "*buflen %d is negative", *buflen);
    if (*buflen > 0)
        CHECK_PTR(value, F, "value");
    const char *v = info_get(i, key);
    *flag = v != NULL;
    if (!v)
        return MPI_SUCCESS;
    size_t len = strlen(v);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_get_string)

API_EXPORT int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    API_ENTER();
    state_require_initialized("MPI_Info_get_nkeys");
    GET_INFO(i, info, "MPI_Info_get_nkeys");
    CHECK_PTR(nkeys, "MPI_Info_get_nkeys", "nkeys");
    *nkeys = info_nkeys(i);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_get_nkeys)

/* key must hold MPI_MAX_INFO_KEY + 1 characters. */
API_EXPORT int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    API_ENTER();
    state_require_initialized("MPI_Info_get_nthkey");
    GET_INFO(i, info, "MPI_Info_get_nthkey");
    CHECK_PTR(key, "MPI_Info_get_nthkey", "key");
    if (n < 0 || n >= info_nkeys(i))
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_get_nthkey",
                         "n = %d is not in 0..%d (the info has %d keys)", n,
                         info_nkeys(i) - 1, info_nkeys(i));
    strcpy(key, info_nthkey(i, n));
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_get_nthkey)

API_EXPORT int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    API_ENTER();
    state_require_initialized("MPI_Info_dup");
    GET_INFO(i, info, "MPI_Info_dup");
    CHECK_PTR(newinfo, "MPI_Info_dup", "newinfo");
    info_t *d = info_copy(i);
    if (!d || !info_publish(d)) {
        info_destroy(d);
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Info_dup",
                         "out of memory for an info object");
    }
    *newinfo = info_handle(d);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_dup)

API_EXPORT int PMPI_Info_free(MPI_Info *info)
{
    API_ENTER();
    state_require_initialized("MPI_Info_free");
    CHECK_PTR(info, "MPI_Info_free", "info");
    GET_INFO(i, *info, "MPI_Info_free");
    if (*info == MPI_INFO_ENV)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_INFO, "MPI_Info_free",
                         "MPI_INFO_ENV is predefined and cannot be freed");
    info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_free)

/* MPI-4.0 §11.4: a new info object with MPI_INFO_ENV's contents; the only info call allowed
 * before MPI_Init, when the job is not known yet: then it holds what the process knows about
 * itself (command, argv, wdir, arch, host), without maxprocs and thread_level. */
API_EXPORT int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    API_ENTER();
    static const char *const F = "MPI_Info_create_env";
    if (state.phase == STATE_FINALIZED)
        state_require_initialized(F); /* reports the call after MPI_Finalize */
    CHECK_PTR(info, F, "info");
    if (argc < 0)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "argc %d is negative", argc);
    if (argc > 0 && !argv)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_ARG, F, "argv is NULL with argc %d", argc);
    info_t *i = info_env_create(argc, argv);
    if (!i || !info_publish(i)) {
        info_destroy(i);
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, F, "out of memory for an info object");
    }
    *info = info_handle(i);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Info_create_env)
