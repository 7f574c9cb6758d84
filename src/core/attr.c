#include "core/attr.h"

#include "core/comm.h"
#include "core/lock.h"
#include "util/handles.h"

#include <stdlib.h>

#define KEYVAL_KIND 0x2c000000u

typedef struct keyval {
    int handle;
    attr_kind_t kind;
    attr_copy_fn *copy;      /* NULL: never copied */
    attr_delete_fn *del;     /* NULL: nothing to run */
    void *extra_state;
    int refs;                /* the user handle (until freed) + one per attribute */
    int freed;               /* the user freed the handle */
} keyval_t;

struct attr_node {
    struct attr_node *next;
    keyval_t *kv;
    void *value;
};

static handle_table_t keyvals = HANDLE_TABLE_INIT(KEYVAL_KIND, KEYVAL_FIRST_USER);

static void keyval_release(keyval_t *kv)
{
    if (--kv->refs > 0)
        return;
    handle_release(&keyvals, kv->handle);
    free(kv);
}

int keyval_create(attr_kind_t kind, attr_copy_fn *copy, attr_delete_fn *del, void *extra_state,
                  int *keyval)
{
    keyval_t *kv = malloc(sizeof *kv);
    if (!kv)
        return MPI_ERR_NO_MEM;
    *kv = (keyval_t){ 0, kind, copy, del, extra_state, 1, 0 };
    kv->handle = handle_new(&keyvals, kv);
    if (!kv->handle) {
        free(kv);
        return MPI_ERR_NO_MEM;
    }
    *keyval = kv->handle;
    return MPI_SUCCESS;
}

int keyval_is_predefined(int keyval)
{
    return (keyval >= MPI_TAG_UB && keyval <= METAMPI_SITE) ||
           (keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL);
}

static keyval_t *keyval_get(int keyval)
{
    keyval_t *kv = handle_get(&keyvals, keyval);
    return kv && !kv->freed ? kv : NULL;
}

int keyval_check(attr_kind_t kind, int keyval, int freed_ok, const char **why)
{
    static const char *const other_kind[] = { "keyval is not a communicator keyval",
                                              "keyval is not a datatype keyval",
                                              "keyval is not a window keyval" };
    if (keyval == (int)KEYVAL_KIND) {
        *why = "keyval is MPI_KEYVAL_INVALID";
        return MPI_ERR_KEYVAL;
    }
    if (keyval_is_predefined(keyval)) {
        *why = "predefined keyvals cannot be changed or freed";
        return MPI_ERR_KEYVAL;
    }
    keyval_t *kv = freed_ok ? handle_get(&keyvals, keyval) : keyval_get(keyval);
    if (!kv) {
        *why = "invalid or freed keyval";
        return MPI_ERR_KEYVAL;
    }
    if (kv->kind != kind) {
        *why = other_kind[kind];
        return MPI_ERR_KEYVAL;
    }
    return MPI_SUCCESS;
}

void keyval_free(int keyval)
{
    keyval_t *kv = keyval_get(keyval);
    if (!kv)
        return;
    kv->freed = 1;
    keyval_release(kv);
}

/* ---- lists ------------------------------------------------------------------------------ */

static struct attr_node **find(attr_list_t *list, const keyval_t *kv)
{
    struct attr_node **p = list;
    while (*p && (*p)->kv != kv)
        p = &(*p)->next;
    return p;
}

/* The user's callbacks run without the core lock (every level released, taken back after).
 * A callback may take a lock of the application's own — mpi4py's take the Python GIL — while
 * another thread holds that lock and waits to enter MPI: holding the core lock across the
 * callback deadlocks the two (mpi4py.futures' pools hung in MPI_Comm_disconnect so). The
 * keyval stays alive meanwhile (the caller holds a reference on it); the object's list may
 * change, which every caller allows for (an attribute is unlinked before its callback). */
static int run_delete(int handle, keyval_t *kv, void *value)
{
    if (!kv->del)
        return MPI_SUCCESS;
    int levels = core_lock_callout_begin();
    int rc = kv->del(handle, kv->handle, value, kv->extra_state);
    core_lock_callout_end(levels);
    return rc;
}

static int run_copy(int old_handle, keyval_t *kv, void *value_in, void *value_out, int *flag)
{
    int levels = core_lock_callout_begin();
    int rc = kv->copy(old_handle, kv->handle, kv->extra_state, value_in, value_out, flag);
    core_lock_callout_end(levels);
    return rc;
}

/* Runs the delete callback of node (already unlinked from list). On success the node is
 * gone; on failure it goes back to the front of list unless the callback set a new value
 * for the keyval meanwhile. */
