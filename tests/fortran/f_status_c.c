/* The C half of f_status.f90: *res gets bit 0 when st is MPI_F_STATUS_IGNORE, bit 1 when sts
 * is MPI_F_STATUSES_IGNORE, and bit 2 when st converts with MPI_Status_f2c to a status of
 * source 5 while both ignore values are refused (MPI_ERR_ARG). */
#include <mpi.h>

void c_compare_(MPI_Fint *st, MPI_Fint *sts, MPI_Fint *res)
{
    *res = (st == MPI_F_STATUS_IGNORE) | (sts == MPI_F_STATUSES_IGNORE) << 1;
    if (*res)
        return;
    MPI_Status c;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Status_f2c(st, &c) == MPI_SUCCESS && c.MPI_SOURCE == 5 &&
        MPI_Status_f2c(MPI_F_STATUS_IGNORE, &c) == MPI_ERR_ARG &&
        MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &c) == MPI_ERR_ARG)
        *res = 4;
}
