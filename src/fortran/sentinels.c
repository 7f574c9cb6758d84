/* The COMMON blocks that hold Fortran's sentinels (fortran.h): defined here, in the library,
 * so that every program unit that declares them (mpif.h, the mpi module) and the wrappers
 * share one object each. A program's COMMON declaration of the same block binds to these
 * (ELF: the program's reference and ours resolve to one symbol). Their sizes are those of
 * mpif.h's declarations; their values are never read. Aligned as gfortran aligns a COMMON
 * block (16 bytes), so that the linker sees one alignment for each. */
#include "fortran/fortran.h"

#define F_COMMON F_EXPORT __attribute__((aligned(16)))

F_COMMON MPI_Fint mpi_fortran_bottom_;
F_COMMON MPI_Fint mpi_fortran_in_place_;
F_COMMON MPI_Fint mpi_fortran_status_ignore_[MPI_STATUS_SIZE];
F_COMMON MPI_Fint mpi_fortran_statuses_ignore_[MPI_STATUS_SIZE];
F_COMMON MPI_Fint mpi_fortran_unweighted_;
F_COMMON MPI_Fint mpi_fortran_weights_empty_;
F_COMMON MPI_Fint mpi_fortran_errcodes_ignore_;
F_COMMON char mpi_fortran_argv_null_;
F_COMMON char mpi_fortran_argvs_null_;
