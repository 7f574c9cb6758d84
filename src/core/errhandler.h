/*
 * Error handler objects (MPI-3.1 §8.3): the predefined MPI_ERRORS_ARE_FATAL and
 * MPI_ERRORS_RETURN, and user handlers made by MPI_Comm_create_errhandler.
 *
 * A user handler is reference counted: its user handle(s) (MPI_Comm_create_errhandler and
 * every MPI_Comm_get_errhandler give one, MPI_Errhandler_free drops one) and every
 * communicator it is set on hold a reference, so a handler freed by the user while a
 * communicator uses it stays alive. Communicator code calls errhandler_retain() when a new
 * communicator inherits a handler and errhandler_release() when it frees one.
 */
#ifndef METAMPI_ERRHANDLER_H
#define METAMPI_ERRHANDLER_H

#include <mpi.h>

typedef void errhandler_fn(MPI_Comm *comm, int *code, ...);

/* A new user handler with one reference; MPI_SUCCESS or MPI_ERR_NO_MEM. */
int errhandler_create(errhandler_fn *fn, MPI_Errhandler *out);
/* Nonzero for the predefined handlers and live user handlers. */
int errhandler_is_valid(MPI_Errhandler h);
/* The user function of a user handler; NULL for the predefined ones. */
errhandler_fn *errhandler_function(MPI_Errhandler h);
/* Reference counting of valid handlers (no-ops for the predefined ones). */
void errhandler_retain(MPI_Errhandler h);
void errhandler_release(MPI_Errhandler h);

#endif