static int delete_node(int handle, attr_list_t *list, struct attr_node *n)
{
    int rc = run_delete(handle, n->kv, n->value);
    if (rc != MPI_SUCCESS && !*find(list, n->kv)) {
        n->next = *list;
        *list = n;
        return rc;
    }
    keyval_release(n->kv);
    free(n);
    return rc;
}

int attr_set(attr_kind_t kind, int handle, attr_list_t *list, int keyval, void *value)
{
    (void)kind;
    keyval_t *kv = keyval_get(keyval);
    kv->refs++; /* the old value's delete callback may free the keyval's handle */
    int rc = MPI_SUCCESS;
    struct attr_node **p = find(list, kv);
    if (*p) {
        /* MPI-3.1 §6.7.2: as if the old value were deleted first, then the new one stored */
        struct attr_node *old = *p;
        *p = old->next;
        rc = delete_node(handle, list, old);
        p = find(list, kv); /* the callback may have set it again: replace that value */
    }
    if (rc == MPI_SUCCESS && *p) {
        (*p)->value = value;
    } else if (rc == MPI_SUCCESS) {
        struct attr_node *n = malloc(sizeof *n);
        if (n) {
            *n = (struct attr_node){ *list, kv, value };
            *list = n;
            kv->refs++;
        } else {
            rc = MPI_ERR_NO_MEM;
        }
    }
    keyval_release(kv);
    return rc;
}

int attr_get(const attr_list_t *list, int keyval, void **value)
{
    keyval_t *kv = handle_get(&keyvals, keyval);
    for (struct attr_node *n = *list; n; n = n->next)
        if (n->kv == kv) {
            *value = n->value;
            return 1;
        }
    return 0;
}

int attr_delete(attr_kind_t kind, int handle, attr_list_t *list, int keyval)
{
    (void)kind;
    struct attr_node **p = find(list, handle_get(&keyvals, keyval));
    if (!*p)
        return MPI_SUCCESS;
    struct attr_node *n = *p;
    *p = n->next;
    return delete_node(handle, list, n);
}

int attr_delete_all(attr_kind_t kind, int handle, attr_list_t *list)
{
    (void)kind;
    int first_error = MPI_SUCCESS;
    /* pop one at a time: a callback may add or remove attributes of this object */
    while (*list) {
        struct attr_node *n = *list;
        *list = n->next;
        int rc = run_delete(handle, n->kv, n->value);
        if (rc != MPI_SUCCESS && first_error == MPI_SUCCESS)
            first_error = rc;
        keyval_release(n->kv);
        free(n);
    }
    return first_error;
}

int attr_delete_type(MPI_Datatype type, attr_list_t *list)
{
    return attr_delete_all(ATTR_TYPE, type, list);
}

int attr_copy_all(attr_kind_t kind, int old_handle, const attr_list_t *src, attr_list_t *dst)
{
    /* Snapshot first (with the keyvals retained): a copy callback may change src. */
    int n = 0;
    for (struct attr_node *a = *src; a; a = a->next)
        n++;
    if (n == 0)
        return MPI_SUCCESS;
    struct attr_node *snap = malloc((size_t)n * sizeof *snap);
    if (!snap)
        return MPI_ERR_NO_MEM;
    int i = 0;
    for (struct attr_node *a = *src; a; a = a->next, i++) {
        snap[i] = *a;
        a->kv->refs++;
    }

    int rc = MPI_SUCCESS;
    struct attr_node **tail = dst; /* dst keeps src's order */
    for (i = 0; i < n; i++) {
        keyval_t *kv = snap[i].kv;
        if (rc != MPI_SUCCESS || !kv->copy)
            continue;
        void *out = NULL;
        int flag = 0;
        rc = run_copy(old_handle, kv, snap[i].value, &out, &flag);
        if (rc != MPI_SUCCESS || !flag)
            continue;
        struct attr_node *c = malloc(sizeof *c);
        if (!c) {
            rc = MPI_ERR_NO_MEM;
            run_delete(old_handle, kv, out);
            continue;
        }
        *c = (struct attr_node){ NULL, kv, out };
        kv->refs++;
        *tail = c;
        tail = &c->next;
    }
    for (i = 0; i < n; i++)
        keyval_release(snap[i].kv);
    free(snap);
    if (rc != MPI_SUCCESS)
        attr_delete_all(kind, old_handle, dst);
    return rc;
}

int attr_finalize(void)
{
    int rc = MPI_SUCCESS;
    const MPI_Comm order[] = { MPI_COMM_SELF, MPI_COMM_WORLD };
    for (int i = 0; i < 2; i++) {
        comm_t *c = comm_lookup(order[i]);
        int r = c ? attr_delete_all(ATTR_COMM, c->handle, &c->attrs) : MPI_SUCCESS;
        if (rc == MPI_SUCCESS)
            rc = r;
    }
    return rc;
}
