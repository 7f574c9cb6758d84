/* Error paths of the datatype calls, with MPI_ERRORS_RETURN: null, invalid and freed type
 * handles (MPI_ERR_TYPE), negative counts (MPI_ERR_COUNT), bad arguments (MPI_ERR_ARG),
 * uncommitted types where packing needs committed ones, pack and unpack buffers too small
 * (MPI_ERR_TRUNCATE), bad communicators, and that a failed call leaves its outputs alone.
 * Classes are checked exactly on metampi; other MPIs only have to fail (dt_check.h), and
 * handles that could crash them (garbage, freed) are tried on metampi only. */
#include "dt_check.h"

static MPI_Datatype bad_handles[4];
static int nbad;

static void each_bad_type(void (*fn)(MPI_Datatype))
{
    for (int i = 0; i < nbad; i++)
        fn(bad_handles[i]);
}

static void constructors_with(MPI_Datatype bad)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int bl[1] = {1}, di[1] = {0};
    MPI_Aint da[1] = {0};
    CHECK_ERR(MPI_Type_contiguous(1, bad, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_vector(1, 1, 1, bad, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_hvector(1, 1, 8, bad, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_indexed(1, bl, di, bad, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_hindexed(1, bl, da, bad, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_indexed_block(1, 1, di, bad, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_hindexed_block(1, 1, da, bad, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                                     (MPI_Datatype[]){MPI_INT, bad}, &t),
              MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_subarray(1, (int[]){4}, (int[]){2}, (int[]){0}, MPI_ORDER_C, bad,
                                       &t),
              MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_darray(1, 0, 1, (int[]){4}, (int[]){MPI_DISTRIBUTE_BLOCK},
                                     (int[]){MPI_DISTRIBUTE_DFLT_DARG}, (int[]){1}, MPI_ORDER_C,
                                     bad, &t),
              MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_create_resized(bad, 0, 8, &t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_dup(bad, &t), MPI_ERR_TYPE);
    CHECK(t == MPI_DATATYPE_NULL);
}

static void queries_with(MPI_Datatype bad)
{
    int i = -7, ni, na, nd, comb;
    MPI_Aint a = -7, b = -7;
    MPI_Count c = -7, d = -7;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Status st;
    MPI_Datatype t = bad;
    CHECK_ERR(MPI_Type_commit(&t), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_free(&t), MPI_ERR_TYPE);
    CHECK(t == bad);
    CHECK_ERR(MPI_Type_size(bad, &i), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_size_x(bad, &c), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_extent(bad, &a, &b), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_extent_x(bad, &c, &d), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_true_extent(bad, &a, &b), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_true_extent_x(bad, &c, &d), MPI_ERR_TYPE);
    CHECK(i == -7 && a == -7 && b == -7 && c == -7 && d == -7);
    CHECK_ERR(MPI_Type_get_envelope(bad, &ni, &na, &nd, &comb), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_get_name(bad, name, &i), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_set_name(bad, "x"), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Pack_size(1, bad, MPI_COMM_WORLD, &i), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Pack_external_size("external32", 1, bad, &a), MPI_ERR_TYPE);
    MPI_Status_set_elements(&st, MPI_BYTE, 4);
    CHECK_ERR(MPI_Get_count(&st, bad, &i), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Get_elements(&st, bad, &i), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Get_elements_x(&st, bad, &c), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Status_set_elements(&st, bad, 1), MPI_ERR_TYPE);
    int buf[4] = {0}, pos = 0;
    CHECK_ERR(MPI_Pack(buf, 1, bad, buf + 2, 8, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Unpack(buf, 8, &pos, buf + 2, 1, bad, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK(pos == 0);
}

static void counts_and_arguments(void)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int di[2] = {0, 4};
    MPI_Aint da[2] = {0, 16};
    CHECK_ERR(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Type_vector(-2, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Type_create_hvector(-1, 1, 4, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Type_indexed(-1, (int[]){1}, di, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Type_create_hindexed(-1, (int[]){1}, da, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Type_create_indexed_block(-1, 1, di, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Type_create_hindexed_block(-1, 1, da, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Type_create_struct(-1, (int[]){1}, da, (MPI_Datatype[]){MPI_INT}, &t),
              MPI_ERR_COUNT);
    /* negative block lengths */
    CHECK_ERR(MPI_Type_vector(2, -1, 1, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_indexed(2, (int[]){1, -1}, di, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_indexed_block(2, -3, di, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_struct(2, (int[]){-1, 1}, da, (MPI_Datatype[]){MPI_INT, MPI_INT},
                                     &t),
              MPI_ERR_ARG);
    /* subarrays: sizes, subsizes, starts, order. MPICH 4 accepts most of these erroneous
     * arguments (and crashes on some darray ones): metampi only, but for the two it checks. */
    const int two[1] = {2}, zero[1] = {0};
    CHECK_ERR(MPI_Type_create_subarray(1, two, (int[]){1}, (int[]){-1}, MPI_ORDER_C, MPI_INT,
                                       &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_subarray(1, two, two, zero, 999, MPI_INT, &t), MPI_ERR_ARG);
#ifdef METAMPI
    CHECK_ERR(MPI_Type_create_subarray(0, two, two, zero, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_subarray(1, (int[]){0}, two, zero, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_subarray(1, two, (int[]){3}, zero, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_subarray(1, two, (int[]){0}, zero, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_subarray(1, two, (int[]){1}, (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    /* darrays: grid size, distributions, block sizes */
    const int g[1] = {10}, blk[1] = {MPI_DISTRIBUTE_BLOCK}, dflt[1] = {MPI_DISTRIBUTE_DFLT_DARG};
    CHECK_ERR(MPI_Type_create_darray(4, 0, 1, g, blk, dflt, (int[]){3}, MPI_ORDER_C, MPI_INT,
                                     &t),
              MPI_ERR_ARG); /* 3 processes in the grid, 4 in the group */
    CHECK_ERR(MPI_Type_create_darray(2, 0, 1, g, blk, (int[]){4}, (int[]){2}, MPI_ORDER_C,
                                     MPI_INT, &t),
              MPI_ERR_ARG); /* 2 blocks of 4 do not cover 10 */
    CHECK_ERR(MPI_Type_create_darray(2, 0, 1, g, (int[]){77}, dflt, (int[]){2}, MPI_ORDER_C,
                                     MPI_INT, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_darray(2, 0, 1, g, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){0},
                                     (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_darray(2, 0, 1, g, blk, dflt, (int[]){2}, 999, MPI_INT, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_darray(2, 2, 1, g, blk, dflt, (int[]){2}, MPI_ORDER_C, MPI_INT,
                                     &t),
              MPI_ERR_RANK);
    CHECK_ERR(MPI_Type_create_darray(2, 0, 1, g, (int[]){MPI_DISTRIBUTE_NONE}, dflt,
                                     (int[]){2}, MPI_ORDER_C, MPI_INT, &t),
              MPI_ERR_ARG); /* an undistributed dimension over 2 processes */
    /* NULL outputs and arrays */
    CHECK_ERR(MPI_Type_contiguous(1, MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_indexed(1, NULL, di, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_create_struct(1, (int[]){1}, NULL, (MPI_Datatype[]){MPI_INT}, &t),
              MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_commit(NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_free(NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_set_name(MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Get_address(&t, NULL), MPI_ERR_ARG);
#endif
    CHECK(t == MPI_DATATYPE_NULL);

    /* contents: arrays too small */
    MPI_Datatype v, types[1];
    int ints[3];
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    CHECK_ERR(MPI_Type_get_contents(v, 2, 0, 1, ints, NULL, types), MPI_ERR_ARG);
    CHECK_ERR(MPI_Type_get_contents(v, 3, 0, 0, ints, NULL, types), MPI_ERR_ARG);
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);

    MPI_Status st;
    CHECK_ERR(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Status_set_elements_x(&st, MPI_INT, -5), MPI_ERR_COUNT);
}

static void packing(void)
{
    int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, pos;
    char out[64];
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector(2, 2, 4, MPI_INT, &v), MPI_SUCCESS); /* 16 bytes */
    /* not committed yet */
    pos = 0;
    CHECK_ERR(MPI_Pack(src, 1, v, out, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Unpack(out, 64, &pos, src, 1, v, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK(pos == 0);
    CHECK_RC(MPI_Type_commit(&v), MPI_SUCCESS);
    /* too small: 16 bytes at position 50 of 64; nothing written, position kept (MPICH 4
     * packs what fits and succeeds) */
#ifdef METAMPI
    memset(out, 'x', sizeof out);
    pos = 50;
    CHECK_ERR(MPI_Pack(src, 1, v, out, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 50 && out[50] == 'x' && out[63] == 'x');
#endif
    pos = 0;
    CHECK_RC(MPI_Pack(src, 1, v, out, 64, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 16);
    /* unpacking more than was packed (MPICH 4 unpacks what is there) */
    int back[8] = {0};
#ifdef METAMPI
    pos = 0;
    CHECK_ERR(MPI_Unpack(out, 16, &pos, back, 2, v, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 0);
    pos = 4;
    CHECK_ERR(MPI_Unpack(out, 16, &pos, back, 1, v, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(back[0] == 0);
#endif
    pos = 0;
    CHECK_ERR(MPI_Pack(src, -1, v, out, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Unpack(out, 16, &pos, back, -1, v, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Pack_size(-1, v, MPI_COMM_WORLD, &pos), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Pack(src, 1, v, out, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERR(MPI_Pack_size(1, v, MPI_COMM_NULL, &pos), MPI_ERR_COMM);
#ifdef METAMPI
    pos = 65; /* beyond the buffer */
    CHECK_ERR(MPI_Pack(src, 1, v, out, 64, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = -1;
    CHECK_ERR(MPI_Unpack(out, 16, &pos, back, 1, v, MPI_COMM_WORLD), MPI_ERR_ARG);
    CHECK_ERR(MPI_Pack(src, 1, v, out, 64, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    MPI_Aint apos = 0;
    MPI_Datatype u;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &u), MPI_SUCCESS);
    CHECK_ERR(MPI_Pack_external("external32", src, 1, u, out, 64, &apos), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Pack_external("external32", src, -1, v, out, 64, &apos), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Pack_external("external32", src, 1, v, out, 8, &apos), MPI_ERR_TRUNCATE);
    CHECK(apos == 0);
    CHECK_RC(MPI_Type_free(&u), MPI_SUCCESS);
    /* a predefined type at NULL is no buffer at all */
    pos = 0;
    CHECK_ERR(MPI_Pack(NULL, 1, MPI_INT, out, 64, &pos, MPI_COMM_WORLD), MPI_ERR_BUFFER);
#endif
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);
}

/* A freed handle is gone for the user even while a type built on it keeps the type alive
 * (metampi; in MPICH such a handle stays usable until the last reference goes). */
static void freed(void)
{
    MPI_Datatype v, copy, s;
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    CHECK_RC(MPI_Type_contiguous(3, v, &s), MPI_SUCCESS);
    copy = v;
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);
    CHECK(v == MPI_DATATYPE_NULL);
#ifdef METAMPI
    int size;
    CHECK_ERR(MPI_Type_size(copy, &size), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Type_free(&copy), MPI_ERR_TYPE);
    /* handed out again by MPI_Type_get_contents, it is the user's once more */
    MPI_Datatype inner[1];
    int ints[1];
    CHECK_RC(MPI_Type_get_contents(s, 1, 0, 1, ints, NULL, inner), MPI_SUCCESS);
    CHECK(inner[0] == copy);
    CHECK_RC(MPI_Type_size(inner[0], &size), MPI_SUCCESS);
    CHECK(size == 8);
    CHECK_RC(MPI_Type_free(&inner[0]), MPI_SUCCESS);
    CHECK_ERR(MPI_Type_size(copy, &size), MPI_ERR_TYPE);
#else
    (void)copy;
#endif
    CHECK_TYPE(s, 24, 0, 36, 0, 36);
    CHECK_RC(MPI_Type_free(&s), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    bad_handles[nbad++] = MPI_DATATYPE_NULL;
#ifdef METAMPI
    MPI_Datatype gone;
    CHECK_RC(MPI_Type_contiguous(2, MPI_INT, &gone), MPI_SUCCESS);
    bad_handles[nbad++] = gone;
    CHECK_RC(MPI_Type_free(&gone), MPI_SUCCESS);  /* freed */
    bad_handles[nbad++] = (MPI_Datatype)0x0c00fff0; /* never allocated */
    bad_handles[nbad++] = (MPI_Datatype)MPI_COMM_WORLD; /* another kind */
#endif
    each_bad_type(constructors_with);
    each_bad_type(queries_with);
    counts_and_arguments();
    packing();
    freed();
    dt_finish("dt_errors");
    return 0;
}
