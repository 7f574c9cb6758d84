/* Attributes on datatypes: keyvals of their own kind, set/get/delete on predefined and
 * derived types, copy callbacks on MPI_Type_dup (MPI_TYPE_DUP_FN, MPI_TYPE_NULL_COPY_FN and a
 * user callback, with the right arguments), delete callbacks on MPI_Type_free, and errors. */
#include "attr_test.h"

#include <stdint.h>

static struct {
    int calls;
    MPI_Datatype type;
    int keyval;
    void *value, *extra;
} del, cpy;

static int record_delete(MPI_Datatype type, int keyval, void *value, void *extra)
{
    del.calls++;
    del.type = type;
    del.keyval = keyval;
    del.value = value;
    del.extra = extra;
    return MPI_SUCCESS;
}

/* copies value + 1 */
static int increment_copy(MPI_Datatype oldtype, int keyval, void *extra, void *in, void *out,
                          int *flag)
{
    cpy.calls++;
    cpy.type = oldtype;
    cpy.keyval = keyval;
    cpy.value = in;
    cpy.extra = extra;
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    void *v;

    int kdup, knull, kinc, extra_word = 0;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, record_delete, &kdup, &extra_word),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &knull,
                                    NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_keyval(increment_copy, record_delete, &kinc, &kinc), MPI_SUCCESS);
    CHECK(kdup != MPI_KEYVAL_INVALID && kdup != knull && knull != kinc);

    /* on a predefined type */
    CHECK_RC(MPI_Type_get_attr(MPI_INT, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Type_set_attr(MPI_INT, kdup, (void *)1), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_attr(MPI_INT, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)1);
    CHECK_RC(MPI_Type_get_attr(MPI_DOUBLE, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Type_set_attr(MPI_INT, kdup, (void *)2), MPI_SUCCESS); /* overwrite */
    CHECK(del.calls == 1 && del.type == MPI_INT && del.keyval == kdup &&
          del.value == (void *)1 && del.extra == &extra_word);
    CHECK_RC(MPI_Type_delete_attr(MPI_INT, kdup), MPI_SUCCESS);
    CHECK(del.calls == 2 && del.value == (void *)2);
    CHECK_RC(MPI_Type_get_attr(MPI_INT, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);

    /* on a derived type, copied by MPI_Type_dup and deleted by MPI_Type_free */
    MPI_Datatype t, d;
    CHECK_RC(MPI_Type_contiguous(4, MPI_INT, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_set_attr(t, kdup, (void *)10), MPI_SUCCESS);
    CHECK_RC(MPI_Type_set_attr(t, knull, (void *)20), MPI_SUCCESS);
    CHECK_RC(MPI_Type_set_attr(t, kinc, (void *)30), MPI_SUCCESS);
    CHECK_RC(MPI_Type_dup(t, &d), MPI_SUCCESS);
    CHECK(cpy.calls == 1 && cpy.type == t && cpy.keyval == kinc && cpy.value == (void *)30 &&
          cpy.extra == &kinc);
    CHECK_RC(MPI_Type_get_attr(d, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)10);
    CHECK_RC(MPI_Type_get_attr(d, knull, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Type_get_attr(d, kinc, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)31);
    /* the original is unchanged */
    CHECK_RC(MPI_Type_get_attr(t, kinc, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)30);

    /* freeing the keyval while attributes use it; MPI_Type_free still runs the callbacks */
    int kinc_value = kinc;
    CHECK_RC(MPI_Type_free_keyval(&kinc), MPI_SUCCESS);
    CHECK(kinc == MPI_KEYVAL_INVALID);
    del.calls = 0;
    MPI_Datatype dd = d;
    CHECK_RC(MPI_Type_free(&d), MPI_SUCCESS);
    CHECK(d == MPI_DATATYPE_NULL);
    CHECK(del.calls == 2 && del.type == dd); /* kdup's and kinc's attributes */
    del.calls = 0;
    MPI_Datatype tt = t;
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);
    CHECK(del.calls == 2 && del.type == tt);
    (void)kinc_value;

    /* a type built from a type with attributes inherits none of them */
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_set_attr(t, kdup, (void *)40), MPI_SUCCESS);
    MPI_Datatype v2;
    CHECK_RC(MPI_Type_vector(2, 1, 2, t, &v2), MPI_SUCCESS);
    CHECK_RC(MPI_Type_get_attr(v2, kdup, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Type_free(&v2), MPI_SUCCESS);
    CHECK_RC(MPI_Type_delete_attr(t, kdup), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);

    /* errors: keyvals of the other kind, invalid types */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int kcomm;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kcomm, NULL),
             MPI_SUCCESS);
    CHECK_ERR(MPI_Type_set_attr(MPI_INT, kcomm, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_get_attr(MPI_INT, kcomm, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_delete_attr(MPI_INT, kcomm), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, kdup, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_free_keyval(&kcomm), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_free_keyval(&kdup), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_set_attr(MPI_INT, MPI_KEYVAL_INVALID, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Type_set_attr(MPI_DATATYPE_NULL, kdup, NULL), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_attr(MPI_DATATYPE_NULL, kdup, &v, &flag), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_delete_attr(MPI_DATATYPE_NULL, kdup), MPI_ERR_TYPE);
#ifdef METAMPI
    CHECK_ERR(MPI_Type_set_attr((MPI_Datatype)MPI_COMM_WORLD, kdup, NULL), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_attr(MPI_INT, kdup, NULL, &flag), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, NULL, NULL),
              MPI_ERR_ARG);
    {
        MPI_Datatype freed;
        CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &freed), MPI_SUCCESS);
        MPI_Datatype handle = freed;
        CHECK_RC(MPI_Type_free(&freed), MPI_SUCCESS);
        CHECK_ERR(MPI_Type_set_attr(handle, kdup, NULL), MPI_ERR_TYPE);
    }
#endif
    CHECK_RC(MPI_Comm_free_keyval(&kcomm), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free_keyval(&kdup), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free_keyval(&knull), MPI_SUCCESS);
    CHECK(kdup == MPI_KEYVAL_INVALID && knull == MPI_KEYVAL_INVALID);

    MPI_Finalize();
    if (rank == 0)
        printf("type_attr: ok\n");
    return 0;
}
