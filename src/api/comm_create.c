/* Communicator constructors and destructor (MPI-3.1 §6.4.2, §6.4.3): dup (with info,
 * nonblocking), create, create_group, split, split_type, free. Objects: core/comm.c and
 * core/comm_create.c. */
#include "api/api.h"

#include "core/match.h"
#include "core/request.h"

#include <stdlib.h>
#include <string.h>

/* An info argument: MPI_INFO_NULL (*out = NULL) or a valid info object. */
static int get_info(MPI_Comm comm, MPI_Info info, info_t **out, const char *F)
{
    *out = NULL;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (!(*out = info_lookup(info)))
        return err_raise(comm, MPI_ERR_INFO, F, "invalid info handle 0x%x", (unsigned)info);
    return MPI_SUCCESS;
}

#define API_GET_GROUP(var, h, comm, func)                                                      \
    group_t *var = group_lookup(h);                                                            \
    if (!var)                                                                                  \
        return err_raise(comm, MPI_ERR_GROUP, func,                                            \
                         (h) == MPI_GROUP_NULL ? "group is MPI_GROUP_NULL"                     \
                                               : "invalid group handle 0x%x",                  \
                         (unsigned)(h));

/* Reports a failed collective construction (rc from core/comm_create.c). */
static int creation_failed(MPI_Comm comm, int rc, const char *F)
{
    if (rc == MPI_ERR_NOT_SAME)
        return err_raise(comm, rc, F, "the members called collective operations in different "
                                      "orders: %s", match_last_clash());
    return err_raise(comm, rc, F, "%s",
                     rc == MPI_ERR_NO_MEM ? "out of memory for the new communicator"
                     : rc == MPI_ERR_OTHER ? "no context id is free at every member (too many "
                                             "communicators exist)"
                     : rc == MPI_ERR_INTERN ? "the members did not agree on a context id (do "
                                              "they all call this constructor with the same "
                                              "group, in the same order?)"
                                            : "internal communication failed");
}

/* The result of a construction: the new handle, or MPI_COMM_NULL. */
static int hand_out(MPI_Comm comm, int rc, comm_t *n, MPI_Comm *newcomm, const char *F)
{
    if (rc != MPI_SUCCESS)
        return creation_failed(comm, rc, F);
    *newcomm = n ? n->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* Replaces n's hints by a copy of hints (NULL: none); MPI_SUCCESS or MPI_ERR_NO_MEM. */
static int set_hints(comm_t *n, const info_t *hints)
{
    info_t *copy = hints ? info_copy(hints) : NULL;
    if (hints && !copy)
        return MPI_ERR_NO_MEM;
    if (n->info)
        info_destroy(n->info);
    n->info = copy;
    return MPI_SUCCESS;
}

/* MPI_Comm_dup and MPI_Comm_dup_with_info: a new context, the same groups and topology;
 * the attributes whose copy callbacks ask for it; the parent's hints or info's. */
static int dup(MPI_Comm comm, int with_info, MPI_Info info, MPI_Comm *newcomm, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    info_t *hints = NULL;
    if (with_info) {
        int rc = get_info(comm, info, &hints, F);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    comm_t *n;
    int rc = comm_dup(c, &n);
    if (rc != MPI_SUCCESS)
        return creation_failed(comm, rc, F);
    if (with_info && set_hints(n, hints) != MPI_SUCCESS) {
        comm_free_handle(n);
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory for the hints");
    }
    rc = attr_copy_all(ATTR_COMM, comm, &c->attrs, &n->attrs);
    if (rc != MPI_SUCCESS) {
        comm_free_handle(n);
        *newcomm = MPI_COMM_NULL;
        return err_raise(comm, rc, F, "an attribute copy callback failed (error %d)", rc);
    }
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup(comm, 0, MPI_INFO_NULL, newcomm, "MPI_Comm_dup");
}
API_WEAK_ALIAS(Comm_dup)

API_EXPORT int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return dup(comm, 1, info, newcomm, "MPI_Comm_dup_with_info");
}
API_WEAK_ALIAS(Comm_dup_with_info)

static void idup_done(int err, void *arg)
{
    request_complete_internal(arg, err);
}

/* MPI_Comm_idup and MPI_Comm_idup_with_info (MPI-4.0): the new handle is returned at once; it
 * becomes usable when the request completes. The attributes are copied now (MPI-3.1 §6.4.2:
 * as MPI_Comm_dup does), and so are the hints. */
static int idup(MPI_Comm comm, int with_info, MPI_Info info, MPI_Comm *newcomm,
                MPI_Request *request, const char *F)
{
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    API_CHECK_PTR(request, comm, F, "request");
    info_t *hints = NULL;
    if (with_info) {
        int rc = get_info(comm, info, &hints, F);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    request_t *r = request_new(REQ_COLL, c);
    if (!r)
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory for a request");
    r->active = 1;
    comm_t *n;
    int rc = comm_idup(c, &n, idup_done, r);
    if (rc != MPI_SUCCESS) {
        request_free(r);
        return creation_failed(comm, rc, F);
    }
    *newcomm = n->handle;
    *request = r->handle;
    /* the request completes even when a copy fails: the others take part */
    if (with_info && set_hints(n, hints) != MPI_SUCCESS)
        return err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory for the hints");
    rc = attr_copy_all(ATTR_COMM, comm, &c->attrs, &n->attrs);
    if (rc != MPI_SUCCESS)
        return err_raise(comm, rc, F, "an attribute copy callback failed (error %d)", rc);
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup(comm, 0, MPI_INFO_NULL, newcomm, request, "MPI_Comm_idup");
}
API_WEAK_ALIAS(Comm_idup)

API_EXPORT int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                                        MPI_Request *request)
{
    return idup(comm, 1, info, newcomm, request, "MPI_Comm_idup_with_info");
}
API_WEAK_ALIAS(Comm_idup_with_info)

/* Nonzero when every member of g is in c's local group. */
static int is_subgroup(const group_t *g, const comm_t *c, int *ok)
{
    int *map = group_rank_map(c->group);
    *ok = map != NULL;
    if (!map)
        return 0;
    int sub = 1;
    for (int i = 0; i < g->size && sub; i++)
        sub = map[group_world_rank(g, i)] != MPI_UNDEFINED;
    free(map);
    return sub;
}

static int check_subgroup(MPI_Comm comm, const group_t *g, const comm_t *c, const char *F)
{
    int ok;
    if (!is_subgroup(g, c, &ok))
        return ok ? err_raise(comm, MPI_ERR_GROUP, F,
                              "group is not a subgroup of the communicator's group")
                  : err_raise(comm, MPI_ERR_NO_MEM, F, "out of memory");
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char *const F = "MPI_Comm_create";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_GET_GROUP(g, group, comm, F);
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    int rc = check_subgroup(comm, g, c, F);
    if (rc != MPI_SUCCESS)
        return rc;
    comm_t *n;
    rc = comm_create(c, g, &n);
    return hand_out(comm, rc, n, newcomm, F);
}
API_WEAK_ALIAS(Comm_create)

API_EXPORT int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char *const F = "MPI_Comm_create_group";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_GET_GROUP(g, group, comm, F);
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    if (comm_is_inter(c))
        return err_raise(comm, MPI_ERR_COMM, F, "comm is an inter-communicator");
    if (tag < 0)
        return err_raise(comm, MPI_ERR_TAG, F, "invalid tag %d (tags are 0..MPI_TAG_UB)", tag);
    int rc = check_subgroup(comm, g, c, F);
    if (rc != MPI_SUCCESS)
        return rc;
    /* collective over group: a process outside it takes no part and gets MPI_COMM_NULL */
    if (g->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    comm_t *n;
    rc = comm_create_group(c, g, tag, &n);
    return hand_out(comm, rc, n, newcomm, F);
}
API_WEAK_ALIAS(Comm_create_group)

API_EXPORT int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    static const char *const F = "MPI_Comm_split";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    if (color < 0 && color != MPI_UNDEFINED)
        return err_raise(comm, MPI_ERR_ARG, F,
                         "invalid color %d (colors are >= 0 or MPI_UNDEFINED)", color);
    comm_t *n;
    int rc = comm_split(c, color, key, &n);
    return hand_out(comm, rc, n, newcomm, F);
}
API_WEAK_ALIAS(Comm_split)

