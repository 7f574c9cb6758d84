/*
 * Attribute caching (MPI-3.1 §6.7): keyvals and the attribute lists of communicators and
 * datatypes (and, later, windows). Each object embeds an attr_list_t; the object's module
 * calls attr_copy_all() when the object is duplicated and attr_delete_all() when it is freed,
 * which run the keyvals' copy and delete callbacks as the standard says.
 */
#ifndef METAMPI_ATTR_H
#define METAMPI_ATTR_H

#include <mpi.h>

typedef enum { ATTR_COMM = 0, ATTR_TYPE, ATTR_WIN } attr_kind_t;

struct attr_node;
typedef struct attr_list {
    struct attr_node *head;
} attr_list_t;

#define ATTR_LIST_INIT { 0 }

/* Copies every attribute of src (on the object with handle old_handle) whose copy callback
 * asks for it into dst (empty). Returns MPI_SUCCESS or the error a callback returned (dst is
 * then emptied again with delete callbacks run). */
int attr_copy_all(attr_kind_t kind, int old_handle, const attr_list_t *src, attr_list_t *dst);
/* Runs the delete callback of every attribute of list (object handle) and empties it.
 * Returns MPI_SUCCESS or the first error a callback returned. */
int attr_delete_all(attr_kind_t kind, int handle, attr_list_t *list);

#endif
