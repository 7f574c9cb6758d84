/* Groups (MPI-3.1 §6.3): queries, set operations, selections, MPI_Comm_group. Errors on
 * groups belong to no communicator: they go to MPI_COMM_WORLD's handler. */
#include "api/api.h"

#include <stdlib.h>

#define W MPI_COMM_WORLD

/* Looks up a group argument, raising MPI_ERR_GROUP from func when it is not a group. */
#define API_GET_GROUP(var, h, func, argname)                                                   \
    group_t *var = group_lookup(h);                                                            \
    if (!var)                                                                                  \
        return err_raise(W, MPI_ERR_GROUP, func,                                               \
                         (h) == MPI_GROUP_NULL ? "%s is MPI_GROUP_NULL"                        \
                                               : "%s (0x%x) is not a valid group handle",      \
                         argname, (unsigned)(h));

/* Hands the caller's reference on g to the user as *out. */
static int give(group_t *g, MPI_Group *out, const char *func)
{
    if (!g)
        return err_raise(W, MPI_ERR_NO_MEM, func, "out of memory for a group");
    MPI_Group h = group_publish(g);
    if (h == MPI_GROUP_NULL) {
        group_release(g);
        return err_raise(W, MPI_ERR_NO_MEM, func, "out of memory for a group handle");
    }
    *out = h;
    return MPI_SUCCESS;
}

API_EXPORT int PMPI_Group_size(MPI_Group group, int *size)
{
    API_ENTER();
    static const char *const F = "MPI_Group_size";
    state_require_initialized(F);
    API_GET_GROUP(g, group, F, "group");
    API_CHECK_PTR(size, W, F, "size");
    *size = g->size;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Group_size)

API_EXPORT int PMPI_Group_rank(MPI_Group group, int *rank)
{
    API_ENTER();
    static const char *const F = "MPI_Group_rank";
    state_require_initialized(F);
    API_GET_GROUP(g, group, F, "group");
    API_CHECK_PTR(rank, W, F, "rank");
    *rank = g->rank;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Group_rank)

API_EXPORT int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                                          MPI_Group group2, int ranks2[])
{
    API_ENTER();
    static const char *const F = "MPI_Group_translate_ranks";
    state_require_initialized(F);
    API_GET_GROUP(g1, group1, F, "group1");
    API_GET_GROUP(g2, group2, F, "group2");
    if (n < 0)
        return err_raise(W, MPI_ERR_ARG, F, "negative number of ranks %d", n);
    if (n > 0) {
        API_CHECK_PTR(ranks1, W, F, "ranks1");
        API_CHECK_PTR(ranks2, W, F, "ranks2");
    }
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= g1->size))
            return err_raise(W, MPI_ERR_RANK, F,
                             "ranks1[%d] = %d is not a rank of group1 (size %d)", i, ranks1[i],
                             g1->size);
    int *map = n > 0 ? group_rank_map(g2) : NULL;
    if (n > 0 && !map)
        return err_raise(W, MPI_ERR_NO_MEM, F, "out of memory");
    for (int i = 0; i < n; i++)
        ranks2[i] = ranks1[i] == MPI_PROC_NULL ? MPI_PROC_NULL
                                               : map[group_world_rank(g1, ranks1[i])];
    free(map);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Group_translate_ranks)

API_EXPORT int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    API_ENTER();
    static const char *const F = "MPI_Group_compare";
    state_require_initialized(F);
    API_GET_GROUP(g1, group1, F, "group1");
    API_GET_GROUP(g2, group2, F, "group2");
    API_CHECK_PTR(result, W, F, "result");
    *result = group_compare(g1, g2);
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Group_compare)

static int setop(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, group_setop_t op,
                 const char *F)
{
    state_require_initialized(F);
    API_GET_GROUP(g1, group1, F, "group1");
    API_GET_GROUP(g2, group2, F, "group2");
    API_CHECK_PTR(newgroup, W, F, "newgroup");
    return give(group_setop(g1, g2, op), newgroup, F);
}

API_EXPORT int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    API_ENTER();
    return setop(group1, group2, newgroup, GROUP_UNION, "MPI_Group_union");
}
API_WEAK_ALIAS(Group_union)

API_EXPORT int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    API_ENTER();
    return setop(group1, group2, newgroup, GROUP_INTERSECTION, "MPI_Group_intersection");
}
API_WEAK_ALIAS(Group_intersection)

API_EXPORT int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    API_ENTER();
    return setop(group1, group2, newgroup, GROUP_DIFFERENCE, "MPI_Group_difference");
}
API_WEAK_ALIAS(Group_difference)

/* ranks[0..n) must be distinct ranks of g (MPI-3.1 §6.3.2): MPI_ERR_RANK for one outside
 * the group, MPI_ERR_ARG for a repeated one. */
static int check_ranks(const group_t *g, int n, const int ranks[], const char *F)
{
    if (n < 0)
        return err_raise(W, MPI_ERR_ARG, F, "negative number of ranks %d", n);
    if (n > g->size)
        return err_raise(W, MPI_ERR_ARG, F, "%d ranks given for a group of size %d", n, g->size);
    if (n == 0)
        return MPI_SUCCESS;
    API_CHECK_PTR(ranks, W, F, "ranks");
    char *seen = calloc((size_t)g->size, 1);
    if (!seen)
        return err_raise(W, MPI_ERR_NO_MEM, F, "out of memory");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            rc = err_raise(W, MPI_ERR_RANK, F, "ranks[%d] = %d is not a rank of the group (size %d)",
                           i, ranks[i], g->size);
        else if (seen[ranks[i]]++)
            rc = err_raise(W, MPI_ERR_ARG, F, "rank %d appears twice in ranks", ranks[i]);
    }
    free(seen);
    return rc;
}

