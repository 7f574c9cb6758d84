/* Attributes and error handlers across MPI_Comm_dup and MPI_Comm_free: copy callbacks with
 * the right arguments (MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, user callbacks that copy or
 * decline, one that fails the dup), delete callbacks on free, keyvals freed while dups still
 * use them, user error handlers inherited by dups and kept alive, many dup/free cycles. */
#include "attr_test.h"

#include <stdint.h>

static struct {
    int calls;
    MPI_Comm comm;
    int keyval;
    void *value, *extra;
} del, cpy;

static int record_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    del.calls++;
    del.comm = comm;
    del.keyval = keyval;
    del.value = value;
    del.extra = extra;
    return MPI_SUCCESS;
}

/* copies value * 2, or declines (flag = 0) for odd values */
static int doubling_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                         int *flag)
{
    cpy.calls++;
    cpy.comm = oldcomm;
    cpy.keyval = keyval;
    cpy.value = in;
    cpy.extra = extra;
    *flag = (intptr_t)in % 2 == 0;
    if (*flag)
        *(void **)out = (void *)((intptr_t)in * 2);
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                        int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

/* reference counted values: the pattern libraries use for per-communicator state */
static int live_values;
static int refcount_copy(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out,
                         int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra;
    ++*(int *)in;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int refcount_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    if (--*(int *)value == 0)
        live_values--;
    return MPI_SUCCESS;
}

static struct {
    int calls;
    MPI_Comm comm;
    int code;
} seen;
static void handler(MPI_Comm *comm, int *code, ...)
{
    seen.calls++;
    seen.comm = *comm;
    seen.code = *code;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void *v;

    int kdup, knull, kdouble, kplain;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &kdup, &kdup), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &knull, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(doubling_copy, record_delete, &kdouble, &kdouble),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(doubling_copy, MPI_COMM_NULL_DELETE_FN, &kplain, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, (void *)1), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, knull, (void *)2), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, kdouble, (void *)4), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, kplain, (void *)5), MPI_SUCCESS);

    MPI_Comm d1, d2;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d1), MPI_SUCCESS);
    CHECK(cpy.calls == 2); /* kdouble and kplain */
    CHECK_RC(MPI_Comm_get_attr(d1, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)1);
    CHECK_RC(MPI_Comm_get_attr(d1, knull, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_get_attr(d1, kdouble, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)8);
    CHECK_RC(MPI_Comm_get_attr(d1, kplain, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0); /* declined: odd value */

    /* a dup of a dup: the callbacks get d1 */
    cpy.calls = 0;
    CHECK_RC(MPI_Comm_dup(d1, &d2), MPI_SUCCESS);
    CHECK(cpy.calls == 1 && cpy.comm == d1 && cpy.keyval == kdouble && cpy.value == (void *)8 &&
          cpy.extra == &kdouble);
    CHECK_RC(MPI_Comm_get_attr(d2, kdouble, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)16);
    CHECK_RC(MPI_Comm_get_attr(d2, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)1);

    /* free runs the delete callbacks with the freed communicator */
    del.calls = 0;
    MPI_Comm d2_handle = d2;
    CHECK_RC(MPI_Comm_free(&d2), MPI_SUCCESS);
    CHECK(d2 == MPI_COMM_NULL);
    CHECK(del.calls == 2 && del.comm == d2_handle);

    /* keyvals freed while d1 still uses them: d1's free still runs their callbacks */
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, kdouble), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&kdouble), MPI_SUCCESS);
    del.calls = 0;
    MPI_Comm d1_handle = d1;
    CHECK_RC(MPI_Comm_free(&d1), MPI_SUCCESS);
    CHECK(del.calls == 2 && del.comm == d1_handle);

    /* a failing copy callback fails MPI_Comm_dup */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int kfail;
    CHECK_RC(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kfail, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, kfail, NULL), MPI_SUCCESS);
    MPI_Comm bad = MPI_COMM_WORLD;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &bad) != MPI_SUCCESS);
    CHECK(bad == MPI_COMM_NULL || bad == MPI_COMM_WORLD); /* no new communicator */
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, kfail), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&kfail), MPI_SUCCESS);

    /* many dup/free cycles: reference-counted values come back to zero, keyvals stay fine */
    int krc, value_refs = 1;
    live_values = 1;
    CHECK_RC(MPI_Comm_create_keyval(refcount_copy, refcount_delete, &krc, NULL), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, krc, &value_refs), MPI_SUCCESS);
    for (int i = 0; i < 300; i++) {
        MPI_Comm a, b;
        CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &a), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_dup(a, &b), MPI_SUCCESS);
        CHECK(value_refs == 3);
        CHECK_RC(MPI_Comm_free(&a), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_free(&b), MPI_SUCCESS);
    }
    CHECK(value_refs == 1 && live_values == 1);
    int krc_value = krc;
    CHECK_RC(MPI_Comm_free_keyval(&krc), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, krc_value), MPI_SUCCESS);
    CHECK(value_refs == 0 && live_values == 0);

    /* a user error handler is inherited by a dup, and outlives its handle and the parent's
     * use of it */
    MPI_Errhandler eh;
    MPI_Comm parent, child;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &parent), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_errhandler(handler, &eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(parent, eh), MPI_SUCCESS);
    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup(parent, &child), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&parent), MPI_SUCCESS);
    int buf = 0;
    int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, child);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK && seen.calls == 1 && seen.comm == child && seen.code == rc);
    CHECK_RC(MPI_Comm_call_errhandler(child, MPI_ERR_OTHER), MPI_SUCCESS);
    CHECK(seen.calls == 2 && seen.comm == child && seen.code == MPI_ERR_OTHER);
    CHECK_RC(MPI_Comm_get_errhandler(child, &eh), MPI_SUCCESS);
    CHECK(eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_RETURN);
    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&child), MPI_SUCCESS);

    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, knull), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, kplain), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&kdup), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&knull), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&kplain), MPI_SUCCESS);

    MPI_Finalize();
    if (rank == 0)
        printf("comm_dup_attr: ok\n");
    return 0;
}
