/* Window properties (MPI-3.1 §11.2.6-7, §6.7.4, §8.3.2): attributes and keyvals, the
 * predefined attributes, name, group, hints and error handlers. */
#include "api/win_checks.h"

#include "core/errhandler.h"
#include "core/group.h"
#include "core/info.h"

#include <string.h>

API_EXPORT int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int keyval, void *extra_state, void *in,
                                    void *out, int *flag)
{
    (void)oldwin, (void)keyval, (void)extra_state, (void)in, (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

API_EXPORT int MPI_WIN_DUP_FN(MPI_Win oldwin, int keyval, void *extra_state, void *in,
                              void *out, int *flag)
{
    (void)oldwin, (void)keyval, (void)extra_state;
    memcpy(out, &in, sizeof in);
    *flag = 1;
    return MPI_SUCCESS;
}

API_EXPORT int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int keyval, void *value, void *extra_state)
{
    (void)win, (void)keyval, (void)value, (void)extra_state;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                                      MPI_Win_delete_attr_function *delete_fn, int *keyval,
                                      void *extra_state)
{
    API_ENTER();
    static const char *const F = "MPI_Win_create_keyval";
    state_require_initialized(F);
    API_CHECK_PTR(keyval, MPI_COMM_WORLD, F, "win_keyval");
    /* windows are never copied: the copy callback is kept only as the standard asks */
    int rc = keyval_create(ATTR_WIN, copy_fn == MPI_WIN_NULL_COPY_FN ? NULL : copy_fn,
                           delete_fn == MPI_WIN_NULL_DELETE_FN ? NULL : delete_fn,
                           extra_state, keyval);
    if (rc != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, rc, F, "out of memory for a keyval");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_create_keyval)

API_EXPORT int PMPI_Win_free_keyval(int *keyval)
{
    API_ENTER();
    static const char *const F = "MPI_Win_free_keyval";
    state_require_initialized(F);
    API_CHECK_PTR(keyval, MPI_COMM_WORLD, F, "win_keyval");
    const char *why;
    if (keyval_check(ATTR_WIN, *keyval, 0, &why) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_KEYVAL, F, "%s (0x%x)", why,
                         (unsigned)*keyval);
    keyval_free(*keyval);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_free_keyval)

#define WIN_CHECK_KEYVAL(w, keyval, freed_ok, func)                                            \
    do {                                                                                       \
        const char *why_;                                                                      \
        if (keyval_check(ATTR_WIN, keyval, freed_ok, &why_) != MPI_SUCCESS)                    \
            return win_raise(w, MPI_ERR_KEYVAL, func, "%s (0x%x)", why_, (unsigned)(keyval));  \
    } while (0)

API_EXPORT int PMPI_Win_set_attr(MPI_Win win, int keyval, void *value)
{
    API_ENTER();
    static const char *const F = "MPI_Win_set_attr";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_KEYVAL(w, keyval, 0, F);
    int rc = attr_set(ATTR_WIN, w->handle, &w->attrs, keyval, value);
    if (rc != MPI_SUCCESS)
        return win_raise(w, rc, F,
                         rc == MPI_ERR_NO_MEM ? "out of memory for an attribute"
                                              : "the delete callback of the old value failed");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_set_attr)

/* The predefined attributes (MPI-3.1 §11.2.6): MPI_WIN_BASE's value is the base itself, the
 * others' a pointer to the value (MPI_Aint for the size, int for the rest). */
API_EXPORT int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    API_ENTER();
    static const char *const F = "MPI_Win_get_attr";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, value, F, "attribute_val");
    WIN_CHECK_PTR(w, flag, F, "flag");
    void *v = NULL;
    *flag = 1;
    switch (keyval) {
    case MPI_WIN_BASE:
        v = w->base;
        break;
    case MPI_WIN_SIZE:
        v = &w->size;
        break;
    case MPI_WIN_DISP_UNIT:
        v = &w->disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        v = &w->flavor;
        break;
    case MPI_WIN_MODEL:
        v = &w->model;
        break;
    default:
        if (keyval_is_predefined(keyval))
            return win_raise(w, MPI_ERR_KEYVAL, F, "keyval 0x%x is not a window attribute",
                             (unsigned)keyval);
        WIN_CHECK_KEYVAL(w, keyval, 1, F);
        *flag = attr_get(&w->attrs, keyval, &v);
    }
    if (*flag)
        memcpy(value, &v, sizeof v);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_get_attr)

