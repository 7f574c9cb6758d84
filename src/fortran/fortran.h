/*
 * What the generated Fortran wrappers (gen_wrappers.py) and the hand-written ones
 * (special.c) share: symbol export, the sentinels, CHARACTER conversion. See docs/fortran.md.
 *
 * Sentinels: MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, MPI_UNWEIGHTED,
 * MPI_WEIGHTS_EMPTY, MPI_ERRCODES_IGNORE, MPI_ARGV(S)_NULL are variables of COMMON blocks in
 * Fortran (mpif.h, the mpi module); libmpi defines the blocks (api/fortran_sentinels.c), so
 * the program's references and the libraries' are one object, and a wrapper recognises a
 * sentinel by its address. Handles are the same integers in Fortran and C (MPI_Comm_c2f is the identity,
 * api/handle_convert.c), so the wrappers pass them unchanged and the C call checks them.
 */
#ifndef METAMPI_FORTRAN_FORTRAN_H
#define METAMPI_FORTRAN_FORTRAN_H

#include <mpi.h>
#include <stddef.h>

#define F_EXPORT __attribute__((visibility("default")))

/* name__ (gfortran -fsecond-underscore, g77) and NAME (upper case, no underscore) of the
 * wrapper name_. */
#define F_ALIASES(name, NAME)                                                                  \
    F_EXPORT extern __typeof__(name##_) name##__ __attribute__((alias(#name "_")));          \
    F_EXPORT extern __typeof__(name##_) NAME __attribute__((alias(#name "_")));

/* P(profiled, X): PMPI_X for the pmpi_ entries, MPI_X for the mpi_ ones */
#define P(profiled, X) ((profiled) ? P##X : X)

/* mpi_x_ and pmpi_x_ (and their aliases) calling impl(0 / 1, the arguments...) */
#define F_ENTRIES(lower, UPPER, params, impl, ...)                                             \
    F_EXPORT void mpi_##lower##_ params { impl(0, __VA_ARGS__); }                              \
    F_ALIASES(mpi_##lower, MPI_##UPPER)                                                        \
    F_EXPORT void pmpi_##lower##_ params { impl(1, __VA_ARGS__); }                             \
    F_ALIASES(pmpi_##lower, PMPI_##UPPER)

/* Stores an MPI call's result in IERROR, which mpi_f08 callers may omit (NULL). */
#define F_RETURN(ierror, rc)                                                                   \
    do {                                                                                       \
        int rc_ = (rc);                                                                        \
        if (ierror)                                                                            \
            *(ierror) = rc_;                                                                   \
    } while (0)

/* the COMMON blocks /MPI_FORTRAN_BOTTOM/ ... (gfortran: lower case, one underscore), defined
 * in libmpi (api/fortran_sentinels.c) */
extern MPI_Fint mpi_fortran_bottom_;
extern MPI_Fint mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_STATUS_SIZE];
extern MPI_Fint mpi_fortran_unweighted_;
extern MPI_Fint mpi_fortran_weights_empty_;
extern MPI_Fint mpi_fortran_errcodes_ignore_;
extern char mpi_fortran_argv_null_;
extern char mpi_fortran_argvs_null_;

#define F_BUFFER(p)                                                                            \
    ((void *)(p) == (void *)&mpi_fortran_bottom_     ? MPI_BOTTOM                              \
     : (void *)(p) == (void *)&mpi_fortran_in_place_ ? MPI_IN_PLACE                            \
                                                     : (void *)(p))
#define F_STATUS(p)                                                                            \
    ((void *)(p) == (void *)mpi_fortran_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)(p))
#define F_STATUSES(p)                                                                          \
    ((void *)(p) == (void *)mpi_fortran_statuses_ignore_ ? MPI_STATUSES_IGNORE                 \
                                                         : (MPI_Status *)(p))
#define F_WEIGHTS(p)                                                                           \
    ((void *)(p) == (void *)&mpi_fortran_unweighted_      ? MPI_UNWEIGHTED                     \
     : (void *)(p) == (void *)&mpi_fortran_weights_empty_ ? MPI_WEIGHTS_EMPTY                  \
                                                          : (int *)(p))

/* Room for any string the C calls return (MPI_MAX_INFO_VAL is the largest limit). */
#define FSTRING_OUT_MAX (MPI_MAX_INFO_VAL + 1)

/* A NUL-terminated copy of a Fortran CHARACTER(len) without its trailing blanks (free() it);
 * NULL when out of memory. */
char *fstring_in(const char *f, size_t len);
/* Stores C string c into CHARACTER(len) f: truncated to len, padded with blanks. */
void fstring_out(const char *c, char *f, size_t len);
/* The valuelen to pass to C for a CHARACTER(len) result: at most len and the C buffer. */
int fstring_clamp(int valuelen, size_t len);
/* Raises MPI_ERR_NO_MEM on MPI_COMM_WORLD for `func` (a string could not be converted). */
int fstring_no_memory(const char *func);

#endif
