/*
 * Attribute caching (MPI-3.1 §6.7): keyvals and the attribute lists of communicators and
 * datatypes (and, later, windows). Each object embeds an attr_list_t; attr_copy_all() runs
 * when the object is duplicated and attr_delete_all() when it is freed, running the keyvals'
 * copy and delete callbacks as the standard says. Datatypes sit below core: they hold their
 * list as a plain `struct attr_node *` (the same type) and delete it through the function
 * MPI_Init hands to dtype_init (attr_delete_type).
 *
 * Invariants:
 *  - A keyval lives while its user handle is valid or any attribute uses it (refs counts
 *    both); its handle index stays taken until then, so a freed keyval handle is never
 *    reused while an attribute still reports it to a callback.
 *  - A list holds at most one attribute per keyval, newest first. attr_delete_all() runs the
 *    delete callbacks newest first (the reverse of the order they were set).
 *  - An attribute is unlinked from its list before its delete callback runs, so a callback
 *    may set or delete attributes of the same object (even the one being deleted).
 */
#ifndef METAMPI_ATTR_H
#define METAMPI_ATTR_H

#include <mpi.h>

typedef enum { ATTR_COMM = 0, ATTR_TYPE, ATTR_WIN } attr_kind_t;

/* A list is a pointer to its newest attribute (NULL: empty). */
struct attr_node;
typedef struct attr_node *attr_list_t;

#define ATTR_LIST_INIT NULL

/* Copies every attribute of src (on the object with handle old_handle) whose copy callback
 * asks for it into dst (empty). Returns MPI_SUCCESS or the error a callback returned (dst is
 * then emptied again with delete callbacks run; they are given old_handle, since the new
 * object never reached the user). */
int attr_copy_all(attr_kind_t kind, int old_handle, const attr_list_t *src, attr_list_t *dst);
/* Runs the delete callback of every attribute of list (object handle) and empties it.
 * Returns MPI_SUCCESS or the first error a callback returned. */
int attr_delete_all(attr_kind_t kind, int handle, attr_list_t *list);
/* attr_delete_all for a datatype (the dtype_attr_delete_fn of datatype/dtype.h). */
int attr_delete_type(MPI_Datatype type, attr_list_t *list);

/* ---- keyvals and single attributes (the API layer's interface) ------------------------ */

/* The callbacks of every kind have this C signature (MPI_Comm, MPI_Datatype and MPI_Win are
 * all int): MPI_Comm_copy_attr_function, MPI_Type_copy_attr_function, MPI_Copy_function... */
typedef int attr_copy_fn(int oldobj, int keyval, void *extra_state, void *value_in,
                         void *value_out, int *flag);
typedef int attr_delete_fn(int obj, int keyval, void *value, void *extra_state);

/* Index of the first user keyval; below it: MPI_KEYVAL_INVALID (0), the predefined attribute
 * keys of mpi.h (MPI_TAG_UB ... MPI_APPNUM, METAMPI_SITE) and room for more (window
 * attributes). */
#define KEYVAL_FIRST_USER 32

/* Creates a keyval of kind; NULL callbacks stand for the null copy / null delete functions.
 * Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int keyval_create(attr_kind_t kind, attr_copy_fn *copy, attr_delete_fn *del, void *extra_state,
                  int *keyval);
/* The checks of a user keyval handle for an object of kind: MPI_SUCCESS, or MPI_ERR_KEYVAL
 * with *why set to a message (invalid, predefined, of another object kind, or freed unless
 * freed_ok). A keyval the user freed still reaches the attributes that use it (get and
 * delete pass freed_ok), but takes no new ones (MPI-3.1 §6.7.2). */
int keyval_check(attr_kind_t kind, int keyval, int freed_ok, const char **why);
/* Releases the user's handle (keyval_check passed); the keyval lives on while attributes
 * use it. */
void keyval_free(int keyval);
/* Nonzero for the predefined attribute keys (MPI_TAG_UB ... MPI_APPNUM, METAMPI_SITE). */
int keyval_is_predefined(int keyval);

/* Sets (or replaces, running the old value's delete callback first) the attribute of a
 * checked keyval on the object. Returns MPI_SUCCESS, MPI_ERR_NO_MEM, or the error of the
 * delete callback (the old value then stays). */
int attr_set(attr_kind_t kind, int handle, attr_list_t *list, int keyval, void *value);
/* *value and 1 when the object has the attribute, else 0. */
int attr_get(const attr_list_t *list, int keyval, void **value);
/* Deletes the attribute (running its delete callback); MPI_SUCCESS when there is none.
 * Returns the callback's error (the attribute then stays). */
int attr_delete(attr_kind_t kind, int handle, attr_list_t *list, int keyval);

/* The first step of MPI_Finalize (MPI-3.1 §8.7.1): deletes the attributes of MPI_COMM_SELF,
 * then those of MPI_COMM_WORLD, running their delete callbacks while MPI is still fully
 * usable. Returns MPI_SUCCESS or the first error a callback returned. */
int attr_finalize(void);

#endif
