! A classic FORTRAN 77 program with mpif.h: a ring of SEND/RECV with the status fields
! (MPI_SOURCE, MPI_TAG, MPI_ERROR) and MPI_GET_COUNT, BCAST, ALLREDUCE on
! DOUBLE PRECISION and INTEGER, MPI_STATUS_IGNORE, MPI_BOTTOM with an absolute
! datatype, MPI_WTIME. Any failure aborts the job (the test fails).
      PROGRAM F77BASIC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, NEXT, PREV, I, N, COUNT
      INTEGER STATUS(MPI_STATUS_SIZE)
      INTEGER IBUF(10), JBUF(10), ISUM, ITYPE, REQ(2)
      INTEGER STATS(MPI_STATUS_SIZE, 2)
      DOUBLE PRECISION DBUF(10), DSUM(2), T0, T1
      INTEGER(KIND=MPI_ADDRESS_KIND) ADDR
      CALL MPI_INIT(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'init')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      T0 = MPI_WTIME()
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)
      N = 3 + RANK
      DO 10 I = 1, 10
         IBUF(I) = RANK * 100 + I
   10 CONTINUE
! a ring: each rank sends N integers to the next, receives from the previous
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL MPI_SEND(IBUF, N, MPI_INTEGER, NEXT, 7 + RANK,
     &                 MPI_COMM_WORLD, IERR)
         CALL MPI_RECV(JBUF, 10, MPI_INTEGER, MPI_ANY_SOURCE,
     &                 MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
      ELSE
         CALL MPI_RECV(JBUF, 10, MPI_INTEGER, MPI_ANY_SOURCE,
     &                 MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
         CALL MPI_SEND(IBUF, N, MPI_INTEGER, NEXT, 7 + RANK,
     &                 MPI_COMM_WORLD, IERR)
      END IF
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'ring')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. PREV, 'status source')
      CALL CHECK(STATUS(MPI_TAG) .EQ. 7 + PREV, 'status tag')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, COUNT, IERR)
      CALL CHECK(COUNT .EQ. 3 + PREV, 'get_count')
      CALL CHECK(JBUF(1) .EQ. PREV * 100 + 1, 'ring data first')
      CALL CHECK(JBUF(COUNT) .EQ. PREV * 100 + COUNT, 'ring data')
! MPI_ERROR is set where a call reports errors in statuses (here: MPI_WAITALL)
      STATS(MPI_ERROR, 1) = -7
      CALL MPI_IRECV(JBUF, 10, MPI_INTEGER, RANK, 3, MPI_COMM_WORLD,
     &               REQ(1), IERR)
      CALL MPI_ISEND(IBUF, 2, MPI_INTEGER, RANK, 3, MPI_COMM_WORLD,
     &               REQ(2), IERR)
      CALL MPI_WAITALL(2, REQ, STATS, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'waitall')
      CALL CHECK(STATS(MPI_SOURCE, 1) .EQ. RANK, 'waitall source')
      CALL CHECK(STATS(MPI_ERROR, 1) .EQ. MPI_SUCCESS .OR.
     &           STATS(MPI_ERROR, 1) .EQ. -7, 'waitall error field')
      CALL CHECK(REQ(1) .EQ. MPI_REQUEST_NULL, 'request freed')
! broadcast from the last rank
      DO 20 I = 1, 10
         DBUF(I) = 0.0D0
         IF (RANK .EQ. NP - 1) DBUF(I) = 1.5D0 * I
   20 CONTINUE
      CALL MPI_BCAST(DBUF, 10, MPI_DOUBLE_PRECISION, NP - 1,
     &               MPI_COMM_WORLD, IERR)
      CALL CHECK(DBUF(10) .EQ. 15.0D0, 'bcast')
! reductions
      CALL MPI_ALLREDUCE(RANK + 1, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL CHECK(ISUM .EQ. NP * (NP + 1) / 2, 'allreduce integer')
      DSUM(1) = 0.5D0 * RANK
      DSUM(2) = -RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, DSUM, 2, MPI_DOUBLE_PRECISION,
     &                   MPI_MAX, MPI_COMM_WORLD, IERR)
      CALL CHECK(DSUM(1) .EQ. 0.5D0 * (NP - 1), 'allreduce max')
      CALL CHECK(DSUM(2) .EQ. 0.0D0, 'allreduce max 2')
! MPI_BOTTOM with a datatype of absolute addresses, MPI_STATUS_IGNORE
      CALL MPI_GET_ADDRESS(ISUM, ADDR, IERR)
      CALL MPI_TYPE_CREATE_HINDEXED(1, 1, ADDR, MPI_INTEGER, ITYPE,
     &                              IERR)
      CALL MPI_TYPE_COMMIT(ITYPE, IERR)
      IF (RANK .EQ. 0) ISUM = 4242
      CALL MPI_BCAST(MPI_BOTTOM, 1, ITYPE, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(ISUM .EQ. 4242, 'MPI_BOTTOM bcast')
      CALL MPI_TYPE_FREE(ITYPE, IERR)
      CALL CHECK(ITYPE .EQ. MPI_DATATYPE_NULL, 'type_free')
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, NEXT, 1, I, 1,
     &                  MPI_INTEGER, PREV, 1, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
      CALL CHECK(I .EQ. PREV, 'sendrecv status_ignore')
      T1 = MPI_WTIME()
      CALL CHECK(T1 .GE. T0, 'wtime')
      T1 = MPI_WTICK()
      CALL CHECK(T1 .GT. 0.0D0, 'wtick')
      CALL MPI_FINALIZE(IERR)
      IF (RANK .EQ. 0) PRINT '(A)', 'f77 basic: ok'
      END

      SUBROUTINE CHECK(OK, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL OK
      CHARACTER*(*) WHAT
      INTEGER IERR, RANK
      IF (.NOT. OK) THEN
         CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
         PRINT '(A,I3,A,A)', 'FAIL rank', RANK, ': ', WHAT
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END
