/* Attributes across the life of communicators (MPI-3.1 §6.7): MPI_Comm_dup, _dup_with_info
 * and _idup copy them through the keyvals' copy callbacks; MPI_Comm_free runs the delete
 * callbacks (also while operations are pending); a failing copy callback makes the dup fail;
 * split/create do not copy. */
#include "../check.h"

#include <stdlib.h>

static int copies, deletes;

static int count_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1; /* the copy's value is one more */
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static void *value_of(MPI_Comm c, int keyval, int *flag)
{
    void *v = NULL;
    CHECK_RC(MPI_Comm_get_attr(c, keyval, &v, flag), MPI_SUCCESS);
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int counted, dupped, nocopy, flag;
    CHECK_RC(MPI_Comm_create_keyval(count_copy, count_delete, &counted, NULL), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &dupped, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &nocopy, NULL),
             MPI_SUCCESS);
    static char base[16];
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(d, counted, base), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(d, dupped, base + 5), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(d, nocopy, base + 9), MPI_SUCCESS);

    /* dup: counted copied (+1), dupped copied as is, nocopy not copied */
    MPI_Comm e;
    CHECK_RC(MPI_Comm_dup(d, &e), MPI_SUCCESS);
    CHECK(copies == 1);
    CHECK(value_of(e, counted, &flag) == base + 1 && flag);
    CHECK(value_of(e, dupped, &flag) == base + 5 && flag);
    value_of(e, nocopy, &flag);
    CHECK(!flag);
    /* dup_with_info and idup copy as well */
    MPI_Comm f, g;
    CHECK_RC(MPI_Comm_dup_with_info(e, MPI_INFO_NULL, &f), MPI_SUCCESS);
    CHECK(copies == 2 && value_of(f, counted, &flag) == base + 2);
    MPI_Request r;
    CHECK_RC(MPI_Comm_idup(f, &g, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(copies == 3 && value_of(g, counted, &flag) == base + 3 && flag);
    /* split does not copy */
    MPI_Comm s;
    CHECK_RC(MPI_Comm_split(d, 0, 0, &s), MPI_SUCCESS);
    value_of(s, counted, &flag);
    CHECK(!flag && copies == 3);
    CHECK_RC(MPI_Comm_free(&s), MPI_SUCCESS);

    /* free runs the delete callbacks: d has counted and nocopy, e/f/g have counted */
    CHECK_RC(MPI_Comm_free(&g), MPI_SUCCESS);
    CHECK(deletes == 1);
    /* ... also with an operation pending on the communicator */
    int rank, size, in = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Request rq[2];
    MPI_Irecv(&in, 1, MPI_INT, (rank - 1 + size) % size, 0, f, &rq[0]);
    MPI_Isend(&rank, 1, MPI_INT, (rank + 1) % size, 0, f, &rq[1]);
    CHECK_RC(MPI_Comm_free(&f), MPI_SUCCESS);
#ifdef METAMPI /* at once; MPICH runs them when the pending operations are done */
    CHECK(deletes == 2);
#endif
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(deletes == 2);
    CHECK(in == (rank - 1 + size) % size);
    CHECK_RC(MPI_Comm_free(&e), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    CHECK(deletes == 5);

    /* a failing copy callback fails the dup (MPI-3.1 §6.7.2) and leaves no communicator */
    int bad;
    CHECK_RC(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &bad, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(d, bad, base), MPI_SUCCESS);
    int rc = MPI_Comm_dup(d, &e);
    CHECK(rc != MPI_SUCCESS);
#ifdef METAMPI
    CHECK(e == MPI_COMM_NULL);
#endif
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);

    MPI_Comm_free_keyval(&counted);
    MPI_Comm_free_keyval(&dupped);
    MPI_Comm_free_keyval(&nocopy);
    MPI_Comm_free_keyval(&bad);
    MPI_Finalize();
    return 0;
}
