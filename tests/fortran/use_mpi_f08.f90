! `use mpi_f08`: handles of derived types (type(MPI_Comm) ...) compared with == and /=,
! type(MPI_Status) with its MPI_SOURCE/MPI_TAG/MPI_ERROR components, IERROR omitted,
! arrays of type(MPI_Request) and type(MPI_Status), MPI_STATUSES_IGNORE, MPI_IN_PLACE,
! MPI_Comm_split, names, MPI_Error_string, a derived datatype, a user op with the F08
! interface (TYPE(C_PTR), VALUE buffers), keyval and generalized-request callbacks with the
! F08 interfaces, MPI_COMM_DUP_FN, MPI_Sizeof, MPI_Wtime. Any failure aborts the job.
module f08_checks
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  logical :: greq_freed = .false.
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank
    if (.not. ok) then
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      print '(a,i3,a,a)', 'FAIL rank', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine check

  ! the left operand wins: associative, not commutative
  subroutine first_wins(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) return
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a
  end subroutine first_wins

  ! copies an attribute tripled
  subroutine triple_copy(oldcomm, keyval, extra, value_in, value_out, flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, value_in, value_out
    logical :: flag
    flag = oldcomm /= MPI_COMM_NULL .and. keyval /= MPI_KEYVAL_INVALID .and. extra == 3
    value_out = 3 * value_in
    ierror = MPI_SUCCESS
  end subroutine triple_copy

  subroutine greq_query(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    type(MPI_Status) :: status
    integer :: ierror
    status%MPI_SOURCE = int(extra)
    status%MPI_TAG = 6
    ierror = MPI_SUCCESS
  end subroutine greq_query

  subroutine greq_free(extra, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierror
    greq_freed = extra == 55
    ierror = MPI_SUCCESS
  end subroutine greq_free

  subroutine greq_cancel(extra, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierror
    if (complete .or. extra /= 55) greq_freed = .false.
    ierror = MPI_SUCCESS
  end subroutine greq_cancel
end module f08_checks

program use_mpi_f08
  use mpi_f08
  use f08_checks
  implicit none
  integer :: ierr, rank, np, next, prev, i, count, len, sums(3)
  type(MPI_Comm) :: sub, dup
  type(MPI_Request) :: requests(2), greq
  integer :: keyval, keyval2
  integer(kind=MPI_ADDRESS_KIND) :: attr
  logical :: flag
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Datatype) :: pair
  type(MPI_Op) :: op
  integer :: sendbuf(4), recvbuf(4)
  double precision :: x(2), t0
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: message

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'init')
  t0 = MPI_Wtime()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  sendbuf = [(rank * 10 + i, i = 1, 4)]
  call MPI_Irecv(recvbuf, 4, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, requests(1))
  call MPI_Isend(sendbuf, 4, MPI_INTEGER, next, 1, MPI_COMM_WORLD, requests(2))
  call MPI_Waitall(2, requests, statuses, ierr)
  call check(ierr == MPI_SUCCESS, 'waitall')
  call check(statuses(1)%MPI_SOURCE == prev .and. statuses(1)%MPI_TAG == 1, 'status fields')
  call check(all(recvbuf == [(prev * 10 + i, i = 1, 4)]), 'ring data')
  call check(requests(1) == MPI_REQUEST_NULL .and. .not. (requests(2) /= MPI_REQUEST_NULL), &
             'requests freed')
  call MPI_Get_count(statuses(1), MPI_INTEGER, count)
  call check(count == 4, 'get_count')

  call MPI_Sendrecv(sendbuf, 2, MPI_INTEGER, rank, 2, recvbuf, 4, MPI_INTEGER, rank, 2, &
                    MPI_COMM_WORLD, status)
  call check(status%MPI_SOURCE == rank .and. status%MPI_TAG == 2, 'sendrecv status')
  call MPI_Irecv(recvbuf, 4, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, requests(1))
  call MPI_Isend(sendbuf, 4, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, requests(2))
  call MPI_Waitall(2, requests, MPI_STATUSES_IGNORE)
  call MPI_Recv(recvbuf, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)

  x = [dble(rank), 1.0d0]
  call MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  call check(nint(x(1)) == np * (np - 1) / 2 .and. nint(x(2)) == np, 'allreduce in place')

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call check(sub /= MPI_COMM_NULL, 'split')
  call MPI_Comm_set_name(sub, 'halves')
  call MPI_Comm_get_name(sub, name, len)
  call check(name == 'halves' .and. len == 6, 'names')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(dup /= MPI_COMM_WORLD, 'dup is a new handle')
  call MPI_Comm_free(dup)
  call MPI_Comm_free(sub)
  call check(sub == MPI_COMM_NULL, 'free')

  call MPI_Error_string(MPI_ERR_COMM, message, len)
  call check(len > 0 .and. len_trim(message) == len, 'error string')

  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  call MPI_Bcast(sendbuf, 2, pair, 0, MPI_COMM_WORLD)
  call check(all(sendbuf == [11, 12, 13, 14] - 10), 'bcast of a derived type')
  call MPI_Type_free(pair)
  call check(pair == MPI_DATATYPE_NULL, 'type_free')

  call MPI_Op_create(first_wins, .false., op)
  sums = [rank + 1, rank + 2, rank + 3]
  call MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(sums == [1, 2, 3]), 'user op in rank order')
  call MPI_Op_free(op)

  ! a keyval with an F08 copy callback and MPI_COMM_NULL_DELETE_FN, MPI_COMM_DUP_FN
  call MPI_Comm_create_keyval(triple_copy, MPI_COMM_NULL_DELETE_FN, keyval, 3_MPI_ADDRESS_KIND)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval2, &
                              0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_SELF, keyval, 14_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(MPI_COMM_SELF, keyval2, 9_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(MPI_COMM_SELF, dup)
  call MPI_Comm_get_attr(dup, keyval, attr, flag)
  call check(flag .and. attr == 42, 'F08 copy callback')
  call MPI_Comm_get_attr(dup, keyval2, attr, flag)
  call check(flag .and. attr == 9, 'F08 MPI_COMM_DUP_FN')
  call MPI_Comm_free(dup)
  call MPI_Comm_delete_attr(MPI_COMM_SELF, keyval)
  call MPI_Comm_delete_attr(MPI_COMM_SELF, keyval2)
  call MPI_Comm_free_keyval(keyval)
  call MPI_Comm_free_keyval(keyval2)

  ! a generalized request with F08 callbacks
  call MPI_Grequest_start(greq_query, greq_free, greq_cancel, 55_MPI_ADDRESS_KIND, greq)
  call MPI_Grequest_complete(greq)
  call MPI_Wait(greq, status)
  call check(status%MPI_SOURCE == 55 .and. status%MPI_TAG == 6, 'F08 grequest query')
  call check(greq_freed .and. greq == MPI_REQUEST_NULL, 'F08 grequest free')

  call MPI_Sizeof(x, i)
  call check(i == 8 .and. .not. MPI_SUBARRAYS_SUPPORTED, 'MPI_Sizeof')
  call check(MPI_Wtime() >= t0, 'wtime')
  call MPI_Finalize()
  if (rank == 0) print '(a)', 'use mpi_f08: ok'
end program use_mpi_f08