API_EXPORT int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                    MPI_Comm *newcomm)
{
    static const char *const F = "MPI_Comm_split_type";
    state_require_initialized(F);
    API_GET_COMM(c, comm, F);
    API_CHECK_PTR(newcomm, comm, F, "newcomm");
    info_t *hints;
    int rc = get_info(comm, info, &hints, F);
    if (rc != MPI_SUCCESS)
        return rc;
    comm_t *n;
    if (split_type == MPI_COMM_TYPE_SHARED)
        rc = comm_split_shared(c, key, &n);
    else if (split_type == METAMPI_COMM_TYPE_SITE)
        rc = comm_split_site(c, key, &n);
    else if (split_type == MPI_UNDEFINED)
        rc = comm_split(c, MPI_UNDEFINED, key, &n);
    else
        return err_raise(comm, MPI_ERR_ARG, F,
                         "invalid split_type %d (MPI_COMM_TYPE_SHARED, METAMPI_COMM_TYPE_SITE "
                         "or MPI_UNDEFINED)", split_type);
    return hand_out(comm, rc, n, newcomm, F);
}
API_WEAK_ALIAS(Comm_split_type)

/* MPI-3.1 §6.4.3: the attributes' delete callbacks run now; operations still pending on the
 * communicator complete normally (they hold references, see comm.h). */
API_EXPORT int PMPI_Comm_free(MPI_Comm *comm)
{
    static const char *const F = "MPI_Comm_free";
    state_require_initialized(F);
    API_CHECK_PTR(comm, MPI_COMM_WORLD, F, "comm");
    API_GET_COMM(c, *comm, F);
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return err_raise(*comm, MPI_ERR_COMM, F, "%s cannot be freed", c->name);
    int rc = attr_delete_all(ATTR_COMM, *comm, &c->attrs);
    if (rc != MPI_SUCCESS)
        return err_raise(*comm, rc, F, "an attribute delete callback failed (error %d)", rc);
    comm_free_handle(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Comm_free)
