/* Control variables (MPI-3.1 §14.3.6) and their enumerations (§14.3.5): one per entry of the
 * tunables registry, secrets excepted. Values are the registry's (read once, cached for the
 * life of the process), so every variable has scope MPI_T_SCOPE_READONLY: readable any time,
 * never writable. */
#include "api/api.h"
#include "api/mpit.h"
#include "runtime/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mpit_enum {
    char name[96];
    int n;
    char **items; /* item k has value k: the registry's index in .choices */
};

struct mpit_cvar_handle {
    int index;
    struct mpit_cvar_handle *next;
};

static int ids[TUN_COUNT], nids = -1;     /* cvar index -> tun id */
static struct mpit_enum *enums[TUN_COUNT]; /* by tun id, built at first use */
static struct mpit_cvar_handle *handles;

static void list_ids(void)
{
    if (nids >= 0)
        return;
    nids = 0;
    for (int id = 0; id < TUN_COUNT; id++)
        if (tun_info((tun_id_t)id)->type != TUN_SECRET)
            ids[nids++] = id;
}

int mpit_cvar_count(void)
{
    list_ids();
    return nids;
}

int mpit_cvar_tunable(int i)
{
    list_ids();
    return ids[i];
}

/* The lowest reader bit names the category (api/mpit_category.c lists them in bit order). */
int mpit_cvar_category(int i)
{
    unsigned r = tun_info((tun_id_t)mpit_cvar_tunable(i))->readers;
    int bit = 0;
    while (r && !(r & 1u)) {
        r >>= 1;
        bit++;
    }
    return bit;
}

static int valid_index(int i)
{
    return i >= 0 && i < mpit_cvar_count();
}

static MPI_Datatype type_of(const tun_info_t *t)
{
    switch (t->type) {
    case TUN_SIZE:
    case TUN_POW2:
    case TUN_TIME:
        return MPI_UNSIGNED_LONG_LONG;
    case TUN_STRING:
        return MPI_CHAR;
    default:
        return MPI_INT;
    }
}

static int verbosity_of(const tun_info_t *t)
{
    switch (t->kind) {
    case TUN_SETTING:
        return MPI_T_VERBOSITY_USER_BASIC;
    case TUN_DIAGNOSTIC:
        return MPI_T_VERBOSITY_USER_DETAIL;
    case TUN_TESTING:
        return MPI_T_VERBOSITY_MPIDEV_ALL;
    default:
        return MPI_T_VERBOSITY_MPIDEV_DETAIL;
    }
}

/* The enumeration of an ENUM entry (NULL when out of memory). */
static struct mpit_enum *enum_of(int id)
{
    if (enums[id])
        return enums[id];
    const tun_info_t *t = tun_info((tun_id_t)id);
    struct mpit_enum *e = calloc(1, sizeof *e);
    char *copy = strdup(t->choices);
    int n = 1;
    for (const char *c = t->choices; *c; c++)
        n += *c == ',';
    if (e)
        e->items = calloc((size_t)n, sizeof *e->items);
    if (!e || !copy || !e->items) {
        free(copy);
        if (e)
            free(e->items);
        free(e);
        return NULL;
    }
    snprintf(e->name, sizeof e->name, "%s", t->name);
    char *save = NULL;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
        e->items[e->n++] = strdup(w);
    free(copy);
    for (int k = 0; k < e->n; k++)
        if (!e->items[k]) {
            while (e->n > 0)
                free(e->items[--e->n]);
            free(e->items);
            free(e);
            return NULL;
        }
    return enums[id] = e;
}

static int valid_enum(MPI_T_enum e)
{
    if (!e)
        return 0;
    for (int id = 0; id < TUN_COUNT; id++)
        if (enums[id] == e)
            return 1;
    return 0;
}

void mpit_cvar_release(void)
{
    while (handles) {
        struct mpit_cvar_handle *h = handles;
        handles = h->next;
        free(h);
    }
    for (int id = 0; id < TUN_COUNT; id++)
        if (enums[id]) {
            for (int k = 0; k < enums[id]->n; k++)
                free(enums[id]->items[k]);
            free(enums[id]->items);
            free(enums[id]);
            enums[id] = NULL;
        }
}

API_EXPORT int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valid_enum(enumtype))
        return mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!num)
        return mpit_leave(MPI_T_ERR_INVALID);
    *num = enumtype->n;
    mpit_copy_string(enumtype->name, name, name_len);
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_enum_get_info)

API_EXPORT int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name,
                                    int *name_len)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valid_enum(enumtype))
        return mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (index < 0 || index >= enumtype->n)
        return mpit_leave(MPI_T_ERR_INVALID_ITEM);
    if (!value)
        return mpit_leave(MPI_T_ERR_INVALID);
    *value = index;
    mpit_copy_string(enumtype->items[index], name, name_len);
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_enum_get_item)

