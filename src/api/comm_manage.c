/* Communicator accessors (MPI-3.1 §6.4.1, §6.4.4, §6.6.1, §6.8): compare, names, hints,
 * inter-communicator queries. */
#include "api/api.h"

#include <string.h>

static int congruence(int group_result)
{
    return group_result == MPI_IDENT ? MPI_CONGRUENT : group_result;
}

API_EXPORT int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_compare";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(a, comm1, F);
    API_GET_COMM_LOCAL(b, comm2, F);
    API_CHECK_PTR(result, comm1, F, "result");
    if (a == b)
        *result = MPI_IDENT;
    else if (comm_is_inter(a) != comm_is_inter(b))
        *result = MPI_UNEQUAL;
    else if (!comm_is_inter(a))
        *result = congruence(group_compare(a->group, b->group));
    else {
        /* both groups must match: identical in order gives congruent, as sets similar */
        int l = group_compare(a->group, b->group);
        int r = group_compare(a->remote_group, b->remote_group);
        *result = l == MPI_UNEQUAL || r == MPI_UNEQUAL ? MPI_UNEQUAL
                  : l == MPI_IDENT && r == MPI_IDENT   ? MPI_CONGRUENT
                                                        : MPI_SIMILAR;
    }
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_compare)

/* Names longer than MPI_MAX_OBJECT_NAME - 1 characters are truncated. */
API_EXPORT int PMPI_Comm_set_name(MPI_Comm comm, const char *comm_name)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_set_name";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(comm_name, comm, F, "comm_name");
    size_t n = strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(c->name, comm_name, n);
    c->name[n] = '\0';
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_set_name)

API_EXPORT int PMPI_Comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_get_name";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(comm_name, comm, F, "comm_name");
    API_CHECK_PTR(resultlen, comm, F, "resultlen");
    size_t n = strlen(c->name);
    memcpy(comm_name, c->name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_get_name)

/* The hints are kept as given (metampi acts on none yet) and returned by MPI_Comm_get_info. */
API_EXPORT int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_set_info";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    info_t *i = info_lookup(info);
    if (!i)
        return err_raise(comm, MPI_ERR_INFO, F,
                         info == MPI_INFO_NULL ? "info is MPI_INFO_NULL"
                                               : "invalid info handle 0x%x",
                         (unsigned)info);
    info_t *copy = info_copy(i);
    if (!copy)
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory for the hints");
    if (c->info)
        info_destroy(c->info);
    c->info = copy;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_set_info)

API_EXPORT int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_get_info";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(info_used, comm, F, "info_used");
    info_t *copy = info_copy(c->info);
    if (!copy || !info_publish(copy)) {
        if (copy)
            info_destroy(copy);
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory for an info object");
    }
    *info_used = info_handle(copy);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_get_info)

API_EXPORT int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_test_inter";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(flag, comm, F, "flag");
    *flag = comm_is_inter(c);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_test_inter)

#define API_GET_INTER_LOCAL(var, comm, func)                                                   \
    API_GET_COMM_LOCAL(var, comm, func);                                                       \
    if (!comm_is_inter(var))                                                                   \
        return err_raise(comm, MPI_ERR_COMM, func, "comm is not an inter-communicator");

API_EXPORT int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_remote_size";
    state_require_initialized(F);
    API_GET_INTER_LOCAL(c, comm, F);
    API_CHECK_PTR(size, comm, F, "size");
    *size = c->remote_group->size;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_remote_size)

API_EXPORT int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_remote_group";
    state_require_initialized(F);
    API_GET_INTER_LOCAL(c, comm, F);
    API_CHECK_PTR(group, comm, F, "group");
    group_retain(c->remote_group);
    MPI_Group h = group_publish(c->remote_group);
    if (h == MPI_GROUP_NULL) {
        group_release(c->remote_group);
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory for a group handle");
    }
    *group = h;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_remote_group)
