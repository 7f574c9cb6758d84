! MPI_Info_get_string from Fortran (MPI-4.0 §10), through `use mpi_f08` and `use mpi`:
! BUFLEN in is how many characters VALUE may receive (0: VALUE untouched), out the value's
! length with no terminator; VALUE is blank-padded, truncated to min(BUFLEN, LEN(VALUE));
! an absent key leaves VALUE and BUFLEN alone; a negative BUFLEN is an error (MPI_ERR_ARG).
! `canary` follows `value` in a sequence type, so a wrapper writing past LEN(VALUE) (sizing
! from BUFLEN) shows. Any failure aborts the job.
module info_checks
  implicit none
  type :: guarded
    sequence
    character(len=16) :: value
    character(len=8) :: canary
  end type guarded
contains
  subroutine check(ok, what)
    use mpi_f08, only: MPI_Abort, MPI_COMM_WORLD
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(2a)', 'FAIL: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check
end module info_checks

subroutine check_f08()
  use mpi_f08
  use info_checks
  implicit none
  type(MPI_Info) :: info
  type(guarded) :: g
  integer :: buflen, ierror, class
  logical :: flag

  call MPI_Info_create(info)
  call MPI_Info_set(info, 'short', '123456789')
  call MPI_Info_set(info, 'long', repeat('x', 40))
  g%canary = 'canary'

  buflen = 16
  call MPI_Info_get_string(info, 'short', buflen, g%value, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag, 'f08: short key found')
  call check(g%value == '123456789' .and. buflen == 9, 'f08: short value, buflen 9')

  buflen = 4
  call MPI_Info_get_string(info, 'short', buflen, g%value, flag)
  call check(flag .and. g%value == '1234' .and. buflen == 9, 'f08: truncated to buflen 4')

  g%value = 'keep'
  buflen = 0
  call MPI_Info_get_string(info, 'short', buflen, g%value, flag)
  call check(flag .and. g%value == 'keep' .and. buflen == 9, 'f08: buflen 0 leaves value')

  buflen = 7
  call MPI_Info_get_string(info, 'absent', buflen, g%value, flag)
  call check(.not. flag .and. g%value == 'keep' .and. buflen == 7, 'f08: absent key')

  buflen = 100
  call MPI_Info_get_string(info, 'long  ', buflen, g%value, flag)
  call check(flag .and. g%value == repeat('x', 16) .and. buflen == 40, &
             'f08: buflen beyond len(value): truncated to len(value)')
  call check(g%canary == 'canary', 'f08: nothing written past value')

  buflen = 16
  call PMPI_Info_get_string(info, 'long', buflen, g%value, flag)
  call check(flag .and. buflen == 40, 'f08: PMPI_Info_get_string')

  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  buflen = -1
  call MPI_Info_get_string(info, 'short', buflen, g%value, flag, ierror)
  call MPI_Error_class(ierror, class)
  call check(class == MPI_ERR_ARG, 'f08: negative buflen is MPI_ERR_ARG')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  call MPI_Info_free(info)
end subroutine check_f08

subroutine check_mpi()
  use mpi
  use info_checks
  implicit none
  integer :: info, buflen, ierror
  character(len=5) :: value
  logical :: flag

  call MPI_Info_create(info, ierror)
  call MPI_Info_set(info, 'k', 'abc', ierror)
  buflen = 5
  call MPI_Info_get_string(info, 'k', buflen, value, flag, ierror)
  call check(ierror == MPI_SUCCESS .and. flag .and. value == 'abc' .and. buflen == 3, &
             'mpi: value, buflen 3')
  buflen = 2
  call MPI_INFO_GET_STRING(info, 'k', buflen, value, flag, ierror)
  call check(flag .and. value == 'ab' .and. buflen == 3, 'mpi: truncated to buflen 2')
  call MPI_Info_free(info, ierror)
end subroutine check_mpi

program info_get_string
  use mpi_f08, only: MPI_Init, MPI_Finalize, MPI_Comm_rank, MPI_COMM_WORLD
  implicit none
  integer :: rank
  call MPI_Init()
  call check_f08()
  call check_mpi()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (rank == 0) print '(a)', 'info_get_string: ok'
  call MPI_Finalize()
end program info_get_string
