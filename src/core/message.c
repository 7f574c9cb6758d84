#include "core/message.h"

#include <stdlib.h>

/* Handles are MESSAGE_KIND | index, index >= 2 (0 and 1 are MPI_MESSAGE_NULL and
 * MPI_MESSAGE_NO_PROC). Slots are reused after Mrecv. */
#define MESSAGE_KIND 0x1c000000
#define INDEX_MASK 0x03ffffff
enum { FIRST_SLOT = 2 };

typedef struct slot {
    unexpected_t *u;
    comm_t *comm;
} slot_t;

static slot_t *slots;
static int nslots;

MPI_Message message_new(unexpected_t *u, comm_t *c)
{
    int i;
    for (i = FIRST_SLOT; i < nslots && slots[i].u; i++)
        ;
    if (i >= nslots) {
        int n = nslots ? 2 * nslots : 64;
        slot_t *s = realloc(slots, (size_t)n * sizeof *s);
        if (!s)
            return MPI_MESSAGE_NULL;
        for (int k = nslots; k < n; k++)
            s[k].u = NULL;
        slots = s;
        nslots = n;
    }
    slots[i].u = u;
    slots[i].comm = c;
    comm_retain(c);
    return MESSAGE_KIND | i;
}

unexpected_t *message_take(MPI_Message h, comm_t **c)
{
    if ((h & ~INDEX_MASK) != MESSAGE_KIND)
        return NULL;
    int i = h & INDEX_MASK;
    if (i < FIRST_SLOT || i >= nslots || !slots[i].u)
        return NULL;
    unexpected_t *u = slots[i].u;
    *c = slots[i].comm;
    slots[i].u = NULL;
    return u;
}
