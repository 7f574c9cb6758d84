! A Fortran 90 program with `use mpi`: nonblocking calls with arrays of requests and statuses
! (MPI_WAITALL, MPI_WAITANY's 1-based index, MPI_TESTSOME, MPI_STATUSES_IGNORE), MPI_IN_PLACE,
! MPI_COMM_SPLIT, names (CHARACTER in and out), MPI_ERROR_STRING, derived datatypes over
! Fortran arrays (a row of a column-major matrix, a subarray in MPI_ORDER_FORTRAN), a
! user-defined op, error handler, keyval and generalized-request callbacks written in
! Fortran, MPI_TYPE_CREATE_F90_REAL, MPI_COMM_GET_ATTR, MPI_SIZEOF, MPI_WTIME. Any failure
! aborts the job.
module checks
  use mpi
  implicit none
  integer :: deleted = 0, freed = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    if (.not. ok) then
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      print '(a,i3,a,a)', 'FAIL rank', rank, ': ', what
      call MPI_ABORT(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check

  ! x op y = x (the left operand wins) on INTEGERs: associative, not commutative
  subroutine first_wins(invec, inoutvec, len, datatype)
    integer, intent(in) :: len, datatype
    integer, intent(in) :: invec(len)
    integer, intent(inout) :: inoutvec(len)
    integer :: i
    if (datatype /= MPI_INTEGER) return
    do i = 1, len
      inoutvec(i) = invec(i)
    end do
  end subroutine first_wins

  ! copies an attribute doubled; counts deletions in `deleted`
  subroutine double_copy(oldcomm, keyval, extra, value_in, value_out, flag, ierror)
    integer :: oldcomm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, value_in, value_out
    logical :: flag
    if (extra /= 7 .or. oldcomm == MPI_COMM_NULL .or. keyval == MPI_KEYVAL_INVALID) then
      flag = .false.
      ierror = MPI_ERR_OTHER
      return
    end if
    value_out = 2 * value_in
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine double_copy

  subroutine count_delete(comm, keyval, value, extra, ierror)
    integer :: comm, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: value, extra
    if (comm /= MPI_COMM_NULL .and. keyval /= MPI_KEYVAL_INVALID .and. extra == 7) &
      deleted = deleted + int(value)
    ierror = MPI_SUCCESS
  end subroutine count_delete

  ! a generalized request's callbacks: the status names the source 77; free counts
  subroutine greq_query(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierror
    call MPI_STATUS_SET_ELEMENTS(status, MPI_INTEGER, int(extra), ierror)
    status(MPI_SOURCE) = 77
    status(MPI_TAG) = 5
    ierror = MPI_SUCCESS
  end subroutine greq_query

  subroutine greq_free(extra, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierror
    freed = freed + int(extra)
    ierror = MPI_SUCCESS
  end subroutine greq_free

  subroutine greq_cancel(extra, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierror
    if (complete .or. extra < 0) freed = -1000
    ierror = MPI_SUCCESS
  end subroutine greq_cancel

  subroutine on_error(comm, code)
    integer :: comm, code
    integer :: ierr
    call MPI_COMM_SET_NAME(comm, 'handled', ierr)
    if (code == MPI_SUCCESS) call MPI_ABORT(comm, 2, ierr)
  end subroutine on_error
end module checks

program use_mpi
  use mpi
  use checks
  implicit none
  integer :: ierr, rank, np, next, prev, i, j, idx, outcount, color, sub, subrank, subsize
  integer :: requests(4), statuses(MPI_STATUS_SIZE, 4), indices(4), rowtype, subtype, op
  integer :: errh, len, f90type, sums(3), keyval, keyval2, dup
  integer(kind=MPI_ADDRESS_KIND) :: attr
  integer :: sendbuf(5), recvbuf(5, 2)
  double precision :: a(4, 3), row(3), blk(4), t0, x(2), y(2)
  real(kind=selected_real_kind(15)) :: z
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: message
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag

  call MPI_INIT(ierr)
  t0 = MPI_WTIME()
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  ! nonblocking exchange with both neighbours, arrays of requests and statuses
  sendbuf = [(rank * 10 + i, i = 1, 5)]
  call MPI_IRECV(recvbuf(1, 1), 5, MPI_INTEGER, prev, 1, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_IRECV(recvbuf(1, 2), 5, MPI_INTEGER, next, 2, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_ISEND(sendbuf, 5, MPI_INTEGER, next, 1, MPI_COMM_WORLD, requests(3), ierr)
  call MPI_ISEND(sendbuf, 5, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, requests(4), ierr)
  call MPI_WAITALL(4, requests, statuses, ierr)
  call check(ierr == MPI_SUCCESS, 'waitall')
  call check(statuses(MPI_SOURCE, 1) == prev .and. statuses(MPI_TAG, 2) == 2, 'statuses')
  call check(all(recvbuf(:, 1) == [(prev * 10 + i, i = 1, 5)]), 'data from prev')
  call check(all(recvbuf(:, 2) == [(next * 10 + i, i = 1, 5)]), 'data from next')
  call check(all(requests == MPI_REQUEST_NULL), 'requests freed')

  ! MPI_WAITANY: Fortran's index is 1-based; MPI_STATUSES_IGNORE; MPI_TESTSOME
  requests(1) = MPI_REQUEST_NULL
  call MPI_IRECV(recvbuf, 5, MPI_INTEGER, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, requests(2), ierr)
  call MPI_ISEND(sendbuf, 5, MPI_INTEGER, rank, 3, MPI_COMM_WORLD, requests(3), ierr)
  call MPI_WAITANY(2, requests, idx, statuses(:, 1), ierr)
  call check(idx == 2, 'waitany index is 1-based')
  call check(statuses(MPI_SOURCE, 1) == rank, 'waitany status')
  call MPI_WAITALL(3, requests, MPI_STATUSES_IGNORE, ierr)
  call MPI_IRECV(recvbuf, 5, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, requests(1), ierr)
  call MPI_SEND(sendbuf, 5, MPI_INTEGER, rank, 4, MPI_COMM_WORLD, ierr)
  outcount = 0
  do while (outcount == 0)
    call MPI_TESTSOME(1, requests, outcount, indices, statuses, ierr)
  end do
  call check(outcount == 1 .and. indices(1) == 1, 'testsome indices are 1-based')

  ! MPI_IN_PLACE
  x = [dble(rank), 1.0d0]
  call MPI_ALLREDUCE(MPI_IN_PLACE, x, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(x(1) == np * (np - 1) / 2 .and. x(2) == np, 'allreduce in place')

  ! communicator split (even and odd ranks, reversed order) and its name
  color = mod(rank, 2)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, color, -rank, sub, ierr)
  call MPI_COMM_RANK(sub, subrank, ierr)
  call MPI_COMM_SIZE(sub, subsize, ierr)
  call check(subsize == (np + 1 - color) / 2, 'split size')
  call check(subrank == subsize - 1 - rank / 2, 'split order')
  call MPI_COMM_SET_NAME(sub, 'odd and even   ', ierr)
  name = 'garbage'
  call MPI_COMM_GET_NAME(sub, name, len, ierr)
  call check(name == 'odd and even' .and. len == 12, 'comm name round trip')
  call MPI_COMM_GET_NAME(MPI_COMM_WORLD, name, len, ierr)
  call check(name == 'MPI_COMM_WORLD', 'world name')
  call MPI_COMM_FREE(sub, ierr)
  call check(sub == MPI_COMM_NULL, 'comm_free')

  ! MPI_ERROR_STRING into a CHARACTER
  call MPI_ERROR_STRING(MPI_ERR_TRUNCATE, message, len, ierr)
  call check(len > 0 .and. len_trim(message) == len, 'error string')

  ! a row of the column-major a(4, 3): 3 elements with stride 4
  a = reshape([(dble(i), i = 1, 12)], [4, 3])
  call MPI_TYPE_VECTOR(3, 1, 4, MPI_DOUBLE_PRECISION, rowtype, ierr)
  call MPI_TYPE_COMMIT(rowtype, ierr)
  call MPI_SENDRECV(a(2, 1), 1, rowtype, rank, 5, row, 3, MPI_DOUBLE_PRECISION, rank, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(all(row == a(2, :)), 'row of a matrix')
  call MPI_TYPE_FREE(rowtype, ierr)
  ! the 2 x 2 block a(3:4, 2:3) in Fortran order
  call MPI_TYPE_CREATE_SUBARRAY(2, [4, 3], [2, 2], [2, 1], MPI_ORDER_FORTRAN, &
                                MPI_DOUBLE_PRECISION, subtype, ierr)
  call MPI_TYPE_COMMIT(subtype, ierr)
  call MPI_SENDRECV(a, 1, subtype, rank, 6, blk, 4, MPI_DOUBLE_PRECISION, rank, 6, &
                    MPI_COMM_WORLD, statuses(:, 1), ierr)
  call MPI_GET_COUNT(statuses(:, 1), MPI_DOUBLE_PRECISION, i, ierr)
  call check(i == 4, 'count')
  call check(all(blk == [a(3, 2), a(4, 2), a(3, 3), a(4, 3)]), 'subarray')
  call MPI_TYPE_FREE(subtype, ierr)

  ! a user op in Fortran (non-commutative: applied in rank order)
  call MPI_OP_CREATE(first_wins, .false., op, ierr)
  sums = [rank + 1, rank + 2, rank + 3]
  call MPI_ALLREDUCE(MPI_IN_PLACE, sums, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(all(sums == [1, 2, 3]), 'user op in rank order')
  call MPI_REDUCE(rank, j, 1, MPI_INTEGER, op, np - 1, MPI_COMM_WORLD, ierr)
  call check(rank /= np - 1 .or. j == 0, 'user op reduce')
  call MPI_OP_COMMUTATIVE(op, flag, ierr)
  call check(.not. flag, 'op_commutative')
  call MPI_OP_FREE(op, ierr)

  ! an error handler in Fortran, called by MPI_COMM_CALL_ERRHANDLER
  call MPI_COMM_DUP(MPI_COMM_WORLD, sub, ierr)
  call MPI_COMM_CREATE_ERRHANDLER(on_error, errh, ierr)
  call MPI_COMM_SET_ERRHANDLER(sub, errh, ierr)
  call MPI_COMM_CALL_ERRHANDLER(sub, MPI_ERR_OTHER, ierr)
  call MPI_COMM_GET_NAME(sub, name, len, ierr)
  call check(name == 'handled', 'errhandler called with the communicator')
  call MPI_ERRHANDLER_FREE(errh, ierr)
  call MPI_COMM_FREE(sub, ierr)

  ! keyvals with Fortran callbacks, and the predefined MPI_COMM_DUP_FN
  call MPI_COMM_CREATE_KEYVAL(double_copy, count_delete, keyval, 7_MPI_ADDRESS_KIND, ierr)
  call MPI_COMM_CREATE_KEYVAL(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval2, &
                              0_MPI_ADDRESS_KIND, ierr)
  call MPI_COMM_DUP(MPI_COMM_WORLD, sub, ierr)
  call MPI_COMM_SET_ATTR(sub, keyval, 21_MPI_ADDRESS_KIND, ierr)
  call MPI_COMM_SET_ATTR(sub, keyval2, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_COMM_DUP(sub, dup, ierr)
  call check(ierr == MPI_SUCCESS, 'dup with attributes')
  call MPI_COMM_GET_ATTR(dup, keyval, attr, flag, ierr)
  call check(flag .and. attr == 42, 'copy callback in Fortran')
  call MPI_COMM_GET_ATTR(dup, keyval2, attr, flag, ierr)
  call check(flag .and. attr == 5, 'MPI_COMM_DUP_FN')
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_FREE(sub, ierr)
  call check(deleted == 42 + 21, 'delete callback in Fortran')
  call MPI_COMM_FREE_KEYVAL(keyval, ierr)
  call MPI_COMM_FREE_KEYVAL(keyval2, ierr)
  call check(keyval == MPI_KEYVAL_INVALID, 'free_keyval')
  call MPI_KEYVAL_CREATE(MPI_DUP_FN, MPI_NULL_DELETE_FN, keyval, 0, ierr)
  call MPI_ATTR_PUT(MPI_COMM_SELF, keyval, 99, ierr)
  call MPI_COMM_DUP(MPI_COMM_SELF, dup, ierr)
  call MPI_ATTR_GET(dup, keyval, j, flag, ierr)
  call check(flag .and. j == 99, 'MPI-1 keyval with MPI_DUP_FN')
  call MPI_COMM_FREE(dup, ierr)
  call MPI_KEYVAL_FREE(keyval, ierr)

  ! a generalized request with Fortran callbacks
  call MPI_GREQUEST_START(greq_query, greq_free, greq_cancel, 3_MPI_ADDRESS_KIND, &
                          requests(1), ierr)
  call MPI_TEST(requests(1), flag, statuses(:, 1), ierr)
  call check(.not. flag, 'grequest pending')
  call MPI_GREQUEST_COMPLETE(requests(1), ierr)
  call MPI_WAIT(requests(1), statuses(:, 1), ierr)
  call check(ierr == MPI_SUCCESS .and. requests(1) == MPI_REQUEST_NULL, 'grequest wait')
  call check(statuses(MPI_SOURCE, 1) == 77 .and. statuses(MPI_TAG, 1) == 5, 'grequest query')
  call MPI_GET_COUNT(statuses(:, 1), MPI_INTEGER, i, ierr)
  call check(i == 3, 'grequest count')
  call check(freed == 3, 'grequest free')

  ! a parameterized type and a predefined attribute
  call MPI_TYPE_CREATE_F90_REAL(15, MPI_UNDEFINED, f90type, ierr)
  z = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, z, 1, f90type, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(z == np - 1, 'f90 real type')
  call MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  call check(flag .and. tag_ub >= 32767, 'MPI_TAG_UB')

  ! MPI_SIZEOF of any type and rank
  call MPI_SIZEOF(a, i, ierr)
  call check(i == 8 .and. ierr == MPI_SUCCESS, 'MPI_SIZEOF double precision array')
  call MPI_SIZEOF(1_2, i, ierr)
  call check(i == 2, 'MPI_SIZEOF integer(2)')
  call MPI_SIZEOF((1.0, 1.0), i, ierr)
  call check(i == 8, 'MPI_SIZEOF complex')

  y = MPI_WTIME() - t0
  call check(y(1) >= 0.0d0, 'wtime')
  call MPI_FINALIZE(ierr)
  if (rank == 0) print '(a)', 'use mpi: ok'
end program use_mpi
