/* Attributes on MPI_COMM_WORLD and MPI_COMM_SELF: keyval life cycle, set/get/delete, the
 * delete callback on overwrite and delete with the right arguments, callbacks that change
 * attributes themselves, freeing a keyval in use, the predefined keys, the deprecated MPI-1
 * names, error paths, and the deletion of MPI_COMM_SELF's attributes in MPI_Finalize. */
#include "attr_test.h"

#include <stdlib.h>
#include <string.h>

/* What the delete callback saw, last call first. */
static struct {
    int calls;
    MPI_Comm comm;
    int keyval;
    void *value, *extra;
} del;

static int record_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    del.calls++;
    del.comm = comm;
    del.keyval = keyval;
    del.value = value;
    del.extra = extra;
    return MPI_SUCCESS;
}

static int fail_deletes = 1;
static int failing_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    return fail_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Deletes another attribute (the keyval in *extra) of the same communicator and sets a
 * third one: callbacks may use the attribute calls (on other keyvals). */
static int other_key, third_key;
static int meddling_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval, (void)value, (void)extra;
    CHECK_RC(MPI_Comm_delete_attr(comm, other_key), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(comm, third_key, (void *)3), MPI_SUCCESS);
    return MPI_SUCCESS;
}

/* Frees its own keyval: legal, the keyval lives until its last attribute is gone. */
static int self_freeing_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)value;
    int k = keyval;
    CHECK(k == *(int *)extra);
    CHECK_RC(MPI_Comm_free_keyval(&k), MPI_SUCCESS);
    del.calls++;
    return MPI_SUCCESS;
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, with MPI still usable. */
static int finalize_deletes;
static int finalize_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval, (void)extra;
    int flag = 1, rank;
    CHECK(comm == MPI_COMM_SELF && value == &finalize_deletes);
    CHECK_RC(MPI_Finalized(&flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank), MPI_SUCCESS);
    finalize_deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, flag;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void *v;

    /* life cycle with the predefined callbacks */
    int k1 = MPI_KEYVAL_INVALID, k2 = MPI_KEYVAL_INVALID;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k1, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, record_delete, &k2, &k1), MPI_SUCCESS);
    CHECK(k1 != MPI_KEYVAL_INVALID && k2 != MPI_KEYVAL_INVALID && k1 != k2);
    CHECK(k1 != MPI_TAG_UB && k2 != MPI_TAG_UB && k1 != MPI_APPNUM && k2 != MPI_APPNUM);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, k1, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k1, &rank), MPI_SUCCESS);
    v = NULL;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, k1, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == &rank);
    /* attributes are per communicator */
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, k1, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k1, &size), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, k1, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == &size);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, k1, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == &rank);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k1), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, k1, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    /* deleting an attribute that is not there is no error */
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k1), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, k1), MPI_SUCCESS);

    /* the delete callback: on delete, on overwrite, with (comm, keyval, value, extra_state) */
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, (void *)10), MPI_SUCCESS);
    CHECK(del.calls == 0);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, k2, (void *)11), MPI_SUCCESS);
    CHECK(del.calls == 1 && del.comm == MPI_COMM_WORLD && del.keyval == k2 &&
          del.value == (void *)10 && del.extra == &k1);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, k2, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)11);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)12), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, k2), MPI_SUCCESS);
    CHECK(del.calls == 2 && del.comm == MPI_COMM_SELF && del.keyval == k2 &&
          del.value == (void *)12);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k2), MPI_SUCCESS);
    CHECK(del.calls == 3 && del.comm == MPI_COMM_WORLD && del.value == (void *)11);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, k2), MPI_SUCCESS);
    CHECK(del.calls == 3);

    /* freeing a keyval that an attribute still uses: the attribute stays usable (MPI-3.1
     * §6.7.2), and its delete callback still runs with the keyval */
    int k2_value = k2;
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k2, (void *)13), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&k2), MPI_SUCCESS);
    CHECK(k2 == MPI_KEYVAL_INVALID);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, k2_value), MPI_SUCCESS);
    CHECK(del.calls == 4 && del.keyval == k2_value && del.value == (void *)13 &&
          del.extra == &k1);
    CHECK_RC(MPI_Comm_free_keyval(&k1), MPI_SUCCESS);
    CHECK(k1 == MPI_KEYVAL_INVALID);

    /* many keyvals and attributes at once */
    enum { N = 100 };
    int keys[N];
    for (int i = 0; i < N; i++) {
        CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &keys[i], NULL),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, keys[i], &keys[i]), MPI_SUCCESS);
    }
    for (int i = 0; i < N; i++) {
        CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, keys[i], &v, &flag), MPI_SUCCESS);
        CHECK(flag == 1 && v == &keys[i]);
    }
    del.calls = 0;
    for (int i = N - 1; i >= 0; i -= 2) {
        CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[i]), MPI_SUCCESS);
        CHECK(del.value == &keys[i]);
    }
    for (int i = 0; i < N; i++) {
        CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, keys[i], &v, &flag), MPI_SUCCESS);
        CHECK(flag == (i % 2 == 0) && (!flag || v == &keys[i]));
        CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[i]), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_free_keyval(&keys[i]), MPI_SUCCESS);
    }
    CHECK(del.calls == N);

    /* callbacks may change other attributes of the same communicator */
    int meddler;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, meddling_delete, &meddler, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_delete, &other_key, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &third_key,
                                    NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, other_key, (void *)2), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, meddler, (void *)1), MPI_SUCCESS);
    del.calls = 0;
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, meddler), MPI_SUCCESS);
    CHECK(del.calls == 1 && del.value == (void *)2);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, other_key, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, third_key, &v, &flag), MPI_SUCCESS);
