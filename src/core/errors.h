/*
 * Error classes, their names and texts, and raising an error on a communicator.
 *
 * Error codes returned to the user are the error classes themselves (MPI_ERR_RANK, ...), so
 * `rc == MPI_ERR_TRUNCATE` works as users expect. The specific text of the most recent error
 * ("MPI_Send: invalid rank 7 in a communicator of size 4") is printed by a fatal handler.
 *
 * User-defined classes and codes (MPI_Add_error_class / code, MPI-3.1 §8.5) are numbered
 * from MPI_ERR_LASTCODE + 1 up, classes and codes from one sequence; each code knows its
 * class (a class is its own class) and may have a string.
 */
#ifndef METAMPI_ERRORS_H
#define METAMPI_ERRORS_H

#include <mpi.h>

/* "MPI_ERR_RANK"; NULL for a code that is not a predefined class */
const char *err_class_name(int errclass);
/* "invalid rank"; NULL for a code that is not a predefined class */
const char *err_class_text(int errclass);

/* ---- user-defined error classes and codes ---- */

/* New class / new code of errclass (a valid class); MPI_SUCCESS or MPI_ERR_NO_MEM. */
int err_add_class(int *errclass);
int err_add_code(int errclass, int *errcode);
/* Nonzero for a predefined or user-defined error class. */
int err_is_class(int errclass);
/* The class of a predefined or user-defined error code, or -1 when code is none. */
int err_code_class(int code);
/* Sets the string of a user-defined class or code (string has < MPI_MAX_ERROR_STRING
 * characters); MPI_SUCCESS, MPI_ERR_NO_MEM. */
int err_set_string(int code, const char *string);
/* The string of a user-defined class or code ("" until set), NULL for other codes. */
const char *err_user_string(int code);
/* The value of the MPI_LASTUSEDCODE attribute: the largest code in use. */
int *err_last_used_code(void);

/* Raises errclass on comm (MPI_COMM_WORLD's handler when comm is not a valid communicator,
 * or for errors that belong to no communicator). The message names the function and says
 * what is wrong. Returns errclass when the handler returns (MPI_ERRORS_RETURN). */
int err_raise(MPI_Comm comm, int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* err_raise and err_call_handler for an object that is not a communicator (a window): its
 * handler eh, called with the object's handle. */
int err_raise_on(MPI_Errhandler eh, int object, int errclass, const char *func,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void err_call_handler_on(MPI_Errhandler eh, int object, int code, const char *func);

/* Invokes comm's error handler for code (MPI_Comm_call_errhandler): returns when the handler
 * returns. */
void err_call_handler(MPI_Comm comm, int code, const char *func);

/* Ends the job with a report: used for MPI_ERRORS_ARE_FATAL and for errors no handler can
 * take (calls before MPI_Init or after MPI_Finalize, a lost launcher, internal failures). */
_Noreturn void err_fatal(int errclass, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Every MPI function except the few the standard allows at any time starts with this:
 * a call outside Init..Finalize (core/state.h) is reported as such and ends the process. */
void state_require_initialized(const char *func);

#endif
