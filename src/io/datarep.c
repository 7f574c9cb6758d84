/* User data representations (MPI_Register_datarep, MPI-3.1 §13.5.3): a list of
 * registrations, and the check that a type's file layout under one is its native layout. */
#include "io/file.h"

#include "datatype/construct.h"
#include "datatype/predefined.h"

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

int io_datarep_fits(const io_datarep_t *rep, dtype_t *t)
{
    const dt_layout_t *l = dtype_layout(t);
    if (!l)
        return 0;
    /* the basic types of one element, each asked once */
    unsigned char seen[256] = { 0 };
    dt_cursor_t c;
    dt_cursor_init(&c, l, 0, 1);
    uintptr_t addr;
    size_t len;
    int basic;
    while (dt_next_block(&c, &addr, &len, &basic)) {
        if (basic < 0 || basic > 255 || seen[basic])
            continue;
        seen[basic] = 1;
        MPI_Datatype h = dtype_basic(basic)->handle;
        MPI_Aint extent = -1;
        if (rep->extent(h, &extent, rep->extra) != MPI_SUCCESS ||
            extent != (MPI_Aint)dtype_predefined_size(h))
            return 0;
    }
    return 1;
}
