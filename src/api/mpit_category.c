/* Categories (MPI-3.1 §14.3.8): the control variables grouped by the layer or program that
 * reads them (the registry's reader bits), and the performance variables by subject. No
 * category nests another; the set never changes. */
#include "api/api.h"
#include "api/mpit.h"

#include <string.h>

static const struct {
    const char *name, *desc;
} categories[MPIT_CATEGORIES] = {
    /* in the order of enum tun_reader's bits (runtime/tunables.h) */
    { "runtime", "start-up, job layout and the connection to mpirun" },
    { "transport", "shared memory, TCP and gateway transports" },
    { "protocol", "eager and rendezvous protocols" },
    { "core", "requests, matching and progress" },
    { "collectives", "collective operations: algorithms and their selection" },
    { "mpirun", "the launcher and its helpers on every host" },
    { "gateway", "the gateways between sites" },
    { "rendezvous", "the rendezvous service that joins the parts of a federated job" },
    { "wrappers", "the compiler wrappers mpicc and mpicxx" },
    [MPIT_CAT_TRAFFIC] = { "traffic", "messages and bytes sent, per level of the machine" },
    [MPIT_CAT_MATCHING] = { "matching", "the posted-receive and unexpected-message queues" },
};

static int count_in(int cat, int cvars, int len, int indices[])
{
    int n = 0, total = cvars ? mpit_cvar_count() : mpit_pvar_count();
    for (int i = 0; i < total; i++)
        if ((cvars ? mpit_cvar_category(i) : mpit_pvar_category(i)) == cat) {
            if (indices && n < len)
                indices[n] = i;
            n++;
        }
    return n;
}

API_EXPORT int PMPI_T_category_get_num(int *num_cat)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cat)
        return mpit_leave(MPI_T_ERR_INVALID);
    *num_cat = MPIT_CATEGORIES;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_category_get_num)

API_EXPORT int PMPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                                        int *desc_len, int *num_cvars, int *num_pvars,
                                        int *num_categories)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= MPIT_CATEGORIES)
        return mpit_leave(MPI_T_ERR_INVALID_INDEX);
    mpit_copy_string(categories[cat_index].name, name, name_len);
    mpit_copy_string(categories[cat_index].desc, desc, desc_len);
    if (num_cvars)
        *num_cvars = count_in(cat_index, 1, 0, NULL);
    if (num_pvars)
        *num_pvars = count_in(cat_index, 0, 0, NULL);
    if (num_categories)
        *num_categories = 0;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_category_get_info)

API_EXPORT int PMPI_T_category_get_index(const char *name, int *cat_index)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cat_index)
        return mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < MPIT_CATEGORIES; i++)
        if (!strcmp(categories[i].name, name)) {
            *cat_index = i;
            return mpit_leave(MPI_SUCCESS);
        }
    return mpit_leave(MPI_T_ERR_INVALID_NAME);
}
API_WEAK_ALIAS(T_category_get_index)

static int get_members(int cat_index, int len, int indices[], int cvars)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= MPIT_CATEGORIES)
        return mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (len < 0 || (len > 0 && !indices))
        return mpit_leave(MPI_T_ERR_INVALID);
    count_in(cat_index, cvars, len, indices);
    return mpit_leave(MPI_SUCCESS);
}

API_EXPORT int PMPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 1);
}
API_WEAK_ALIAS(T_category_get_cvars)

API_EXPORT int PMPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    return get_members(cat_index, len, indices, 0);
}
API_WEAK_ALIAS(T_category_get_pvars)

API_EXPORT int PMPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    (void)indices; /* no category has subcategories */
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (cat_index < 0 || cat_index >= MPIT_CATEGORIES)
        return mpit_leave(MPI_T_ERR_INVALID_INDEX);
    return mpit_leave(len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS);
}
API_WEAK_ALIAS(T_category_get_categories)

API_EXPORT int PMPI_T_category_changed(int *stamp)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!stamp)
        return mpit_leave(MPI_T_ERR_INVALID);
    *stamp = 0; /* the categories never change */
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_category_changed)
