! Error paths from Fortran: with MPI_ERRORS_RETURN each failing call returns its error code in
! IERROR (its class checked with MPI_ERROR_CLASS), a per-request error lands in the
! MPI_ERROR field of its status (MPI_ERR_IN_STATUS), and MPI_ERROR_STRING describes it.
program errors
  use mpi
  implicit none
  integer :: ierr, rank, np, len, sz, requests(2), statuses(MPI_STATUS_SIZE, 2)
  integer :: buf(2), newtype
  character(len=MPI_MAX_ERROR_STRING) :: message

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call expect(ierr, MPI_SUCCESS, 'set_errhandler')

  call MPI_SEND(buf, 1, MPI_INTEGER, np, 0, MPI_COMM_WORLD, ierr)
  call expect(ierr, MPI_ERR_RANK, 'send to rank np')
  call MPI_ERROR_STRING(ierr, message, len, ierr)
  if (len == 0 .or. index(message, 'rank') == 0) call fail('error string: ' // trim(message))

  call MPI_SEND(buf, 1, 12345, rank, 0, MPI_COMM_WORLD, ierr)
  call expect(ierr, MPI_ERR_TYPE, 'send with a bad datatype')
  call MPI_SEND(buf, -1, MPI_INTEGER, rank, 0, MPI_COMM_WORLD, ierr)
  call expect(ierr, MPI_ERR_COUNT, 'negative count')
  call MPI_COMM_SIZE(MPI_COMM_NULL, sz, ierr)
  call expect(ierr, MPI_ERR_COMM, 'size of MPI_COMM_NULL')
  call MPI_TYPE_CREATE_F90_REAL(40, 10, newtype, ierr)
  call expect(ierr, MPI_ERR_ARG, 'f90 real of no kind')

  ! a receive too small: MPI_ERR_IN_STATUS, the request's status says MPI_ERR_TRUNCATE
  call MPI_IRECV(buf, 1, MPI_INTEGER, rank, 9, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_ISEND([1, 2], 2, MPI_INTEGER, rank, 9, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_WAITALL(2, requests, statuses, ierr)
  call expect(ierr, MPI_ERR_IN_STATUS, 'waitall with a truncated receive')
  call expect(statuses(MPI_ERROR, 1), MPI_ERR_TRUNCATE, 'status of the truncated receive')
  call expect(statuses(MPI_ERROR, 2), MPI_SUCCESS, 'status of the send')

  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'fortran errors: ok'
contains
  subroutine expect(code, wanted, what)
    integer, intent(in) :: code, wanted
    character(len=*), intent(in) :: what
    integer :: c, e
    c = code
    if (code /= MPI_SUCCESS) call MPI_ERROR_CLASS(code, c, e)
    if (c /= wanted) then
      print '(a,a,a,i4,a,i4)', 'FAIL ', what, ': class', c, ', expected', wanted
      call fail(what)
    end if
  end subroutine expect
  subroutine fail(what)
    character(len=*), intent(in) :: what
    integer :: e
    print '(a,a)', 'FAIL ', what
    call MPI_ABORT(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program errors
