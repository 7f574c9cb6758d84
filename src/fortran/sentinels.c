/* The COMMON blocks that hold Fortran's sentinels (fortran.h): defined here, in the library,
 * so that every program unit that declares them (mpif.h, the mpi module) and the wrappers
 * share one object each. A program's COMMON declaration of the same block binds to these
 * (ELF: the program's reference and ours resolve to one symbol). Their sizes are those of
 * mpif.h's declarations; their values are never read. */
#include "fortran/fortran.h"

F_EXPORT MPI_Fint mpi_fortran_bottom_;
F_EXPORT MPI_Fint mpi_fortran_in_place_;
F_EXPORT MPI_Fint mpi_fortran_status_ignore_[MPI_STATUS_SIZE];
F_EXPORT MPI_Fint mpi_fortran_statuses_ignore_[MPI_STATUS_SIZE];
F_EXPORT MPI_Fint mpi_fortran_unweighted_;
F_EXPORT MPI_Fint mpi_fortran_weights_empty_;
F_EXPORT MPI_Fint mpi_fortran_errcodes_ignore_;
F_EXPORT char mpi_fortran_argv_null_;
F_EXPORT char mpi_fortran_argvs_null_;
