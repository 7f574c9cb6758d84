/*
 * Info objects (MPI-3.1 §9): ordered (key, value) string pairs. Other modules keep hints as
 * an info_t (communicators: MPI_Comm_set_info / get_info).
 */
#ifndef METAMPI_INFO_H
#define METAMPI_INFO_H

#include <mpi.h>

typedef struct info info_t;

/* The object behind h (MPI_INFO_ENV included), or NULL for MPI_INFO_NULL and invalid handles. */
info_t *info_lookup(MPI_Info h);
/* A new, handle-less copy of src (src may be NULL: an empty info); NULL when out of memory. */
info_t *info_copy(const info_t *src);
/* Gives i a user handle (MPI_Comm_get_info returns a new info object); 0 on no memory. */
MPI_Info info_publish(info_t *i);
/* Frees a handle-less info. */
void info_destroy(info_t *i);
/* The value of key, or NULL. */
const char *info_get(const info_t *i, const char *key);

#endif