API_EXPORT int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    API_ENTER();
    static const char *const F = "MPI_Win_delete_attr";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_KEYVAL(w, keyval, 1, F);
    int rc = attr_delete(ATTR_WIN, w->handle, &w->attrs, keyval);
    if (rc != MPI_SUCCESS)
        return win_raise(w, rc, F, "the attribute's delete callback failed");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_delete_attr)

API_EXPORT int PMPI_Win_set_name(MPI_Win win, const char *name)
{
    API_ENTER();
    static const char *const F = "MPI_Win_set_name";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, name, F, "win_name");
    size_t n = strnlen(name, MPI_MAX_OBJECT_NAME);
    if (n == MPI_MAX_OBJECT_NAME)
        n = MPI_MAX_OBJECT_NAME - 1; /* truncated, as MPI-3.1 §6.8 allows */
    memcpy(w->name, name, n);
    w->name[n] = '\0';
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_set_name)

API_EXPORT int PMPI_Win_get_name(MPI_Win win, char *name, int *resultlen)
{
    API_ENTER();
    static const char *const F = "MPI_Win_get_name";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, name, F, "win_name");
    WIN_CHECK_PTR(w, resultlen, F, "resultlen");
    strcpy(name, w->name);
    *resultlen = (int)strlen(w->name);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_get_name)

API_EXPORT int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    API_ENTER();
    static const char *const F = "MPI_Win_get_group";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, group, F, "group");
    group_retain(w->comm->group);
    MPI_Group h = group_publish(w->comm->group);
    if (h == MPI_GROUP_NULL) {
        group_release(w->comm->group);
        return win_raise(w, MPI_ERR_NO_MEM, F, "out of memory for a group handle");
    }
    *group = h;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_get_group)

/* The hints are kept as given (metampi acts on none yet) and returned by MPI_Win_get_info. */
API_EXPORT int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    API_ENTER();
    static const char *const F = "MPI_Win_set_info";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    info_t *i = info_lookup(info);
    if (!i)
        return win_raise(w, MPI_ERR_INFO, F,
                         info == MPI_INFO_NULL ? "info is MPI_INFO_NULL"
                                               : "invalid info handle 0x%x",
                         (unsigned)info);
    info_t *copy = info_copy(i);
    if (!copy)
        return win_raise(w, MPI_ERR_NO_MEM, F, "out of memory for the hints");
    if (w->info)
        info_destroy(w->info);
    w->info = copy;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_set_info)

API_EXPORT int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    API_ENTER();
    static const char *const F = "MPI_Win_get_info";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, info_used, F, "info_used");
    info_t *copy = info_copy(w->info);
    if (!copy || !info_publish(copy)) {
        if (copy)
            info_destroy(copy);
        return win_raise(w, MPI_ERR_NO_MEM, F, "out of memory for an info object");
    }
    *info_used = info_handle(copy);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_get_info)

API_EXPORT int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn,
                                          MPI_Errhandler *errhandler)
{
    API_ENTER();
    static const char *const F = "MPI_Win_create_errhandler";
    state_require_initialized(F);
    API_CHECK_PTR(fn, MPI_COMM_WORLD, F, "win_errhandler_fn");
    API_CHECK_PTR(errhandler, MPI_COMM_WORLD, F, "errhandler");
    /* the handler is called with a pointer to the window's handle (an int, as MPI_Comm) */
    if (errhandler_create((errhandler_fn *)fn, errhandler) != MPI_SUCCESS)
        return err_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, F, "out of memory for an error handler");
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_create_errhandler)

API_EXPORT int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    API_ENTER();
    static const char *const F = "MPI_Win_set_errhandler";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    if (!errhandler_is_valid(errhandler))
        return win_raise(w, MPI_ERR_ARG, F,
                         errhandler == MPI_ERRHANDLER_NULL ? "error handler is MPI_ERRHANDLER_NULL"
                                                           : "invalid error handler 0x%x",
                         (unsigned)errhandler);
    errhandler_retain(errhandler);
    errhandler_release(w->errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_set_errhandler)

API_EXPORT int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    API_ENTER();
    static const char *const F = "MPI_Win_get_errhandler";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    WIN_CHECK_PTR(w, errhandler, F, "errhandler");
    errhandler_retain(w->errhandler);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_get_errhandler)

API_EXPORT int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    API_ENTER();
    static const char *const F = "MPI_Win_call_errhandler";
    state_require_initialized(F);
    API_GET_WIN(w, win, F);
    err_call_handler_on(w->errhandler, w->handle, errorcode, F);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Win_call_errhandler)
