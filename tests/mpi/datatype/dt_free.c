/* The life cycle of datatypes: MPI_Type_free nulls the handle while types built on the freed
 * one keep working (packing through it), handles from MPI_Type_get_contents are the user's to
 * free, attribute delete callbacks run when the user frees the type (with its handle) even
 * though a type built on it keeps it alive, and thousands of create/commit/free cycles of
 * nested types (run under ASan: nothing leaks). */
#include "dt_check.h"

static int deletes;
static MPI_Datatype deleted;

static int on_delete(MPI_Datatype t, int keyval, void *value, void *extra)
{
    (void)keyval, (void)extra;
    deletes++;
    deleted = t;
    CHECK(value == (void *)&deletes);
    return MPI_SUCCESS;
}

static void built_on_freed(void)
{
    MPI_Datatype pair, row, grid, keep;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &pair), MPI_SUCCESS);
    CHECK_RC(MPI_Type_vector(3, 1, 2, pair, &row), MPI_SUCCESS);   /* pairs 0, 2, 4 */
    CHECK_RC(MPI_Type_create_resized(row, 0, 4 * sizeof(int), &keep), MPI_SUCCESS);
    CHECK_RC(MPI_Type_contiguous(2, keep, &grid), MPI_SUCCESS);   /* the same, 4 ints later */
    CHECK_RC(MPI_Type_free(&pair), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&row), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&keep), MPI_SUCCESS);
    CHECK(pair == MPI_DATATYPE_NULL && row == MPI_DATATYPE_NULL && keep == MPI_DATATYPE_NULL);
    CHECK_RC(MPI_Type_commit(&grid), MPI_SUCCESS);
    int src[16], out[12], pos = 0;
    for (int i = 0; i < 16; i++)
        src[i] = i;
    CHECK_RC(MPI_Pack(src, 1, grid, out, (int)sizeof out, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 48);
    const int want[12] = {0, 1, 4, 5, 8, 9, 4, 5, 8, 9, 12, 13};
    for (int i = 0; i < 12; i++)
        CHECK(out[i] == want[i]);
    CHECK_TYPE(grid, 48, 0, 32, 0, 56);
    CHECK_RC(MPI_Type_free(&grid), MPI_SUCCESS);
}

static void delete_callbacks(void)
{
    int key;
    CHECK_RC(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, on_delete, &key, NULL), MPI_SUCCESS);
    MPI_Datatype v, s;
    CHECK_RC(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &v), MPI_SUCCESS);
    CHECK_RC(MPI_Type_set_attr(v, key, &deletes), MPI_SUCCESS);
    CHECK_RC(MPI_Type_contiguous(2, v, &s), MPI_SUCCESS);
    MPI_Datatype vh = v;
    /* s keeps the vector, but for the user it is gone: its attributes go now (MPICH 4 runs
     * the callback only when the last reference goes, with s below) */
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);
#ifdef METAMPI
    CHECK(deletes == 1 && deleted == vh);
#else
    (void)vh;
#endif
    /* a handle to it again from get_contents, with a new attribute */
#ifdef METAMPI
    int ints[1];
    MPI_Datatype inner[1];
    CHECK_RC(MPI_Type_get_contents(s, 1, 0, 1, ints, NULL, inner), MPI_SUCCESS);
    CHECK_RC(MPI_Type_set_attr(inner[0], key, &deletes), MPI_SUCCESS);
    MPI_Datatype second[1];
    CHECK_RC(MPI_Type_get_contents(s, 1, 0, 1, ints, NULL, second), MPI_SUCCESS);
    /* two user handles (the same value): the first free keeps the attribute, the last
     * deletes it */
    CHECK_RC(MPI_Type_free(&inner[0]), MPI_SUCCESS);
    CHECK(deletes == 1);
    void *val;
    int flag;
    CHECK_RC(MPI_Type_get_attr(second[0], key, &val, &flag), MPI_SUCCESS);
    CHECK(flag && val == &deletes);
    CHECK_RC(MPI_Type_free(&second[0]), MPI_SUCCESS);
    CHECK(deletes == 2);
#endif
    CHECK_RC(MPI_Type_free(&s), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free_keyval(&key), MPI_SUCCESS);
}

static void cycles(void)
{
    for (int i = 0; i < 3000; i++) {
        MPI_Datatype a, b, c, d;
        CHECK_RC(MPI_Type_vector(2 + i % 5, 1 + i % 3, 4, MPI_INT, &a), MPI_SUCCESS);
        CHECK_RC(MPI_Type_create_subarray(2, (int[]){4, 4}, (int[]){2, 3}, (int[]){i % 3, 1},
                                          MPI_ORDER_C, a, &b),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Type_create_struct(2, (int[]){1, 2}, (MPI_Aint[]){0, 1024},
                                        (MPI_Datatype[]){b, MPI_DOUBLE_INT}, &c),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Type_dup(c, &d), MPI_SUCCESS);
        CHECK_RC(MPI_Type_commit(&d), MPI_SUCCESS);
        if (i % 2)
            CHECK_RC(MPI_Type_commit(&c), MPI_SUCCESS);
        CHECK_RC(MPI_Type_free(&a), MPI_SUCCESS);
        CHECK_RC(MPI_Type_free(&b), MPI_SUCCESS);
        CHECK_RC(MPI_Type_free(&c), MPI_SUCCESS);
        int size;
        CHECK_RC(MPI_Type_size(d, &size), MPI_SUCCESS);
        CHECK(size == 6 * (2 + i % 5) * (1 + i % 3) * 4 + 24);
        CHECK_RC(MPI_Type_free(&d), MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    built_on_freed();
    delete_callbacks();
    cycles();
    dt_finish("dt_free");
    return 0;
}
