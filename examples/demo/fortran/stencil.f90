! metampi-demo-f90: the demo's stencil (examples/demo/*.c) in Fortran with `use mpi_f08`.
!
! The same computation as the C program, so that it prints the same line
!     result: checksum 0x...  residual ...  max ...  after N steps (... s)
! bit for bit (but the time) for the same --grid and --steps, at any rank count:
! - the same decomposition: MPI_Dims_create + MPI_Cart_create (not periodic, no reordering),
!   blocks of G/P + (c < G%P) points starting at c*(G/P) + min(c, G%P) (decomp.c);
! - the same field: u = 0 with a Dirichlet boundary of 0, the hot and the cold box as
!   sources, decided in integers (jacobi.c's in_box);
! - the same arithmetic: every new value is the sum of the same seven numbers in the same
!   order, then divided by 6 (the parentheses forbid any reassociation);
! - the same checksum: splitmix64's finaliser of each point's global index and the bits of
!   its value, summed modulo 2**64. Fortran has no unsigned integers: integer(int64) holds
!   the same bits, SHIFTR is a logical shift, and the build compiles this file with -fwrapv
!   so that products and sums wrap in two's complement as C's uint64_t arithmetic does. The
!   sum over the ranks is MPI_INTEGER8's MPI_SUM, which metampi computes with wraparound.
!
! C's array u[i][j][k] (k contiguous) is u(k, j, i) here; n(1:3), off(1:3), grid(1:3) and
! the Cartesian dimensions keep C's order (x, y, z), so Cartesian dimension e (0-based in
! MPI) is this array's dimension 4-e.
!
! The ghost faces travel with MPI_Sendrecv (blocking: no ASYNCHRONOUS buffers needed) as
! MPI_Type_create_subarray types of the local array; each face covers the interior of the
! other two dimensions only, so the order of the six transfers does not matter.
!
! Options: --grid N | NXxNYxNZ (1..4096, default 96), --steps N (default 100),
! --reduce-every K (default 1), --help. A mistake ends every rank with status 2 after rank 0
! says "metampi-demo-f90: OPTION: what is wrong".
module stencil_kinds
  use, intrinsic :: iso_fortran_env, only: int64, real64
  implicit none
  integer, parameter :: dp = real64, i8 = int64
  integer, parameter :: LO = 1, HI = 2
end module stencil_kinds

module stencil_options
  use stencil_kinds
  implicit none
  private
  public :: options_t, options_parse

  type :: options_t
    integer :: grid(3) = 96
    integer :: steps = 100
    integer :: reduce_every = 1
  end type options_t

