! MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran (MPI-3.1 §10.3.2-3): ARGV is an
! array of blank-padded strings ended by a blank one (trailing blanks go, inner ones stay),
! ARRAY_OF_ARGV(COUNT, *) holds command i's arguments in row i, MPI_ARGV_NULL gives none, and
! MPI_ERRCODES_IGNORE or an array takes the codes. The program spawns itself: spawn through
! `use mpi_f08`, spawn_multiple through `use mpi`; each child checks its command line, and
! parents and children agree on the outcome over the merged communicator.
module spawn_checks
  implicit none
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

  ! Both sides: merge, every member's verdict (1 good), free
  subroutine agree(inter, mine, verdict)
    use mpi_f08
    type(MPI_Comm), intent(inout) :: inter
    integer, intent(in) :: mine
    integer, intent(out) :: verdict
    type(MPI_Comm) :: merged
    call MPI_Intercomm_merge(inter, .true., merged)
    call MPI_Allreduce(mine, verdict, 1, MPI_INTEGER, MPI_MIN, merged)
    call MPI_Comm_free(merged)
    call MPI_Comm_disconnect(inter)
  end subroutine agree
end module spawn_checks

subroutine child(parent)
  use mpi_f08
  use spawn_checks
  implicit none
  type(MPI_Comm), intent(inout) :: parent
  character(len=64) :: a1, a2
  integer :: n, good, verdict
  integer(kind=MPI_ADDRESS_KIND) :: appnum
  logical :: flag
  n = command_argument_count()
  a1 = ''
  a2 = ''
  if (n >= 1) call get_command_argument(1, a1)
  if (n >= 2) call get_command_argument(2, a2)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, flag)
  if (n == 0) then
    good = 1                                              ! MPI_ARGV_NULL
  else if (a1 == 'child') then
    good = merge(1, 0, n == 2 .and. a2 == 'two words')    ! inner blank kept, padding gone
  else if (a1 == 'multi') then
    good = merge(1, 0, n == 2 .and. flag .and. &
                 ((appnum == 0 .and. a2 == 'a') .or. (appnum == 1 .and. a2 == 'bb')))
  else
    good = 0
  end if
  call agree(parent, good, verdict)
end subroutine child

subroutine spawn_f08(prog)
  use mpi_f08
  use spawn_checks
  implicit none
  character(len=*), intent(in) :: prog
  type(MPI_Comm) :: inter
  character(len=12) :: argv(3)
  integer :: codes(2), verdict
  argv(1) = 'child'
  argv(2) = 'two words'
  argv(3) = ' '
  call MPI_Comm_spawn(prog, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, codes)
  call check(all(codes == MPI_SUCCESS), 'spawn errcodes')
  call agree(inter, 1, verdict)
  call check(verdict == 1, 'children of MPI_Comm_spawn saw their argv')
  call MPI_Comm_spawn(prog, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                      MPI_ERRCODES_IGNORE)
  call agree(inter, 1, verdict)
  call check(verdict == 1, 'a child of MPI_ARGV_NULL has no arguments')
end subroutine spawn_f08

subroutine spawn_multiple_f90(prog)
  use mpi
  implicit none
  character(len=*), intent(in) :: prog
  character(len=256) :: commands(2)
  character(len=8) :: argv(2, 3)
  integer :: maxprocs(2), infos(2), codes(2), inter, merged, ierror, good
  commands = prog
  argv(1, :) = [character(len=8) :: 'multi', 'a', ' ']
  argv(2, :) = [character(len=8) :: 'multi', 'bb', ' ']
  maxprocs = 1
  infos = MPI_INFO_NULL
  call MPI_Comm_spawn_multiple(2, commands, argv, maxprocs, infos, 0, MPI_COMM_WORLD, inter, &
                               codes, ierror)
  if (ierror /= MPI_SUCCESS .or. any(codes /= MPI_SUCCESS)) call MPI_Abort(MPI_COMM_WORLD, 1, &
                                                                           ierror)
  call MPI_Intercomm_merge(inter, .false., merged, ierror)
  call MPI_Allreduce(1, good, 1, MPI_INTEGER, MPI_MIN, merged, ierror)
  if (good /= 1) then
    print '(a)', 'FAIL: children of MPI_Comm_spawn_multiple saw the wrong argv'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierror)
  end if
  call MPI_Comm_free(merged, ierror)
  call MPI_Comm_disconnect(inter, ierror)
end subroutine spawn_multiple_f90

program spawn
  use mpi_f08
  implicit none
  type(MPI_Comm) :: parent
  character(len=256) :: prog
  integer :: rank
  call MPI_Init()
  call MPI_Comm_get_parent(parent)
  if (parent /= MPI_COMM_NULL) then
    call child(parent)
  else
    call get_command_argument(0, prog)
    call spawn_f08(trim(prog))
    call spawn_multiple_f90(trim(prog))
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    if (rank == 0) print '(a)', 'fortran spawn: ok'
  end if
  call MPI_Finalize()
end program spawn
