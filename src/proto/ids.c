/* The table of live operations' wire ids (ids.h). */
#include "proto/ids.h"

#include "runtime/job.h"

#include <stdio.h>
#include <stdlib.h>

enum { FIRST_CAPACITY = 64 };
#define NO_ENTRY UINT32_MAX

typedef struct id_entry {
    proto_op_t *op;     /* NULL: free */
    uint32_t gen;       /* the entry's current generation (the next id's, when free) */
    uint32_t next_free; /* free list, NO_ENTRY at its end */
} id_entry_t;

static id_entry_t *table;
static uint32_t capacity, used; /* entries [0, used) have been handed out at least once */
static uint32_t free_head = NO_ENTRY;

static uint32_t take_entry(void)
{
    if (free_head != NO_ENTRY) {
        uint32_t i = free_head;
        free_head = table[i].next_free;
        return i;
    }
    if (used == capacity) {
        uint32_t grown = capacity ? capacity * 2 : FIRST_CAPACITY;
        id_entry_t *t = grown > capacity ? realloc(table, (size_t)grown * sizeof *t) : NULL;
        if (!t)
            job_abort(1, "out of memory for the table of live operations");
        table = t;
        capacity = grown;
    }
    table[used].gen = 1;
    return used++;
}

void proto_id_open(proto_op_t *op)
{
    uint32_t i = take_entry();
    table[i].op = op;
    op->id = (uint64_t)table[i].gen << 32 | i;
}

void proto_id_close(proto_op_t *op)
{
    uint32_t i = (uint32_t)op->id;
    id_entry_t *e = &table[i];
    e->op = NULL;
    if (++e->gen == 0)
        e->gen = 1;
    e->next_free = free_head;
    free_head = i;
    op->id = 0;
}

proto_op_t *proto_id_find(uint64_t id, char *why, size_t whylen)
{
    uint32_t i = (uint32_t)id, gen = (uint32_t)(id >> 32);
    if (i >= used) {
        snprintf(why, whylen, "no operation has that id (index %u of %u)", i, used);
        return NULL;
    }
    const id_entry_t *e = &table[i];
    if (!e->op || e->gen != gen) {
        snprintf(why, whylen, "no live operation has that id (entry %u is %s, generation %u)",
                 i, e->op ? "another operation's" : "free", e->gen);
        return NULL;
    }
    return e->op;
}

void proto_ids_free(void)
{
    free(table);
    table = NULL;
    capacity = used = 0;
    free_head = NO_ENTRY;
}
