/*
 * Error classes, their names and texts, and raising an error on a communicator.
 *
 * Error codes returned to the user are the error classes themselves (MPI_ERR_RANK, ...), so
 * `rc == MPI_ERR_TRUNCATE` works as users expect. The specific text of the most recent error
 * ("MPI_Send: invalid rank 7 in a communicator of size 4") is printed by a fatal handler.
 */
#ifndef METAMPI_ERRORS_H
#define METAMPI_ERRORS_H

#include <mpi.h>

/* "MPI_ERR_RANK"; NULL for a code that is not a predefined class */
const char *err_class_name(int errclass);
/* "invalid rank"; NULL for a code that is not a predefined class */
const char *err_class_text(int errclass);

/* Raises errclass on comm (MPI_COMM_WORLD's handler when comm is not a valid communicator,
 * or for errors that belong to no communicator). The message names the function and says
 * what is wrong. Returns errclass when the handler returns (MPI_ERRORS_RETURN). */
int err_raise(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Ends the job with a report: used for MPI_ERRORS_ARE_FATAL and for errors no handler can
 * take (calls before MPI_Init or after MPI_Finalize, a lost launcher, internal failures). */
_Noreturn void err_fatal(int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
