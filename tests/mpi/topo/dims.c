/* MPI_Dims_create (MPI-3.1 §7.5.2): balanced factorisations against a reference table of
 * MPICH's answers (dims_ref.h: every nnodes <= 64 in 1..4 dimensions, large and highly
 * composite sizes in 2..6 dimensions, presets), the properties the standard asks for
 * (product, presets kept, free entries nonincreasing), and the error classes. Local: every
 * rank runs it. */
#include "../check.h"

#include "dims_ref.h"

#include <string.h>

static int err_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

static void check_properties(int nnodes, int ndims, const int *preset, const int *dims)
{
    long long prod = 1;
    int last_free = -1;
    for (int i = 0; i < ndims; i++) {
        prod *= dims[i];
        if (preset[i]) {
            CHECK(dims[i] == preset[i]);
        } else {
            CHECK(dims[i] >= 1);
            CHECK(last_free < 0 || dims[i] <= dims[last_free]);
            last_free = i;
        }
    }
    CHECK(prod == nnodes);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = (int)(sizeof dims_ref / sizeof dims_ref[0]);
    for (int i = 0; i < n; i++) {
        const struct dims_case *c = &dims_ref[i];
        int dims[6];
        memcpy(dims, c->preset, sizeof dims);
        CHECK_RC(MPI_Dims_create(c->nnodes, c->ndims, dims), MPI_SUCCESS);
        check_properties(c->nnodes, c->ndims, c->preset, dims);
        if (memcmp(dims, c->want, (size_t)c->ndims * sizeof(int)) != 0) {
            fprintf(stderr, "MPI_Dims_create(%d, %d): got", c->nnodes, c->ndims);
            for (int j = 0; j < c->ndims; j++)
                fprintf(stderr, " %d", dims[j]);
            fprintf(stderr, ", want");
            for (int j = 0; j < c->ndims; j++)
                fprintf(stderr, " %d", c->want[j]);
            fprintf(stderr, "\n");
            CHECK(!"Dims_create differs from the reference");
        }
    }
    /* the size of this job, as programs use it */
    int size, dims[3] = { 0, 0, 0 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_RC(MPI_Dims_create(size, 3, dims), MPI_SUCCESS);
    check_properties(size, 3, (int[]){ 0, 0, 0 }, dims);
    /* ndims == 0 with one node: nothing to fill */
    CHECK_RC(MPI_Dims_create(1, 0, dims), MPI_SUCCESS);
    int p[3] = { 0, 0, 0 };
#ifdef METAMPI
    /* the largest prime that fits an int (MPICH divides by zero) */
    CHECK_RC(MPI_Dims_create(2147483647, 3, p), MPI_SUCCESS);
    CHECK(p[0] == 2147483647 && p[1] == 1 && p[2] == 1);
#endif

    /* errors: nothing is filled in */
    int e[3] = { 5, 0, 0 };
    CHECK(err_class(MPI_Dims_create(12, 3, e)) == MPI_ERR_DIMS); /* 12 is not a multiple of 5 */
    int neg[2] = { -2, 0 };
    CHECK(err_class(MPI_Dims_create(4, 2, neg)) == MPI_ERR_DIMS);
    CHECK(err_class(MPI_Dims_create(-1, 2, p)) == MPI_ERR_ARG);
#ifdef METAMPI
    /* MPICH: ndims < 0 is MPI_ERR_ARG; nnodes 0 does not return; a fully preset grid of the
     * wrong size and a zero-dimensional grid of several nodes succeed */
    CHECK(err_class(MPI_Dims_create(4, -1, p)) == MPI_ERR_DIMS);
    CHECK(err_class(MPI_Dims_create(0, 2, p)) == MPI_ERR_ARG);
    int fixed[2] = { 2, 2 };
    CHECK(err_class(MPI_Dims_create(8, 2, fixed)) == MPI_ERR_DIMS);
    CHECK(err_class(MPI_Dims_create(4, 0, p)) == MPI_ERR_DIMS);
    CHECK(err_class(MPI_Dims_create(4, 2, NULL)) == MPI_ERR_ARG);
#endif
    MPI_Finalize();
    return 0;
}