API_EXPORT int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    API_ENTER();
    static const char *const F = "MPI_Group_incl";
    state_require_initialized(F);
    API_GET_GROUP(g, group, F, "group");
    API_CHECK_PTR(newgroup, W, F, "newgroup");
    int rc = check_ranks(g, n, ranks, F);
    if (rc != MPI_SUCCESS)
        return rc;
    return give(group_incl(g, n, ranks), newgroup, F);
}
API_WEAK_ALIAS(Group_incl)

API_EXPORT int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    API_ENTER();
    static const char *const F = "MPI_Group_excl";
    state_require_initialized(F);
    API_GET_GROUP(g, group, F, "group");
    API_CHECK_PTR(newgroup, W, F, "newgroup");
    int rc = check_ranks(g, n, ranks, F);
    if (rc != MPI_SUCCESS)
        return rc;
    return give(group_excl(g, n, ranks), newgroup, F);
}
API_WEAK_ALIAS(Group_excl)

/* The ranks the triplets of ranges name, in order, into a new array (*out, *count): each
 * triplet (first, last, stride) names first, first + stride, ... up to last, with stride != 0
 * pointing from first towards last; every rank must be in g, and distinct (MPI-3.1 §6.3.2).
 * Problems raise MPI_ERR_ARG, as MPICH does. */
static int expand_ranges(const group_t *g, int n, int ranges[][3], int **out, int *count,
                         const char *F)
{
    if (n < 0)
        return err_raise(W, MPI_ERR_ARG, F, "negative number of ranges %d", n);
    *out = NULL;
    *count = 0;
    if (n == 0)
        return MPI_SUCCESS;
    API_CHECK_PTR(ranges, W, F, "ranges");
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return err_raise(W, MPI_ERR_ARG, F, "ranges[%d] has stride 0", i);
        if (first < 0 || first >= g->size || last < 0 || last >= g->size)
            return err_raise(W, MPI_ERR_ARG, F,
                             "ranges[%d] = (%d, %d, %d) names ranks outside the group (size %d)",
                             i, first, last, stride, g->size);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return err_raise(W, MPI_ERR_ARG, F,
                             "ranges[%d] = (%d, %d, %d): the stride points away from last", i,
                             first, last, stride);
        total += ((long)last - first) / stride + 1;
        if (total > g->size)
            return err_raise(W, MPI_ERR_ARG, F, "the ranges name a rank twice");
    }
    int *r = malloc((size_t)total * sizeof *r);
    char *seen = calloc((size_t)g->size, 1);
    if (!r || !seen) {
        free(r);
        free(seen);
        return err_raise(W, MPI_ERR_NO_MEM, F, "out of memory");
    }
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        for (long x = first; stride > 0 ? x <= last : x >= last; x += stride) {
            if (seen[x]++) {
                free(r);
                free(seen);
                return err_raise(W, MPI_ERR_ARG, F, "the ranges name rank %ld twice", x);
            }
            r[k++] = (int)x;
        }
    }
    free(seen);
    *out = r;
    *count = k;
    return MPI_SUCCESS;
}

static int range_select(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup, int incl,
                        const char *F)
{
    state_require_initialized(F);
    API_GET_GROUP(g, group, F, "group");
    API_CHECK_PTR(newgroup, W, F, "newgroup");
    int *ranks, count;
    int rc = expand_ranges(g, n, ranges, &ranks, &count, F);
    if (rc != MPI_SUCCESS)
        return rc;
    group_t *r = incl ? group_incl(g, count, ranks) : group_excl(g, count, ranks);
    free(ranks);
    return give(r, newgroup, F);
}

API_EXPORT int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3],
                                     MPI_Group *newgroup)
{
    API_ENTER();
    return range_select(group, n, ranges, newgroup, 1, "MPI_Group_range_incl");
}
API_WEAK_ALIAS(Group_range_incl)

API_EXPORT int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3],
                                     MPI_Group *newgroup)
{
    API_ENTER();
    return range_select(group, n, ranges, newgroup, 0, "MPI_Group_range_excl");
}
API_WEAK_ALIAS(Group_range_excl)

API_EXPORT int PMPI_Group_free(MPI_Group *group)
{
    API_ENTER();
    static const char *const F = "MPI_Group_free";
    state_require_initialized(F);
    API_CHECK_PTR(group, W, F, "group");
    API_GET_GROUP(g, *group, F, "group");
    group_unpublish(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
API_WEAK_ALIAS(Group_free)

API_EXPORT int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    API_ENTER();
    static const char *const F = "MPI_Comm_group";
    state_require_initialized(F);
    API_GET_COMM_LOCAL(c, comm, F);
    API_CHECK_PTR(group, comm, F, "group");
    group_retain(c->group);
    return give(c->group, group, F);
}
API_WEAK_ALIAS(Comm_group)
