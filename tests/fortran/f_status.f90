! MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE (MPI-3.1 17.2.5): a C function called from
! Fortran sees Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE as them, and a real status
! as neither; MPI_Status_f2c converts a real one and refuses the ignore values.
program f_status
  use mpi
  implicit none
  integer :: ierr, res, st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 2)
  external :: c_compare
  call MPI_Init(ierr)
  call c_compare(MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, res)
  if (res /= 3) error stop 'the ignore values are not MPI_F_STATUS(ES)_IGNORE in C'
  st = 0
  st(MPI_SOURCE) = 5
  call c_compare(st, sts, res)
  if (res /= 4) error stop 'a real status was taken for an ignore value, or f2c failed'
  call MPI_Finalize(ierr)
  print '(a)', 'fortran f_status: OK'
end program f_status
