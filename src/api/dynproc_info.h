/* The info keys MPI_Comm_spawn(_multiple) reads for one application (MPI-3.1 §10.3.4):
 * host, wdir, path, and file, which names a file of further keys (its format is the
 * implementation's): one "key value" or "key=value" per line, keys among host, wdir and
 * path, blank lines and lines starting with '#' ignored; a key set in the info object itself
 * wins over the file. The file is read by root, relative to its working directory. Other
 * keys of the info object are ignored, as the standard allows. */
#ifndef API_DYNPROC_INFO_H
#define API_DYNPROC_INFO_H

#include <mpi.h>
#include <stddef.h>

enum { SPAWN_INFO_KEYS = 3 };

typedef struct spawn_info {
    const char *kv[2 * SPAWN_INFO_KEYS];   /* key, value, ...: n pairs */
    int n;
    char *owned[SPAWN_INFO_KEYS];           /* values read from the file */
} spawn_info_t;

/* Fills si from info (MPI_INFO_NULL: nothing). MPI_SUCCESS, or MPI_ERR_SPAWN with why (a file
 * that cannot be read, a line that is not a key of ours, a value too long). */
int spawn_info_read(MPI_Info info, spawn_info_t *si, char *why, size_t cap);
void spawn_info_free(spawn_info_t *si);

#endif
