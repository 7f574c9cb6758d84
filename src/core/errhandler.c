#include "core/errhandler.h"

#include "util/handles.h"

#include <stdlib.h>

#define ERRHANDLER_KIND 0x14000000u
#define ERRHANDLER_FIRST_USER 3 /* after MPI_ERRORS_ARE_FATAL and MPI_ERRORS_RETURN */

typedef struct errhandler {
    MPI_Errhandler handle;
    errhandler_fn *fn;
    int refs;
} errhandler_t;

static handle_table_t handlers = HANDLE_TABLE_INIT(ERRHANDLER_KIND, ERRHANDLER_FIRST_USER);

static int is_predefined(MPI_Errhandler h)
{
    return h == MPI_ERRORS_ARE_FATAL || h == MPI_ERRORS_RETURN;
}

int errhandler_create(errhandler_fn *fn, MPI_Errhandler *out)
{
    errhandler_t *e = malloc(sizeof *e);
    if (!e)
        return MPI_ERR_NO_MEM;
    e->fn = fn;
    e->refs = 1;
    e->handle = handle_new(&handlers, e);
    if (!e->handle) {
        free(e);
        return MPI_ERR_NO_MEM;
    }
    *out = e->handle;
    return MPI_SUCCESS;
}

int errhandler_is_valid(MPI_Errhandler h)
{
    return is_predefined(h) || handle_get(&handlers, h) != NULL;
}

errhandler_fn *errhandler_function(MPI_Errhandler h)
{
    errhandler_t *e = handle_get(&handlers, h);
    return e ? e->fn : NULL;
}

void errhandler_retain(MPI_Errhandler h)
{
    errhandler_t *e = handle_get(&handlers, h);
    if (e)
        e->refs++;
}

void errhandler_release(MPI_Errhandler h)
{
    errhandler_t *e = handle_get(&handlers, h);
    if (e && --e->refs == 0) {
        handle_release(&handlers, h);
        free(e);
    }
}
