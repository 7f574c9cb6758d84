/* Argument errors of the synchronisation and reduction collectives, with MPI_ERRORS_RETURN:
 * every member makes the same wrong call (so the collective sequence stays in step), except
 * where only one rank's arguments can be wrong, which runs on a duplicate that is then
 * dropped. After the errors the collectives still work. */
#include "red_test.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    int a[4] = { 1, 2, 3, 4 }, b[4], cnts[64];
    for (int i = 0; i < 64; i++)
        cnts[i] = 1;
    int *big = malloc(sizeof(int) * 64);
    MPI_Request req;

    /* communicators */
    CHECK_ERR(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERR(MPI_Ibarrier(MPI_COMM_NULL, &req), MPI_ERR_COMM);
    CHECK_ERR(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERR(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, 0, (MPI_Comm)0x7bad), MPI_ERR_COMM);
    CHECK_ERR(MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERR(MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);

#ifdef METAMPI /* MPICH does not check these (it crashes) */
    /* counts */
    CHECK_ERR(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Reduce(a, b, -2, MPI_INT, MPI_SUM, 0, w), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Exscan(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Reduce_scatter_block(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    cnts[n - 1] = -1;
    CHECK_ERR(MPI_Reduce_scatter(a, b, cnts, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT);
    cnts[n - 1] = 1;
    CHECK_ERR(MPI_Reduce_scatter(a, b, NULL, MPI_INT, MPI_SUM, w), MPI_ERR_ARG);
#endif

#ifdef METAMPI /* MPICH checks the op on the type first and answers MPI_ERR_OP */
    /* datatypes */
    MPI_Datatype unc;
    MPI_Type_contiguous(2, MPI_INT, &unc);
    CHECK_ERR(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, w), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Allreduce(a, b, 1, unc, MPI_SUM, w), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Iscan(a, b, 1, unc, MPI_SUM, w, &req), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Reduce(a, b, 1, (MPI_Datatype)0x12345, MPI_SUM, 0, w), MPI_ERR_TYPE);
    MPI_Type_free(&unc);
#endif

    /* ops */
    CHECK_ERR(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP);
    CHECK_ERR(MPI_Allreduce(a, b, 1, MPI_INT, MPI_REPLACE, w), MPI_ERR_OP);
    CHECK_ERR(MPI_Reduce(a, b, 1, MPI_INT, MPI_NO_OP, 0, w), MPI_ERR_OP);
    CHECK_ERR(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MINLOC, w), MPI_ERR_OP);
    CHECK_ERR(MPI_Scan(a, b, 1, MPI_DOUBLE, MPI_BAND, w), MPI_ERR_OP);
    CHECK_ERR(MPI_Iallreduce(a, b, 1, MPI_2INT, MPI_SUM, w, &req), MPI_ERR_OP);
#ifdef METAMPI /* MPICH does not notice a freed op */
    MPI_Op uop;
    MPI_Op_create(usum, 1, &uop);
    MPI_Op dead = uop;
    MPI_Op_free(&uop);
    CHECK_ERR(MPI_Allreduce(a, b, 1, MPI_INT, dead, w), MPI_ERR_OP);
#endif

    /* roots */
    CHECK_ERR(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, n, w), MPI_ERR_ROOT);
    CHECK_ERR(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, -1, w), MPI_ERR_ROOT);
    CHECK_ERR(MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, MPI_ROOT, w, &req), MPI_ERR_ROOT);

    /* buffers */
    CHECK_ERR(MPI_Allreduce(NULL, b, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(a, NULL, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Scan(a, a, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Exscan(NULL, b, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce_scatter_block(NULL, b, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce_scatter(big, NULL, cnts, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER);
    /* the root's own arguments: on MPI_COMM_SELF, where every rank is the root */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    CHECK_ERR(MPI_Reduce(a, NULL, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce(a, a, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
#ifdef METAMPI
    /* MPI_IN_PLACE at a non-root (MPICH lets it pass with count 0): zero counts on a
     * duplicate (the root's call is fine and completes at once, so the duplicate's sequence
     * diverges: it is dropped) */
    if (n > 1) {
        MPI_Comm d;
        MPI_Comm_dup(w, &d);
        MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
        int rc = MPI_Reduce(MPI_IN_PLACE, b, 0, MPI_INT, MPI_SUM, 0, d);
        CHECK_RC(cls(rc), me == 0 ? MPI_SUCCESS : MPI_ERR_BUFFER);
        MPI_Comm_free(&d);
    }
#endif

    /* requests */
    CHECK_ERR(MPI_Ibarrier(w, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, w, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Ireduce_scatter(a, b, cnts, MPI_INT, MPI_SUM, w, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, w, NULL), MPI_ERR_ARG);

    /* zero counts with NULL buffers are fine */
    CHECK_RC(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, w), MPI_SUCCESS);
    CHECK_RC(MPI_Reduce(NULL, NULL, 0, MPI_INT, MPI_SUM, n - 1, w), MPI_SUCCESS);
    CHECK_RC(MPI_Scan(NULL, NULL, 0, MPI_INT, MPI_PROD, w), MPI_SUCCESS);

    /* still in step */
    CHECK_RC(MPI_Allreduce(a, b, 4, MPI_INT, MPI_SUM, w), MPI_SUCCESS);
    CHECK(b[0] == n && b[3] == 4 * n);
    CHECK_RC(MPI_Barrier(w), MPI_SUCCESS);
    free(big);
    MPI_Finalize();
    return 0;
}
