/* The Fortran predefined datatypes seen from C (MPI-3.1 §17.2.5 allows it): sizes and
 * extents, the reductions the standard allows on them (and the ones it does not), the
 * MINLOC/MAXLOC pairs whose index has the value's type, MPI_Type_create_f90_* (envelope,
 * same handle for the same arguments, not freed by MPI_Type_free) and MPI_Type_match_size. */
#include "../mpi/check.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

typedef _Complex float __attribute__((mode(TC))) complex128_t;

static void check_sizes(void)
{
    static const struct {
        MPI_Datatype t;
        int size;
    } sizes[] = {
        {MPI_INTEGER, 4},  {MPI_REAL, 4},     {MPI_DOUBLE_PRECISION, 8}, {MPI_COMPLEX, 8},
        {MPI_DOUBLE_COMPLEX, 16}, {MPI_LOGICAL, 4}, {MPI_CHARACTER, 1}, {MPI_INTEGER1, 1},
        {MPI_INTEGER2, 2}, {MPI_INTEGER4, 4}, {MPI_INTEGER8, 8},  {MPI_REAL4, 4},
        {MPI_REAL8, 8},    {MPI_REAL16, 16},  {MPI_COMPLEX8, 8},  {MPI_COMPLEX16, 16},
        {MPI_COMPLEX32, 32}, {MPI_2REAL, 8}, {MPI_2DOUBLE_PRECISION, 16}, {MPI_2INTEGER, 8},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        int size;
        MPI_Aint lb, extent;
        CHECK_RC(MPI_Type_size(sizes[i].t, &size), MPI_SUCCESS);
        CHECK_RC(MPI_Type_get_extent(sizes[i].t, &lb, &extent), MPI_SUCCESS);
        CHECK(size == sizes[i].size && lb == 0 && extent == sizes[i].size);
    }
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_RC(MPI_Type_get_name(MPI_DOUBLE_PRECISION, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_DOUBLE_PRECISION") == 0);
    CHECK_RC(MPI_Type_get_name(MPI_2REAL, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_2REAL") == 0);
}

static void check_reductions(int rank, int size)
{
    int32_t i = rank + 1, isum;
    CHECK_RC(MPI_Allreduce(&i, &isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(isum == size * (size + 1) / 2);
    int64_t i8 = rank, i8max;
    CHECK_RC(MPI_Allreduce(&i8, &i8max, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD),
             MPI_SUCCESS);
    CHECK(i8max == size - 1);
    double d = 0.5 * rank, dsum;
    CHECK_RC(MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD),
             MPI_SUCCESS);
    CHECK(dsum == 0.25 * size * (size - 1));
    __float128 q = rank + 1, qprod;
    CHECK_RC(MPI_Allreduce(&q, &qprod, 1, MPI_REAL16, MPI_PROD, MPI_COMM_WORLD), MPI_SUCCESS);
    __float128 fact = 1;
    for (int k = 2; k <= size; k++)
        fact *= k;
    CHECK(qprod == fact);
    complex128_t z = rank + 2.0 * rank * I, zsum;
    CHECK_RC(MPI_Allreduce(&z, &zsum, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(__real__ zsum == size * (size - 1) / 2 && __imag__ zsum == size * (size - 1));
    float _Complex c = 1.0f + 1.0f * I, cprod;
    CHECK_RC(MPI_Allreduce(&c, &cprod, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(crealf(cprod) == size && cimagf(cprod) == size);
    /* LOGICAL: gfortran's .TRUE. is 1; every rank but 0 is true */
    int32_t l = rank != 0, land, lor;
    CHECK_RC(MPI_Allreduce(&l, &land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Allreduce(&l, &lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(land == 0 && lor == (size > 1));
    /* ops the standard does not define on a type fail with MPI_ERR_OP */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char ch = 'a', chout;
    int rc = MPI_Allreduce(&ch, &chout, 1, MPI_CHARACTER, MPI_SUM, MPI_COMM_WORLD);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP);
    rc = MPI_Allreduce(&l, &lor, 1, MPI_LOGICAL, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* The largest value sits at the middle rank; its index (of the value's type) comes back. */
static void check_pairs(int rank, int size)
{
    int best = size / 2;
    float r2[2] = {rank == best ? 100.0f : (float)rank, (float)rank}, r2out[2];
    CHECK_RC(MPI_Allreduce(r2, r2out, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(r2out[0] == 100.0f && r2out[1] == (float)best);
    double d2[2] = {-(double)rank, (double)rank}, d2out[2];
    CHECK_RC(MPI_Allreduce(d2, d2out, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD),
             MPI_SUCCESS);
    CHECK(d2out[0] == -(double)(size - 1) && d2out[1] == (double)(size - 1));
    int32_t i2[4] = {7, rank, rank, rank}, i2out[4];
    CHECK_RC(MPI_Allreduce(i2, i2out, 2, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD),
             MPI_SUCCESS);
    CHECK(i2out[0] == 7 && i2out[1] == 0 && i2out[2] == size - 1 && i2out[3] == size - 1);
}

static void check_f90(void)
{
    MPI_Datatype t, u;
    CHECK_RC(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &u), MPI_SUCCESS);
    CHECK(t == u);
    int ni, na, nd, comb, ints[2], size;
    CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_F90_REAL && ni == 2 && na == 0 && nd == 0);
    CHECK_RC(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL), MPI_SUCCESS);
    CHECK(ints[0] == 15 && ints[1] == MPI_UNDEFINED);
    CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
    CHECK(size == 8);
    CHECK_RC(MPI_Type_free(&u), MPI_SUCCESS);
    double x = 1.5, y;
    CHECK_RC(MPI_Sendrecv(&x, 1, t, 0, 0, &y, 1, t, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK(y == 1.5);
    CHECK_RC(MPI_Type_create_f90_integer(9, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
    CHECK(size == 4);
    CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_SUCCESS);
    CHECK(comb == MPI_COMBINER_F90_INTEGER && ni == 1);
    CHECK_RC(MPI_Type_create_f90_complex(30, 100, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
    CHECK(size == 32);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Type_create_f90_real(40, 10, &t);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    rc = MPI_Type_create_f90_integer(40, &t);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_RC(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_size(t, &size), MPI_SUCCESS);
    CHECK(size == 8);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check_sizes();
    check_reductions(rank, size);
    check_pairs(rank, size);
    check_f90();
    MPI_Finalize();
    if (rank == 0)
        printf("fortran types from C: ok\n");
    return 0;
}
