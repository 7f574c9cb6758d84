/*
 * Info objects (MPI-3.1 §9): ordered (key, value) string pairs. Other modules keep hints as
 * an info_t (communicators: MPI_Comm_set_info / get_info).
 *
 * Invariants: keys are unique, 1..MPI_MAX_INFO_KEY characters; values 1..MPI_MAX_INFO_VAL
 * characters; pairs keep the order in which their keys were first set (MPI_Info_get_nthkey).
 * MPI_INFO_ENV is built on its first lookup.
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

/* ---- the API layer's interface ----------------------------------------------------------- */

/* Sets key to value (both checked by the caller); 0, or -1 when out of memory. */
int info_set(info_t *i, const char *key, const char *value);
/* Removes key; 0, or -1 when i has no such key. */
int info_delete(info_t *i, const char *key);
int info_nkeys(const info_t *i);
/* The n-th key (0 <= n < info_nkeys(i)). */
const char *info_nthkey(const info_t *i, int n);
/* The handle of a published info (MPI_INFO_NULL for a handle-less one). */
MPI_Info info_handle(const info_t *i);
/* Withdraws the user handle of i and frees it (MPI_Info_free); not for MPI_INFO_ENV. */
void info_free(info_t *i);

/* MPI_Init(_thread) records the thread level the application asked for: MPI_INFO_ENV
 * reports it as "thread_level" (MPI-3.1 §8.7.2). */
void info_env_set_thread_level(int required);
/* A new handle-less info with MPI_INFO_ENV's contents (MPI_Info_create_env); before MPI_Init,
 * only what the process knows itself. argc/argv, when given (argc > 0), set command and argv.
 * NULL when out of memory. */
info_t *info_env_create(int argc, char *argv[]);

#endif
