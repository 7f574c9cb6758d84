#include "kvs.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void kvs_init(kvs_t *k)
{
    k->nbuckets = 256;
    k->bucket = calloc(k->nbuckets, sizeof *k->bucket);
    if (!k->bucket)
        util_xmalloc((size_t)-1);
    k->count = k->bytes = 0;
}

void kvs_free(kvs_t *k)
{
    for (size_t i = 0; i < k->nbuckets; i++) {
        for (kvs_entry_t *e = k->bucket[i], *nx; e; e = nx) {
            nx = e->next;
            free(e->key);
            free(e->value);
            free(e);
        }
    }
    free(k->bucket);
    k->bucket = NULL;
}

static void grow(kvs_t *k)
{
    size_t nb = k->nbuckets * 2;
    kvs_entry_t **b = calloc(nb, sizeof *b);
    if (!b)
        return;  /* keep the old, longer chains */
    for (size_t i = 0; i < k->nbuckets; i++) {
        for (kvs_entry_t *e = k->bucket[i], *nx; e; e = nx) {
            nx = e->next;
            size_t h = hash(e->key) % nb;
            e->next = b[h];
            b[h] = e;
        }
    }
    free(k->bucket);
    k->bucket = b;
    k->nbuckets = nb;
}

int kvs_put(kvs_t *k, const char *key, const char *value)
{
    size_t h = hash(key) % k->nbuckets;
    for (kvs_entry_t *e = k->bucket[h]; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            size_t old = strlen(e->value), nw = strlen(value);
            if (nw > old && k->bytes + nw - old > KVS_MAX_BYTES)
                return -1;
            k->bytes = k->bytes - old + nw;
            free(e->value);
            e->value = util_xstrdup(value);
            return 0;
        }
    }
    size_t sz = strlen(key) + strlen(value) + sizeof(kvs_entry_t);
    if (k->bytes + sz > KVS_MAX_BYTES)
        return -1;
    kvs_entry_t *e = util_xmalloc(sizeof *e);
    e->key = util_xstrdup(key);
    e->value = util_xstrdup(value);
    e->next = k->bucket[h];
    k->bucket[h] = e;
    k->bytes += sz;
    if (++k->count > 2 * k->nbuckets)
        grow(k);
    return 0;
}

const char *kvs_get(const kvs_t *k, const char *key)
{
    for (kvs_entry_t *e = k->bucket[hash(key) % k->nbuckets]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->value;
    return NULL;
}

void kvs_delete(kvs_t *k, const char *key)
{
    size_t h = hash(key) % k->nbuckets;
    for (kvs_entry_t **p = &k->bucket[h]; *p; p = &(*p)->next) {
        kvs_entry_t *e = *p;
        if (strcmp(e->key, key) == 0) {
            *p = e->next;
            k->bytes -= strlen(e->key) + strlen(e->value) + sizeof(kvs_entry_t);
            k->count--;
            free(e->key);
            free(e->value);
            free(e);
            return;
        }
    }
}
