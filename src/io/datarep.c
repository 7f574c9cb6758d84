/* User data representations (MPI_Register_datarep, MPI-3.1 §13.5.3): a list of
 * registrations, and the calls of their functions. */
#include "io/file.h"

#include "core/lock.h"

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

int io_datarep_extent(const io_datarep_t *rep, MPI_Datatype basic, MPI_Aint *extent)
{
    int levels = core_lock_callout_begin();
    int rc = rep->extent(basic, extent, rep->extra);
    core_lock_callout_end(levels);
    return rc;
}

/* position 0: the library converts each access's elements at once, from its own buffer */
int io_datarep_read(const io_datarep_t *rep, void *userbuf, dtype_t *memtype, int count,
                    void *filebuf)
{
    dtype_retain(memtype);
    int levels = core_lock_callout_begin();
    int rc = rep->read(userbuf, memtype->handle, count, filebuf, 0, rep->extra);
    core_lock_callout_end(levels);
    dtype_release(memtype);
    return rc;
}

int io_datarep_write(const io_datarep_t *rep, void *userbuf, dtype_t *memtype, int count,
                     void *filebuf)
{
    dtype_retain(memtype);
    int levels = core_lock_callout_begin();
    int rc = rep->write(userbuf, memtype->handle, count, filebuf, 0, rep->extra);
    core_lock_callout_end(levels);
    dtype_release(memtype);
    return rc;
}
