#include "util/handles.h"

#include <stdlib.h>

static int grow(handle_table_t *t, int need)
{
    if (need <= t->cap)
        return 0;
    int cap = t->cap ? t->cap : 64;
    while (cap < need)
        cap *= 2;
    if ((unsigned)cap > HANDLE_INDEX_MASK + 1u)
        return -1;
    void **s = realloc(t->slots, (size_t)cap * sizeof *s);
    if (!s)
        return -1;
    t->slots = s;
    int *f = realloc(t->free_list, (size_t)cap * sizeof *f);
    if (!f)
        return -1;
    t->free_list = f;
    for (int i = t->cap; i < cap; i++)
        t->slots[i] = NULL;
    t->cap = cap;
    return 0;
}

int handle_new(handle_table_t *t, void *obj)
{
    int index;
    if (t->nfree) {
        index = t->free_list[--t->nfree];
    } else {
        index = t->used > t->first ? t->used : t->first;
        if (grow(t, index + 1) != 0)
            return 0;
        t->used = index + 1;
    }
    t->slots[index] = obj;
    return (int)(t->kind | (unsigned)index);
}

int handle_set(handle_table_t *t, int index, void *obj)
{
    if (grow(t, index + 1) != 0)
        return -1;
    t->slots[index] = obj;
    if (t->used < index + 1)
        t->used = index + 1;
    return 0;
}

void *handle_get(const handle_table_t *t, int h)
{
    unsigned u = (unsigned)h;
    if ((u & HANDLE_KIND_MASK) != t->kind)
        return NULL;
    unsigned index = u & HANDLE_INDEX_MASK;
    if (index == 0 || index >= (unsigned)t->used)
        return NULL;
    return t->slots[index];
}

void handle_release(handle_table_t *t, int h)
{
    unsigned index = (unsigned)h & HANDLE_INDEX_MASK;
    if (index == 0 || index >= (unsigned)t->used || !t->slots[index])
        return;
    t->slots[index] = NULL;
    if ((int)index >= t->first)
        t->free_list[t->nfree++] = (int)index;
}

void handle_table_destroy(handle_table_t *t)
{
    free(t->slots);
    free(t->free_list);
    t->slots = NULL;
    t->free_list = NULL;
    t->cap = t->used = t->nfree = 0;
}

void handle_foreach(const handle_table_t *t, void (*fn)(void *obj, void *arg), void *arg)
{
    for (int i = 1; i < t->used; i++)
        if (t->slots[i])
            fn(t->slots[i], arg);
}
