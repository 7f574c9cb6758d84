#include "core/group.h"

#include "runtime/procs.h"
#include "util/handles.h"

#include <stdlib.h>
#include <string.h>

#define GROUP_KIND 0x08000000u
enum { EMPTY_INDEX = 1, FIRST_INDEX = 2 };

static handle_table_t table = HANDLE_TABLE_INIT(GROUP_KIND, FIRST_INDEX);
/* The predefined groups are static: empty is immortal (never counted), world and self are
 * held by their communicators for ever. */
static group_t empty, world, self;
static int my_world_rank, world_size;

void group_init(int world_rank, int size)
{
    my_world_rank = world_rank;
    world_size = size;
    empty = (group_t){ MPI_GROUP_EMPTY, 1, 0, MPI_UNDEFINED, NULL, 0 };
    world = (group_t){ MPI_GROUP_NULL, 1, size, world_rank, NULL, 0 };
    self = (group_t){ MPI_GROUP_NULL, 1, 1, 0, &my_world_rank, 0 };
    handle_set(&table, EMPTY_INDEX, &empty);
}

group_t *group_world(void)
{
    return &world;
}

group_t *group_self(void)
{
    return &self;
}

static int is_static(const group_t *g)
{
    return g == &empty || g == &world || g == &self;
}

static void drop(void *obj, void *arg)
{
    (void)arg;
    group_t *g = obj;
    if (!is_static(g)) {
        free(g->world);
        free(g);
    }
}

void group_finalize(void)
{
    handle_foreach(&table, drop, NULL);
    handle_table_destroy(&table);
}

group_t *group_lookup(MPI_Group h)
{
    return handle_get(&table, h);
}

group_t *group_empty(void)
{
    return &empty;
}

group_t *group_new(int n, const int *world_ranks)
{
    if (n == 0)
        return &empty;
    group_t *g = malloc(sizeof *g);
    int *w = malloc((size_t)n * sizeof *w);
    if (!g || !w) {
        free(g);
        free(w);
        return NULL;
    }
    memcpy(w, world_ranks, (size_t)n * sizeof *w);
    *g = (group_t){ MPI_GROUP_NULL, 1, n, MPI_UNDEFINED, w, 0 };
    for (int i = 0; i < n; i++)
        if (w[i] == my_world_rank)
            g->rank = i;
    return g;
}

void group_retain(group_t *g)
{
    if (g != &empty)
        g->refs++;
}

void group_release(group_t *g)
{
    if (g == &empty || --g->refs > 0)
        return;
    /* only dynamically created groups reach 0: world and self are held by their communicators */
    free(g->world);
    free(g);
}

MPI_Group group_publish(group_t *g)
{
    if (g == &empty)
        return MPI_GROUP_EMPTY;
    if (g->user_refs == 0) {
        int h = handle_new(&table, g);
        if (!h)
            return MPI_GROUP_NULL;
        g->handle = h;
    }
    g->user_refs++;
    return g->handle;
}

void group_unpublish(group_t *g)
{
    if (g == &empty)
        return;
    if (--g->user_refs == 0) {
        handle_release(&table, g->handle);
        g->handle = MPI_GROUP_NULL;
    }
    group_release(g);
}

int group_find(const group_t *g, int w)
{
    if (!g->world)
        return w >= 0 && w < g->size ? w : MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return MPI_UNDEFINED;
}

/* Job ranks: the world's, then the processes of other parts met so far (runtime/procs.h). */
static int job_ranks(void)
{
    int n = procs_total();
    return n > world_size ? n : world_size;
}

int *group_rank_map(const group_t *g)
{
    int n = job_ranks();
    int *map = malloc((size_t)(n > 0 ? n : 1) * sizeof *map);
    if (!map)
        return NULL;
    for (int w = 0; w < n; w++)
        map[w] = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        map[group_world_rank(g, i)] = i;
    return map;
}

int group_compare(const group_t *a, const group_t *b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < a->size && same_order; i++)
        same_order = group_world_rank(a, i) == group_world_rank(b, i);
    if (same_order)
        return MPI_IDENT;
    int *map = group_rank_map(b);
    if (!map)
        return MPI_UNEQUAL;
    int similar = 1;
    for (int i = 0; i < a->size && similar; i++)
        similar = map[group_world_rank(a, i)] != MPI_UNDEFINED;
    free(map);
    return similar ? MPI_SIMILAR : MPI_UNEQUAL;
}

group_t *group_setop(const group_t *a, const group_t *b, group_setop_t op)
{
    int *in_b = group_rank_map(b);
    int *w = malloc((size_t)(a->size + b->size + 1) * sizeof *w);
    if (!in_b || !w) {
        free(in_b);
        free(w);
        return NULL;
    }
    int n = 0;
    /* members of a in a's order, kept or dropped by membership in b */
    for (int i = 0; i < a->size; i++) {
        int x = group_world_rank(a, i);
        int member = in_b[x] != MPI_UNDEFINED;
        if (op == GROUP_UNION || (op == GROUP_INTERSECTION) == member)
            w[n++] = x;
    }
    if (op == GROUP_UNION) {
        /* then the members of b not in a, in b's order */
        int *in_a = in_b;
        for (int x = 0; x < job_ranks(); x++)
            in_a[x] = MPI_UNDEFINED;
        for (int i = 0; i < a->size; i++)
            in_a[group_world_rank(a, i)] = i;
        for (int i = 0; i < b->size; i++) {
            int x = group_world_rank(b, i);
            if (in_a[x] == MPI_UNDEFINED)
                w[n++] = x;
        }
    }
    group_t *g = group_new(n, w);
    free(in_b);
    free(w);
    return g;
}

group_t *group_incl(const group_t *g, int n, const int *ranks)
{
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (!w)
        return NULL;
    for (int i = 0; i < n; i++)
        w[i] = group_world_rank(g, ranks[i]);
    group_t *r = group_new(n, w);
    free(w);
    return r;
}

group_t *group_excl(const group_t *g, int n, const int *ranks)
{
    char *drop_it = calloc((size_t)(g->size > 0 ? g->size : 1), 1);
    int *w = malloc((size_t)(g->size > 0 ? g->size : 1) * sizeof *w);
    if (!drop_it || !w) {
        free(drop_it);
        free(w);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        drop_it[ranks[i]] = 1;
    int k = 0;
    for (int i = 0; i < g->size; i++)
        if (!drop_it[i])
            w[k++] = group_world_rank(g, i);
    group_t *r = group_new(k, w);
    free(drop_it);
    free(w);
    return r;
}
