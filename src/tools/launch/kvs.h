/*
 * The job's key-value space (PMI-1 put/get): one flat table of key -> value strings.
 * Keys and values are validated by the caller; a put of an existing key overwrites it.
 * The total size is bounded so that a misbehaving rank cannot exhaust mpirun's memory.
 */
#ifndef MPIRUN_KVS_H
#define MPIRUN_KVS_H

#include <stddef.h>

#define KVS_MAX_BYTES (64u << 20)

typedef struct kvs_entry {
    struct kvs_entry *next;
    char *key, *value;
} kvs_entry_t;

typedef struct kvs {
    kvs_entry_t **bucket;
    size_t nbuckets, count, bytes;
} kvs_t;

void kvs_init(kvs_t *k);
void kvs_free(kvs_t *k);
/* 0, or -1 when the space is full. */
int kvs_put(kvs_t *k, const char *key, const char *value);
const char *kvs_get(const kvs_t *k, const char *key);
/* Removes key (nothing when absent). */
void kvs_delete(kvs_t *k, const char *key);

#endif