contains

  ! A whole number in [lo, hi]: digits only (no sign, no blanks), at most 7 of them.
  logical function parse_int(s, lo, hi, v)
    character(len=*), intent(in) :: s
    integer, intent(in) :: lo, hi
    integer, intent(out) :: v
    integer :: i
    parse_int = .false.
    v = 0
    if (len(s) == 0 .or. len(s) > 7) return
    do i = 1, len(s)
      if (s(i:i) < '0' .or. s(i:i) > '9') return
      v = 10 * v + (ichar(s(i:i)) - ichar('0'))
    end do
    parse_int = v >= lo .and. v <= hi
  end function parse_int

  ! N or NXxNYxNZ, each from 1 to 4096.
  logical function parse_grid(s, grid)
    character(len=*), intent(in) :: s
    integer, intent(out) :: grid(3)
    integer :: x1, x2
    parse_grid = .false.
    grid = 0
    x1 = index(s, 'x')
    if (x1 == 0) then
      if (.not. parse_int(s, 1, 4096, grid(1))) return
      grid(2:3) = grid(1)
      parse_grid = .true.
      return
    end if
    x2 = index(s(x1 + 1:), 'x') + x1
    if (x2 == x1) return
    if (.not. parse_int(s(:x1 - 1), 1, 4096, grid(1))) return
    if (.not. parse_int(s(x1 + 1:x2 - 1), 1, 4096, grid(2))) return
    parse_grid = parse_int(s(x2 + 1:), 1, 4096, grid(3))
  end function parse_grid

  ! 0 on success, 1 after --help (usage printed by rank 0), 2 on a mistake (reported by
  ! rank 0).
  integer function options_parse(rank, o) result(rc)
    integer, intent(in) :: rank
    type(options_t), intent(out) :: o
    character(len=:), allocatable :: arg, name, val
    integer :: i, n, eq
    rc = 0
    name = ''
    val = ''
    n = command_argument_count()
    i = 1
    do while (i <= n)
      arg = argument(i)
      if (len(arg) < 2) then
        rc = fail(arg, 'unexpected argument (options start with --)')
        return
      end if
      if (arg(1:2) /= '--') then
        rc = fail(arg, 'unexpected argument (options start with --)')
        return
      end if
      if (arg == '--help' .or. arg == '-h') then
        if (rank == 0) write(*, '(A)') &
          'usage: mpirun -n N metampi-demo-f90 [--grid N|NXxNYxNZ] [--steps N] [--reduce-every K]', &
          "The C demo's Jacobi stencil (examples/demo) in Fortran: the same result line."
        rc = 1
        return
      end if
      eq = index(arg, '=')
      if (eq > 0) then
        name = arg(:eq - 1)
        val = arg(eq + 1:)
      else if (i < n) then
        name = arg
        i = i + 1
        val = argument(i)
      else
        rc = fail(arg, 'missing value')
        return
      end if
      select case (name)
      case ('--grid')
        if (.not. parse_grid(val, o%grid)) &
          rc = fail(name, "expected N or NXxNYxNZ, each from 1 to 4096, got '" // val // "'")
      case ('--steps')
        if (.not. parse_int(val, 1, 1000000, o%steps)) &
          rc = fail(name, "expected a whole number from 1 to 1000000, got '" // val // "'")
      case ('--reduce-every')
        if (.not. parse_int(val, 1, 1000000, o%reduce_every)) &
          rc = fail(name, "expected a whole number from 1 to 1000000, got '" // val // "'")
      case default
        rc = fail(name, 'unknown option')
      end select
      if (rc /= 0) return
      i = i + 1
    end do

  contains

    function argument(k) result(s)
      integer, intent(in) :: k
      character(len=:), allocatable :: s
      integer :: length
      call get_command_argument(k, length=length)
      allocate(character(len=length) :: s)
      if (length > 0) call get_command_argument(k, s)
    end function argument

    integer function fail(opt, msg)
      use, intrinsic :: iso_fortran_env, only: error_unit
      character(len=*), intent(in) :: opt, msg
      if (rank == 0) write(error_unit, '(5A)') 'metampi-demo-f90: ', opt, ': ', msg, ' (see --help)'
      fail = 2
    end function fail

  end function options_parse

end module stencil_options

module stencil_decomp
  use mpi_f08
  use stencil_kinds
  implicit none
  private
  public :: decomp_t, decomp_create, decomp_free

  type :: decomp_t
    type(MPI_Comm) :: cart
    integer :: size, rank
    integer :: grid(3), dims(3), coords(3)
    integer :: n(3)                        ! local interior points
    integer :: off(3)                      ! global (0-based) index of the first of them
    integer :: nbr(3, 2)                   ! neighbour below/above, or MPI_PROC_NULL
    type(MPI_Datatype) :: send(3, 2), recv(3, 2)
  end type decomp_t

contains

  subroutine block(g, p, c, n, off)
    integer, intent(in) :: g, p, c
    integer, intent(out) :: n, off
    integer :: base, extra
    base = g / p
    extra = mod(g, p)
    n = base + merge(1, 0, c < extra)
    off = c * base + min(c, extra)
  end subroutine block

  ! The layer at index `at` (0..n+1) of C dimension e, the interior of the other two.
  type(MPI_Datatype) function face(d, e, at)
    type(decomp_t), intent(in) :: d
    integer, intent(in) :: e, at
    integer :: sizes(3), subsizes(3), starts(3), c
    do c = 1, 3
      sizes(4 - c) = d%n(c) + 2
      subsizes(4 - c) = merge(1, d%n(c), c == e)
      starts(4 - c) = merge(at, 1, c == e)
    end do
    call MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, &
                                  MPI_DOUBLE_PRECISION, face)
    call MPI_Type_commit(face)
  end function face

  ! Collective over comm. 0, or 2 with the reason written by rank 0 when some dimension of
  ! the grid has fewer points than ranks.
  integer function decomp_create(comm, grid, d) result(rc)
    use, intrinsic :: iso_fortran_env, only: error_unit
    type(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: grid(3)
    type(decomp_t), intent(out) :: d
    integer :: size, rank, e
    character(len=256) :: msg
    rc = 0
    call MPI_Comm_size(comm, size)
    call MPI_Comm_rank(comm, rank)
    d%grid = grid
    d%dims = 0
    call MPI_Dims_create(size, 3, d%dims)
    if (any(grid < d%dims)) then
      if (rank == 0) then
        write(msg, '("--grid ",I0,"x",I0,"x",I0," is too small for ",I0," ranks split ",' // &
              'I0,"x",I0,"x",I0," (every rank needs at least one point in each dimension)")') &
              grid, size, d%dims
        write(error_unit, '(2A)') 'metampi-demo-f90: ', trim(msg)
      end if
      rc = 2
      return
    end if
    call MPI_Cart_create(comm, 3, d%dims, [.false., .false., .false.], .false., d%cart)
    call MPI_Comm_size(d%cart, d%size)
    call MPI_Comm_rank(d%cart, d%rank)
    call MPI_Cart_coords(d%cart, d%rank, 3, d%coords)
    do e = 1, 3
      call block(grid(e), d%dims(e), d%coords(e), d%n(e), d%off(e))
      call MPI_Cart_shift(d%cart, e - 1, 1, d%nbr(e, LO), d%nbr(e, HI))
    end do
    do e = 1, 3
      d%send(e, LO) = face(d, e, 1)
      d%send(e, HI) = face(d, e, d%n(e))
      d%recv(e, LO) = face(d, e, 0)
      d%recv(e, HI) = face(d, e, d%n(e) + 1)
    end do
  end function decomp_create

  subroutine decomp_free(d)
    type(decomp_t), intent(inout) :: d
    integer :: e, s
    do e = 1, 3
      do s = LO, HI
        call MPI_Type_free(d%send(e, s))
        call MPI_Type_free(d%recv(e, s))
      end do
    end do
    call MPI_Comm_free(d%cart)
  end subroutine decomp_free

end module stencil_decomp

module stencil_field
  use mpi_f08
  use stencil_kinds
  use stencil_decomp
  implicit none
  private
  public :: field_init, halo_exchange, jacobi_sweep, field_max, field_checksum

contains

  ! |100 g - c G| <= w G, in integers so no rounding differs between ranks.
  logical function in_box(g, big_g, c, w)
    integer, intent(in) :: g, big_g, c, w
    in_box = abs(100_i8 * g - int(c, i8) * big_g) <= int(w, i8) * big_g
  end function in_box

  real(dp) function source(g, grid)
    integer, intent(in) :: g(3), grid(3)
    integer, parameter :: hot(3) = [30, 40, 50], cold(3) = [70, 60, 35]
    logical :: h, c
    integer :: e
    h = .true.
    c = .true.
    do e = 1, 3
      h = h .and. in_box(g(e), grid(e), hot(e), 10)
      c = c .and. in_box(g(e), grid(e), cold(e), 8)
    end do
    source = merge(1.0_dp, merge(-0.75_dp, 0.0_dp, c), h)
  end function source

  subroutine field_init(d, u, next, f)
    type(decomp_t), intent(in) :: d
    real(dp), allocatable, intent(out) :: u(:, :, :), next(:, :, :), f(:, :, :)
    integer :: i, j, k
    allocate(u(0:d%n(3) + 1, 0:d%n(2) + 1, 0:d%n(1) + 1), source=0.0_dp)
    allocate(next, f, mold=u)
    next = 0.0_dp
    f = 0.0_dp
    do i = 1, d%n(1)
      do j = 1, d%n(2)
        do k = 1, d%n(3)
          f(k, j, i) = source(d%off + [i, j, k] - 1, d%grid)
        end do
      end do
    end do
  end subroutine field_init

  ! The outermost layers to the neighbours, their layers into the ghosts. A face sent
  ! towards the upper neighbour of dimension e has tag 2(e-1), towards the lower 2(e-1)+1.
  subroutine halo_exchange(d, u)
    type(decomp_t), intent(in) :: d
    real(dp), contiguous, intent(inout) :: u(:, :, :)
    integer :: e
    do e = 1, 3
      call MPI_Sendrecv(u, 1, d%send(e, HI), d%nbr(e, HI), 2 * (e - 1), &
                        u, 1, d%recv(e, LO), d%nbr(e, LO), 2 * (e - 1), &
                        d%cart, MPI_STATUS_IGNORE)
      call MPI_Sendrecv(u, 1, d%send(e, LO), d%nbr(e, LO), 2 * (e - 1) + 1, &
                        u, 1, d%recv(e, HI), d%nbr(e, HI), 2 * (e - 1) + 1, &
                        d%cart, MPI_STATUS_IGNORE)
    end do
  end subroutine halo_exchange

  ! One sweep (the ghosts of u current); u and next swap. The largest change |u' - u|.
  real(dp) function jacobi_sweep(d, u, next, f) result(change)
    type(decomp_t), intent(in) :: d
    real(dp), allocatable, intent(inout) :: u(:, :, :), next(:, :, :)
    real(dp), intent(in) :: f(0:, 0:, 0:)
    real(dp), allocatable :: t(:, :, :)
    real(dp) :: x, dx
    integer :: i, j, k
    change = 0.0_dp
    do i = 1, d%n(1)
      do j = 1, d%n(2)
        do k = 1, d%n(3)
          ! C: (u[p-sx] + u[p+sx] + u[p-sy] + u[p+sy] + u[p-1] + u[p+1] + f[p]) / 6.0
          x = ((((((u(k, j, i - 1) + u(k, j, i + 1)) + u(k, j - 1, i)) + u(k, j + 1, i)) &
                 + u(k - 1, j, i)) + u(k + 1, j, i)) + f(k, j, i)) / 6.0_dp
          dx = abs(x - u(k, j, i))
          if (dx > change) change = dx
          next(k, j, i) = x
        end do
      end do
    end do
    call move_alloc(u, t)
    call move_alloc(next, u)
    call move_alloc(t, next)
  end function jacobi_sweep

  real(dp) function field_max(d, u) result(m)
    use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_negative_inf
    type(decomp_t), intent(in) :: d
    real(dp), intent(in) :: u(0:, 0:, 0:)
    integer :: i, j, k
    m = ieee_value(m, ieee_negative_inf)
    do i = 1, d%n(1)
      do j = 1, d%n(2)
        do k = 1, d%n(3)
          if (u(k, j, i) > m) m = u(k, j, i)
        end do
      end do
    end do
  end function field_max

  ! splitmix64's finaliser, in wrapping int64 arithmetic (see the top of the file).
  integer(i8) function mix(x0) result(x)
    integer(i8), intent(in) :: x0
    integer(i8), parameter :: m1 = int(z'bf58476d1ce4e5b9', i8), m2 = int(z'94d049bb133111eb', i8)
    x = ieor(x0, shiftr(x0, 30))
    x = x * m1
    x = ieor(x, shiftr(x, 27))
    x = x * m2
    x = ieor(x, shiftr(x, 31))
  end function mix

  ! The local part of the checksum (jacobi.h): sum of mix(mix(global index) ^ bits) mod 2**64.
  integer(i8) function field_checksum(d, u) result(s)
    type(decomp_t), intent(in) :: d
    real(dp), intent(in) :: u(0:, 0:, 0:)
    integer(i8) :: g
    integer :: i, j, k
    s = 0
    do i = 1, d%n(1)
      do j = 1, d%n(2)
        do k = 1, d%n(3)
          g = (int(d%off(1) + i - 1, i8) * d%grid(2) + (d%off(2) + j - 1)) * d%grid(3) &
              + (d%off(3) + k - 1)
          s = s + mix(ieor(mix(g), transfer(u(k, j, i), 0_i8)))
        end do
      end do
    end do
  end function field_checksum

end module stencil_field

module stencil_format
  use stencil_kinds
  implicit none
  private
  public :: c_exp, c_hex

contains

  ! C's "%.6e": d.dddddde±XX (at least two exponent digits, lower-case e).
  function c_exp(v) result(s)
    real(dp), intent(in) :: v
    character(len=:), allocatable :: s
    character(len=32) :: buf
    integer :: p, e
    write(buf, '(ES16.6E3)') v
    buf = adjustl(buf)
    p = index(buf, 'E')
    read(buf(p + 1:), *) e
    write(buf(p:), '("e",SP,I0.2)') e
    s = trim(buf)
  end function c_exp

  ! C's "%016" PRIx64 of the same bits.
  function c_hex(v) result(s)
    integer(i8), intent(in) :: v
    character(len=16) :: s
    integer :: i
    write(s, '(Z16.16)') v
    do i = 1, 16
      if (s(i:i) >= 'A' .and. s(i:i) <= 'F') s(i:i) = achar(iachar(s(i:i)) + 32)
    end do
  end function c_hex

end module stencil_format

program stencil
  use mpi_f08
  use stencil_kinds
  use stencil_options
  use stencil_decomp
  use stencil_field
  use stencil_format
  implicit none
  type(options_t) :: o
  type(decomp_t) :: d
  real(dp), allocatable :: u(:, :, :), next(:, :, :), f(:, :, :)
  real(dp) :: change, residual, umax, gmax, start, elapsed
  integer(i8) :: local_sum, checksum
  integer :: rank, rc, s
  character(len=32) :: secs

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  rc = options_parse(rank, o)
  if (rc == 0) rc = decomp_create(MPI_COMM_WORLD, o%grid, d)
  if (rc == 1) then
    call MPI_Finalize()
    stop
  else if (rc /= 0) then
    call MPI_Finalize()
    stop rc, quiet=.true.
  end if
  if (d%rank == 0) write(*, '(I0,1X,A,"; grid ",I0,2("x",I0)," split ",I0,2("x",I0))') &
    d%size, trim(merge('ranks', 'rank ', d%size > 1)), d%grid, d%dims

  call field_init(d, u, next, f)
  residual = -1
  call MPI_Barrier(d%cart)
  start = MPI_Wtime()
  do s = 1, o%steps
    call halo_exchange(d, u)
    change = jacobi_sweep(d, u, next, f)
    if (mod(s, o%reduce_every) == 0 .or. s == o%steps) &
      call MPI_Allreduce(change, residual, 1, MPI_DOUBLE_PRECISION, MPI_MAX, d%cart)
  end do
  elapsed = MPI_Wtime() - start

  local_sum = field_checksum(d, u)
  umax = field_max(d, u)
  call MPI_Reduce(local_sum, checksum, 1, MPI_INTEGER8, MPI_SUM, 0, d%cart)
  call MPI_Reduce(umax, gmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, d%cart)
  if (d%rank == 0) then
    write(secs, '(F16.2)') elapsed
    secs = adjustl(secs)
    write(*, '(11A)') 'result: checksum 0x', c_hex(checksum), '  residual ', c_exp(residual), &
      '  max ', c_exp(gmax), '  after ', itoa(o%steps), ' steps (', trim(secs), ' s)'
  end if
  deallocate(u, next, f)   ! the main program's variables are never freed by themselves
  call decomp_free(d)
  call MPI_Finalize()

contains

  function itoa(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=12) :: buf
    write(buf, '(I0)') i
    s = trim(buf)
  end function itoa

end program stencil
