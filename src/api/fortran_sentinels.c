/* The COMMON blocks that hold Fortran's sentinels (src/fortran/fortran.h): defined here, in
 * libmpi, so that every program unit that declares them (mpif.h, the mpi modules), the
 * Fortran wrappers in libmpifort and C code given a Fortran status (MPI_F_STATUS_IGNORE)
 * share one object each. A program's COMMON declaration of the same block binds to these
 * (ELF: the program's reference and ours resolve to one symbol). Their sizes are those of
 * mpif.h's declarations; their values are never read. Aligned as gfortran aligns a COMMON
 * block (16 bytes), so that the linker sees one alignment for each. They are the only symbols
 * libmpi exports besides MPI_ and PMPI_ names (gfortran's names: lower case, one underscore). */
#include <mpi.h>

#define F_COMMON __attribute__((visibility("default"), aligned(16)))

F_COMMON MPI_Fint mpi_fortran_bottom_;
F_COMMON MPI_Fint mpi_fortran_in_place_;
F_COMMON MPI_Fint mpi_fortran_status_ignore_[MPI_STATUS_SIZE];
F_COMMON MPI_Fint mpi_fortran_statuses_ignore_[MPI_STATUS_SIZE];
F_COMMON MPI_Fint mpi_fortran_unweighted_;
F_COMMON MPI_Fint mpi_fortran_weights_empty_;
F_COMMON MPI_Fint mpi_fortran_errcodes_ignore_;
F_COMMON char mpi_fortran_argv_null_;
F_COMMON char mpi_fortran_argvs_null_;

/* MPI-3.1 §17.2.5: Fortran's MPI_STATUS(ES)_IGNORE as C sees them */
__attribute__((visibility("default"))) MPI_Fint *MPI_F_STATUS_IGNORE = mpi_fortran_status_ignore_;
__attribute__((visibility("default"))) MPI_Fint *MPI_F_STATUSES_IGNORE =
    mpi_fortran_statuses_ignore_;
