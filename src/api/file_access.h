/*
 * The data access calls' common bodies (file_rw.c, file_shared.c), which the blocking, the
 * nonblocking and the split collective forms (file_nb.c) share. Each checks its arguments,
 * moves the data, fills status (may be MPI_STATUS_IGNORE) and raises errors on the file's
 * handler.
 */
#ifndef METAMPI_API_FILE_ACCESS_H
#define METAMPI_API_FILE_ACCESS_H

#include "api/file_checks.h"

/* At view position offset (etypes) or, when offset < 0, at the individual file pointer,
 * which then advances by the etypes moved. */
int file_access(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                MPI_Status *status, int write, const char *func);
/* At an explicit offset (a negative one is MPI_ERR_ARG). */
int file_access_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                   MPI_Datatype datatype, MPI_Status *status, int write, const char *func);
/* At the shared file pointer: independent, and ordered (collective). */
int file_access_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status, int write, const char *func);
int file_access_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status, int write, const char *func);

#endif
