#include "core/message.h"

#include "util/handles.h"

#include <stdlib.h>

/* Index 1 is MPI_MESSAGE_NO_PROC, so handed-out handles start at index 2. */
typedef struct slot {
    unexpected_t *u;
    comm_t *comm;
} slot_t;

static handle_table_t messages = HANDLE_TABLE_INIT(0x1c000000u, 2);

MPI_Message message_new(unexpected_t *u, comm_t *c)
{
    slot_t *s = malloc(sizeof *s);
    if (!s)
        return MPI_MESSAGE_NULL;
    MPI_Message h = handle_new(&messages, s);
    if (!h) {
        free(s);
        return MPI_MESSAGE_NULL;
    }
    s->u = u;
    s->comm = c;
    comm_retain(c);
    return h;
}

unexpected_t *message_take(MPI_Message h, comm_t **c)
{
    if (h == MPI_MESSAGE_NO_PROC)
        return NULL;
    slot_t *s = handle_get(&messages, h);
    if (!s)
        return NULL;
    unexpected_t *u = s->u;
    *c = s->comm;
    handle_release(&messages, h);
    free(s);
    return u;
}

int message_exists(MPI_Message h)
{
    return handle_get(&messages, h) != NULL;
}