API_EXPORT int PMPI_T_cvar_get_num(int *num_cvar)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_cvar)
        return mpit_leave(MPI_T_ERR_INVALID);
    *num_cvar = mpit_cvar_count();
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_cvar_get_num)

API_EXPORT int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                                    MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                                    int *desc_len, int *bind, int *scope)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valid_index(cvar_index))
        return mpit_leave(MPI_T_ERR_INVALID_INDEX);
    int id = mpit_cvar_tunable(cvar_index);
    const tun_info_t *t = tun_info((tun_id_t)id);
    if (enumtype) {
        *enumtype = MPI_T_ENUM_NULL;
        if (t->type == TUN_ENUM && !(*enumtype = enum_of(id)))
            return mpit_leave(MPI_T_ERR_MEMORY);
    }
    mpit_copy_string(t->name, name, name_len);
    if (verbosity)
        *verbosity = verbosity_of(t);
    if (datatype)
        *datatype = type_of(t);
    if (desc_len) {
        char d[1024];
        snprintf(d, sizeof d, "%s%s%s%s", t->doc, t->unit ? " (" : "", t->unit ? t->unit : "",
                 t->unit ? ")" : "");
        mpit_copy_string(d, desc, desc_len);
    }
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = MPI_T_SCOPE_READONLY;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_cvar_get_info)

API_EXPORT int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!name || !cvar_index)
        return mpit_leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < mpit_cvar_count(); i++)
        if (!strcmp(tun_info((tun_id_t)mpit_cvar_tunable(i))->name, name)) {
            *cvar_index = i;
            return mpit_leave(MPI_SUCCESS);
        }
    return mpit_leave(MPI_T_ERR_INVALID_NAME);
}
API_WEAK_ALIAS(T_cvar_get_index)

/* The value's element count: the text with its terminator for strings, else 1. */
static int count_of(int id)
{
    if (tun_info((tun_id_t)id)->type != TUN_STRING)
        return 1;
    const char *v = tun_string((tun_id_t)id);
    return v ? (int)strlen(v) + 1 : 1;
}

API_EXPORT int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle,
                                        MPI_T_cvar_handle *handle, int *count)
{
    (void)obj_handle; /* every variable is bound to no object */
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valid_index(cvar_index))
        return mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return mpit_leave(MPI_T_ERR_INVALID);
    int id = mpit_cvar_tunable(cvar_index);
    char err[256];
    if (tun_check((tun_id_t)id, err, sizeof err) != 0)
        return mpit_leave(MPI_T_ERR_INVALID); /* a bad value in the environment */
    struct mpit_cvar_handle *h = malloc(sizeof *h);
    if (!h)
        return mpit_leave(MPI_T_ERR_MEMORY);
    *h = (struct mpit_cvar_handle){ cvar_index, handles };
    handles = h;
    *handle = h;
    *count = count_of(id);
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_cvar_handle_alloc)

/* The live handle h, unlinked when unlink is set; NULL when h is not one. */
static struct mpit_cvar_handle *find_handle(MPI_T_cvar_handle h, int unlink)
{
    for (struct mpit_cvar_handle **pp = &handles; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            if (unlink)
                *pp = h->next;
            return h;
        }
    return NULL;
}

API_EXPORT int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!handle)
        return mpit_leave(MPI_T_ERR_INVALID);
    struct mpit_cvar_handle *h = find_handle(*handle, 1);
    if (!h)
        return mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    free(h);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_cvar_handle_free)

API_EXPORT int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    struct mpit_cvar_handle *h = find_handle(handle, 0);
    if (!h)
        return mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return mpit_leave(MPI_T_ERR_INVALID);
    tun_id_t id = (tun_id_t)mpit_cvar_tunable(h->index);
    switch (tun_info(id)->type) {
    case TUN_BOOL:
        *(int *)buf = tun_bool(id);
        break;
    case TUN_INT:
        *(int *)buf = tun_int(id);
        break;
    case TUN_ENUM:
        *(int *)buf = tun_enum(id);
        break;
    case TUN_SIZE:
    case TUN_POW2:
        *(unsigned long long *)buf = tun_size(id);
        break;
    case TUN_TIME:
        *(unsigned long long *)buf = tun_time(id);
        break;
    default: {
        /* the text cannot change after handle_alloc measured it (the registry caches it) */
        const char *v = tun_string(id);
        strcpy(buf, v ? v : "");
    }
    }
    return mpit_leave(MPI_SUCCESS);
}
API_WEAK_ALIAS(T_cvar_read)

API_EXPORT int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    int rc = mpit_enter();
    if (rc != MPI_SUCCESS)
        return rc;
    if (!find_handle(handle, 0))
        return mpit_leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return mpit_leave(MPI_T_ERR_INVALID);
    /* scope MPI_T_SCOPE_READONLY: the registry's values are fixed for the process */
    return mpit_leave(MPI_T_ERR_CVAR_SET_NEVER);
}
API_WEAK_ALIAS(T_cvar_write)