#ifdef METAMPI
    CHECK(flag == 1 && v == (void *)3); /* MPICH loses an attribute set in a delete callback */
#endif
    /* ... also when the meddling callback runs for an overwrite */
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, other_key, (void *)4), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, meddler, (void *)5), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, meddler, (void *)6), MPI_SUCCESS);
    CHECK(del.calls == 2 && del.value == (void *)4);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, meddler, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)6);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, meddler, (void *)7), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, third_key), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, meddler), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, third_key), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&meddler), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&other_key), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&third_key), MPI_SUCCESS);

    /* a delete callback that frees its own keyval */
    int selfish;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_freeing_delete, &selfish,
                                    &selfish),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_WORLD, selfish, NULL), MPI_SUCCESS);
    del.calls = 0;
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_WORLD, selfish), MPI_SUCCESS);
    CHECK(del.calls == 1);

    /* the deprecated MPI-1 names */
    int old_key;
    CHECK_RC(MPI_Keyval_create(MPI_NULL_COPY_FN, record_delete, &old_key, (void *)99),
             MPI_SUCCESS);
    CHECK_RC(MPI_Attr_put(MPI_COMM_WORLD, old_key, (void *)21), MPI_SUCCESS);
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, old_key, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)21);
    CHECK_RC(MPI_Attr_delete(MPI_COMM_WORLD, old_key), MPI_SUCCESS);
    CHECK(del.keyval == old_key && del.value == (void *)21 && del.extra == (void *)99);
    CHECK_RC(MPI_Attr_get(MPI_COMM_WORLD, old_key, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 0);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1);
    CHECK_RC(MPI_Keyval_free(&old_key), MPI_SUCCESS);
    CHECK(old_key == MPI_KEYVAL_INVALID);
    {
        int k;
        MPI_Copy_function *c = MPI_DUP_FN;
        MPI_Delete_function *d = MPI_NULL_DELETE_FN;
        CHECK_RC(MPI_Keyval_create(c, d, &k, NULL), MPI_SUCCESS);
        CHECK_RC(MPI_Keyval_free(&k), MPI_SUCCESS);
    }

    /* the predefined keys on MPI_COMM_WORLD */
    int *iv;
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &iv, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && *iv >= 32767);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &iv, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && (*iv == 0 || *iv == 1));
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &iv, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && *iv >= MPI_ERR_LASTCODE);

    /* error paths, with MPI_ERRORS_RETURN */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int k3, bad;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, failing_delete, &k3, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, k3, (void *)31), MPI_SUCCESS);
    /* a failing delete callback fails the call that ran it */
    CHECK(MPI_Comm_delete_attr(MPI_COMM_SELF, k3) != MPI_SUCCESS);
    CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, k3, (void *)32) != MPI_SUCCESS);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    bad = MPI_TAG_UB;
    CHECK_ERR(MPI_Comm_free_keyval(&bad), MPI_ERR_KEYVAL);
    bad = MPI_KEYVAL_INVALID;
    CHECK_ERR(MPI_Comm_free_keyval(&bad), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_NULL, k3, NULL), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_NULL, k3, &v, &flag), MPI_ERR_COMM);
    CHECK_ERR(MPI_Comm_delete_attr(MPI_COMM_NULL, k3), MPI_ERR_COMM);
#ifdef METAMPI
    /* checks MPICH does not make */
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, k3, NULL, &flag), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, k3, &v, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Comm_free_keyval(NULL), MPI_ERR_ARG);
    /* a freed keyval is gone for new uses */
    int k4, k4_value;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &k4, NULL),
             MPI_SUCCESS);
    k4_value = k4;
    CHECK_RC(MPI_Comm_free_keyval(&k4), MPI_SUCCESS);
    CHECK_ERR(MPI_Comm_set_attr(MPI_COMM_WORLD, k4_value, NULL), MPI_ERR_KEYVAL);
    CHECK_ERR(MPI_Comm_get_attr(MPI_COMM_WORLD, k4_value, &v, &flag), MPI_ERR_KEYVAL);
    k4 = k4_value;
    CHECK_ERR(MPI_Comm_free_keyval(&k4), MPI_ERR_KEYVAL);
    /* the predefined keys answer on every communicator, as in MPICH */
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, MPI_TAG_UB, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && *(int *)v >= 32767);
#endif
    /* the attribute whose delete callback failed is still there */
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_SELF, k3, &v, &flag), MPI_SUCCESS);
    CHECK(flag == 1 && v == (void *)31);
    fail_deletes = 0;
    CHECK_RC(MPI_Comm_delete_attr(MPI_COMM_SELF, k3), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&k3), MPI_SUCCESS);

    int fin;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_delete, &fin, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(MPI_COMM_SELF, fin, &finalize_deletes), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&fin), MPI_SUCCESS);
    CHECK(finalize_deletes == 0);

    MPI_Finalize();
    if (finalize_deletes != 1) {
        fprintf(stderr, "FAIL rank %d: MPI_Finalize ran the delete callback of MPI_COMM_SELF's "
                        "attribute %d times\n", rank, finalize_deletes);
        return 1;
    }
    if (rank == 0)
        printf("comm_attr: ok\n");
    return 0;
}
