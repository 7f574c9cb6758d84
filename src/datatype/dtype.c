/*
 * Datatype objects: the handle table, lookup, reference counts, the predefined objects, and
 * publishing/unpublishing user handles.
 *
 * Invariants:
 *  - basics[i] is the object of the single-element predefined type with basic index i; it is
 *    static, never freed (its layout is compiled by dtype_init, freed by dtype_finalize).
 *  - The derived-kind handle table reserves indices 1..DTYPE_NPAIRS for the pair types;
 *    their objects (and the structs behind them) live from dtype_init to dtype_finalize.
 *  - Every derived object has a handle in the table from dtype_alloc until it is destroyed
 *    (refs 0); user_refs <= refs counts the references that are the user's handles.
 */
#include "datatype/dtype.h"

#include "datatype/compile.h"
#include "datatype/construct.h"
#include "datatype/predefined.h"
#include "util/handles.h"

#include <stdlib.h>
#include <string.h>

static handle_table_t table = HANDLE_TABLE_INIT(0x0c000000u, DTYPE_NPAIRS + 1);
static dtype_attr_delete_fn *delete_attrs;
static dtype_t basics[DTYPE_NBASIC + 1];
static dtype_t *pairs[DTYPE_NPAIRS];

dtype_t *dtype_lookup(MPI_Datatype h)
{
    unsigned u = (unsigned)h;
    if ((u & DTYPE_PREDEFINED_MASK) == DTYPE_PREDEFINED_TAG)
        return dtype_is_predefined(h) ? &basics[u & 0xffu] : NULL;
    return handle_get(&table, h);
}

dtype_t *dtype_lookup_user(MPI_Datatype h)
{
    dtype_t *t = dtype_lookup(h);
    return t && (t->predefined || t->user_refs > 0) ? t : NULL;
}

void dtype_retain(dtype_t *t)
{
    if (!t->predefined)
        atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
}

static void destroy(dtype_t *t)
{
    if (t->attrs && delete_attrs)
        delete_attrs(t->handle, &t->attrs);
    if (t->layout)
        dt_layout_free(t->layout);
    for (int i = 0; t->types && i < t->ntypes; i++) {
        dtype_t *inner = dtype_lookup(t->types[i]); /* NULL: never filled */
        if (inner)
            dtype_release(inner);
    }
    if (t->equiv)
        dtype_release(t->equiv);
    if (t->handle != MPI_DATATYPE_NULL)
        handle_release(&table, t->handle);
    free(t->ints);
    free(t->addrs);
    free(t->types);
    free(t);
}

void dtype_release(dtype_t *t)
{
    if (t->predefined)
        return;
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1)
        destroy(t);
}

dtype_t *dtype_alloc(int nints, int naddrs, int ntypes)
{
    dtype_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    atomic_init(&t->refs, 1);
    t->basic = -1;
    t->nints = nints;
    t->naddrs = naddrs;
    t->ntypes = ntypes;
    t->ints = nints ? malloc((size_t)nints * sizeof *t->ints) : NULL;
    t->addrs = naddrs ? malloc((size_t)naddrs * sizeof *t->addrs) : NULL;
    t->types = ntypes ? calloc((size_t)ntypes, sizeof *t->types) : NULL;
    t->handle = handle_new(&table, t);
    if ((nints && !t->ints) || (naddrs && !t->addrs) || (ntypes && !t->types) || !t->handle) {
        destroy(t);
        return NULL;
    }
    return t;
}

/* Compiles t (committed or being committed) into its layout: 0, or -1 when out of memory. */
static int compile(dtype_t *t)
{
    dt_layout_t *l = dt_compile_tree(t, dtype_lookup);
    if (!l)
        return -1;
    dt_layout_free(t->layout);
    t->layout = l;
    return 0;
}

int dtype_commit(dtype_t *t)
{
    if (!t->layout && compile(t) != 0)
        return MPI_ERR_NO_MEM;
    t->committed = 1;
    return MPI_SUCCESS;
}

const dt_layout_t *dtype_layout(dtype_t *t)
{
    if (!t->layout && compile(t) != 0)
        return NULL;
    return t->layout;
}

void dtype_publish(dtype_t *t, MPI_Datatype *handle)
{
    t->user_refs++;
    *handle = t->handle;
}

int dtype_unpublish(dtype_t *t)
{
    if (t->user_refs == 1 && t->attrs && delete_attrs) {
        int rc = delete_attrs(t->handle, &t->attrs);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    t->user_refs--;
    dtype_release(t);
    return MPI_SUCCESS;
}

static void init_basic(int i)
{
    const dtype_basic_info_t *b = dtype_basic(i);
    dtype_t *t = &basics[i];
    memset(t, 0, sizeof *t);
    t->handle = b->handle;
    atomic_init(&t->refs, 1);
    t->committed = 1;
    t->predefined = 1;
    t->size = (MPI_Count)dtype_predefined_size(b->handle);
    t->ub = t->true_ub = (MPI_Aint)t->size;
    t->align = b->align;
    t->nelems = 1;
    t->ext32_size = b->ext32_size;
    t->basic = i;
    t->combiner = MPI_COMBINER_NAMED;
    strcpy(t->name, b->name);
}

/* A pair type: the struct {first at 0, index at int_disp}, whose padding to the largest
 * alignment gives the C struct's size (checked by the unit test), moved to its reserved
 * handle. */
static int init_pair(int i)
{
    const dtype_pair_info_t *p = &dtype_pairs[i];
    dtype_t *types[2] = {dtype_lookup(p->first), dtype_lookup(p->index)};
    const int bl[2] = {1, 1};
    const MPI_Aint disps[2] = {0, p->int_disp};
    dtype_t *t;
    if (dtype_struct(2, bl, disps, types, &t) != MPI_SUCCESS)
        return -1;
    handle_release(&table, t->handle);
    t->handle = p->handle;
    t->predefined = 1;
    strcpy(t->name, p->name);
    pairs[i] = t;
    if (handle_set(&table, (int)((unsigned)p->handle & HANDLE_INDEX_MASK), t) != 0)
        return -1;
    return dtype_commit(t) == MPI_SUCCESS ? 0 : -1;
}

int dtype_init(dtype_attr_delete_fn *delete_attrs_fn)
{
    delete_attrs = delete_attrs_fn;
    dtype_conv_register();
    for (int i = 1; i <= DTYPE_NBASIC; i++) {
        init_basic(i);
        if (dtype_commit(&basics[i]) != MPI_SUCCESS)
            return -1;
    }
    for (int i = 0; i < DTYPE_NPAIRS; i++)
        if (init_pair(i) != 0)
            return -1;
    return 0;
}

/* Pair objects are predefined (release is a no-op on them), so they are destroyed here
 * directly; their structs go with them. Derived types the program did not free stay
 * allocated, as their handles do in other implementations. */
void dtype_finalize(void)
{
    for (int i = 0; i < DTYPE_NPAIRS; i++)
        if (pairs[i]) {
            destroy(pairs[i]);
            pairs[i] = NULL;
        }
    for (int i = 1; i <= DTYPE_NBASIC; i++)
        if (basics[i].layout) {
            dt_layout_free(basics[i].layout);
            basics[i].layout = NULL;
        }
    handle_table_destroy(&table);
}
