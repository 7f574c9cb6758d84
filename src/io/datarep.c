/* User data representations (MPI_Register_datarep, MPI-3.1 §13.5.3): a list of
 * registrations. */
#include "io/file.h"

#include <stdlib.h>
#include <string.h>

typedef struct node {
    io_datarep_t rep;
    struct node *next;
} node_t;

static node_t *reps;

const io_datarep_t *io_datarep_find(const char *name)
{
    for (node_t *n = reps; n; n = n->next)
        if (strcmp(n->rep.name, name) == 0)
            return &n->rep;
    return NULL;
}

int io_datarep_register(const io_datarep_t *rep)
{
    if (strcmp(rep->name, "native") == 0 || strcmp(rep->name, "internal") == 0 ||
        strcmp(rep->name, "external32") == 0 || io_datarep_find(rep->name))
        return MPI_ERR_DUP_DATAREP;
    node_t *n = malloc(sizeof *n);
    if (!n)
        return MPI_ERR_NO_MEM;
    n->rep = *rep;
    n->next = reps;
    reps = n;
    return MPI_SUCCESS;
}
