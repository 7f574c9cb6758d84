/* MPI_GREQUEST_START with Fortran callbacks (MPI-3.1 §12.2): QUERY_FN(EXTRA_STATE, STATUS,
 * IERROR), FREE_FN(EXTRA_STATE, IERROR), CANCEL_FN(EXTRA_STATE, COMPLETE, IERROR), all by
 * reference, EXTRA_STATE an INTEGER(KIND=MPI_ADDRESS_KIND), COMPLETE a LOGICAL.
 *
 * The C request gets C trampolines and, as its extra_state, a block holding the Fortran
 * procedures and the program's EXTRA_STATE. Invariant: the core calls free_fn exactly once,
 * when the request is freed (MPI-3.1 §12.2.1), after which no other callback runs: the free
 * trampoline frees the block. */
#include "fortran/fortran.h"

#include <stdlib.h>

typedef void f_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void f_free_fn(MPI_Aint *extra, MPI_Fint *ierror);
typedef void f_cancel_fn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);

typedef struct {
    f_query_fn *query;
    f_free_fn *free;
    f_cancel_fn *cancel;
    MPI_Aint extra;
} f_grequest_t;

/* A status is MPI_STATUS_SIZE MPI_Fints in Fortran, the C struct word for word. */
static int query_trampoline(void *extra_state, MPI_Status *status)
{
    f_grequest_t *g = extra_state;
    MPI_Fint ierror = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)status, &ierror);
    return ierror;
}

static int free_trampoline(void *extra_state)
{
    f_grequest_t *g = extra_state;
    MPI_Fint ierror = MPI_SUCCESS;
    g->free(&g->extra, &ierror);
    free(g);
    return ierror;
}

static int cancel_trampoline(void *extra_state, int complete)
{
    f_grequest_t *g = extra_state;
    MPI_Fint f_complete = complete != 0, ierror = MPI_SUCCESS;
    g->cancel(&g->extra, &f_complete, &ierror);
    return ierror;
}

static void grequest_start(int profiled, f_query_fn *query, f_free_fn *free_fn,
                           f_cancel_fn *cancel, MPI_Aint *extra, MPI_Fint *request,
                           MPI_Fint *ierror)
{
    f_grequest_t *g = malloc(sizeof *g);
    if (!g) {
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
        F_RETURN(ierror, MPI_ERR_NO_MEM);
        return;
    }
    *g = (f_grequest_t){ query, free_fn, cancel, *extra };
    int rc = (profiled ? PMPI_Grequest_start : MPI_Grequest_start)(
        query_trampoline, free_trampoline, cancel_trampoline, g, request);
    if (rc != MPI_SUCCESS)
        free(g);
    F_RETURN(ierror, rc);
}

F_EXPORT void mpi_grequest_start_(f_query_fn *query, f_free_fn *free_fn, f_cancel_fn *cancel,
                                  MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierror)
{
    grequest_start(0, query, free_fn, cancel, extra, request, ierror);
}
F_ALIASES(mpi_grequest_start, MPI_GREQUEST_START)

F_EXPORT void pmpi_grequest_start_(f_query_fn *query, f_free_fn *free_fn, f_cancel_fn *cancel,
                                   MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierror)
{
    grequest_start(1, query, free_fn, cancel, extra, request, ierror);
}
F_ALIASES(pmpi_grequest_start, PMPI_GREQUEST_START)
