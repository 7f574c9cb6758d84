/* MPI_Pack / MPI_Unpack / MPI_Pack_size (MPI-3.1 §4.2): packed bytes in typemap order for
 * vectors, indexed, structs, subarrays, resized and pair types; several items packed into one
 * buffer by position; round trips; MPI_BOTTOM with absolute addresses from MPI_Get_address,
 * MPI_Aint_add/MPI_Aint_diff; MPI_Get_count/Get_elements/Status_set_elements with derived
 * types; and (np >= 2) a packed message sent as MPI_PACKED to the next rank and unpacked. */
#include "dt_check.h"

#include <stddef.h>
#include <stdint.h>

static void vector_bytes(void)
{
    int src[24], packed[20], back[20];
    for (int i = 0; i < 24; i++)
        src[i] = 100 + i;
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector(3, 2, 5, MPI_INT, &v), MPI_SUCCESS); /* 0,1 5,6 10,11 */
    CHECK_RC(MPI_Type_commit(&v), MPI_SUCCESS);
    int size, pos = 0;
    CHECK_RC(MPI_Pack_size(1, v, MPI_COMM_WORLD, &size), MPI_SUCCESS);
    CHECK(size >= 24);
    CHECK_RC(MPI_Pack(src, 1, v, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 24);
    const int want[6] = {100, 101, 105, 106, 110, 111};
    for (int i = 0; i < 6; i++)
        CHECK(packed[i] == want[i]);
    memset(back, 0, sizeof back);
    int upos = 0;
    CHECK_RC(MPI_Unpack(packed, pos, &upos, back, 1, v, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(upos == 24);
    for (int i = 0; i < 20; i++)
        CHECK(back[i] == ((i % 5) < 2 && i < 12 ? 100 + i : 0));
    /* count 2: the second vector starts one extent (12 ints) after the first */
    pos = 0;
    CHECK_RC(MPI_Pack(src, 2, v, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 48 && packed[6] == 112 && packed[7] == 113 && packed[11] == 123);
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);
}

static void sequence(void)
{
    /* an int header, 3 doubles of a strided array, a char string: one buffer */
    double d[9];
    for (int i = 0; i < 9; i++)
        d[i] = i * 1.5;
    int n = 3, n2 = 0;
    char text[6] = "hello", text2[6] = "";
    double d2[9] = {0};
    MPI_Datatype every3;
    CHECK_RC(MPI_Type_vector(3, 1, 3, MPI_DOUBLE, &every3), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&every3), MPI_SUCCESS);
    int s1, s2, s3;
    CHECK_RC(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s1), MPI_SUCCESS);
    CHECK_RC(MPI_Pack_size(1, every3, MPI_COMM_WORLD, &s2), MPI_SUCCESS);
    CHECK_RC(MPI_Pack_size(6, MPI_CHAR, MPI_COMM_WORLD, &s3), MPI_SUCCESS);
    int cap = s1 + s2 + s3;
    char *buf = malloc((size_t)cap);
    CHECK(buf);
    int pos = 0;
    CHECK_RC(MPI_Pack(&n, 1, MPI_INT, buf, cap, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Pack(d, 1, every3, buf, cap, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Pack(text, 6, MPI_CHAR, buf, cap, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    int end = pos;
    pos = 0;
    CHECK_RC(MPI_Unpack(buf, end, &pos, &n2, 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Unpack(buf, end, &pos, d2, 1, every3, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Unpack(buf, end, &pos, text2, 6, MPI_CHAR, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == end);
    CHECK(n2 == 3 && strcmp(text2, "hello") == 0);
    for (int i = 0; i < 9; i++)
        CHECK(d2[i] == (i % 3 == 0 ? d[i] : 0));
    free(buf);
    CHECK_RC(MPI_Type_free(&every3), MPI_SUCCESS);
}

struct rec {
    char tag;
    double value;
    short id[3];
};

static MPI_Datatype rec_type(void)
{
    MPI_Datatype t;
    CHECK_RC(MPI_Type_create_struct(3, (int[]){1, 1, 3},
                                    (MPI_Aint[]){offsetof(struct rec, tag),
                                                 offsetof(struct rec, value),
                                                 offsetof(struct rec, id)},
                                    (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, &t),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
    return t;
}

static void structs(void)
{
    MPI_Datatype t = rec_type();
    MPI_Aint lb, ext;
    CHECK_RC(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);
    CHECK(lb == 0 && ext == (MPI_Aint)sizeof(struct rec));
    struct rec r[4], q[4];
    memset(r, 0, sizeof r);
    memset(q, 0, sizeof q);
    for (int i = 0; i < 4; i++) {
        r[i].tag = (char)('a' + i);
        r[i].value = i + 0.25;
        r[i].id[0] = (short)i, r[i].id[1] = (short)(10 * i), r[i].id[2] = (short)(-i);
    }
    unsigned char buf[4 * 15];
    int pos = 0;
    CHECK_RC(MPI_Pack(r, 4, t, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 60);
    /* element 2 packed at 30: tag, value, ids with no gaps */
    double v;
    short id1;
    memcpy(&v, buf + 31, sizeof v);
    memcpy(&id1, buf + 41, sizeof id1);
    CHECK(buf[30] == 'c' && v == 2.25 && id1 == 20);
    pos = 0;
    CHECK_RC(MPI_Unpack(buf, 60, &pos, q, 4, t, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        CHECK(q[i].tag == r[i].tag && q[i].value == r[i].value && q[i].id[2] == r[i].id[2]);
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);

    /* a predefined pair type packs its two values without the gap */
    struct { double d; int i; } di[2] = {{1.5, 7}, {-2.5, 9}}, dj[2];
    unsigned char pb[24];
    int size;
    CHECK_RC(MPI_Pack_size(2, MPI_DOUBLE_INT, MPI_COMM_WORLD, &size), MPI_SUCCESS);
    CHECK(size >= 24);
    pos = 0;
    CHECK_RC(MPI_Pack(di, 2, MPI_DOUBLE_INT, pb, 24, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 24);
    int i1;
    memcpy(&v, pb + 12, 8);
    memcpy(&i1, pb + 20, 4);
    CHECK(v == -2.5 && i1 == 9);
    pos = 0;
    CHECK_RC(MPI_Unpack(pb, 24, &pos, dj, 2, MPI_DOUBLE_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(dj[0].d == 1.5 && dj[0].i == 7 && dj[1].d == -2.5 && dj[1].i == 9);
}

static void subarray_and_resized(void)
{
    /* the 2x2 block at (1,1) of a 3x4 int matrix */
    int m[3][4], back[3][4];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            m[i][j] = 10 * i + j;
    MPI_Datatype sub;
    CHECK_RC(MPI_Type_create_subarray(2, (int[]){3, 4}, (int[]){2, 2}, (int[]){1, 1},
                                      MPI_ORDER_C, MPI_INT, &sub),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&sub), MPI_SUCCESS);
    int packed[4], pos = 0;
    CHECK_RC(MPI_Pack(m, 1, sub, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 16 && packed[0] == 11 && packed[1] == 12 && packed[2] == 21 && packed[3] == 22);
    memset(back, 0, sizeof back);
    pos = 0;
    CHECK_RC(MPI_Unpack(packed, 16, &pos, back, 1, sub, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(back[1][1] == 11 && back[2][2] == 22 && back[0][0] == 0 && back[1][3] == 0);
    CHECK_RC(MPI_Type_free(&sub), MPI_SUCCESS);

    /* a column of the matrix, resized to one int so consecutive columns follow each other */
    MPI_Datatype col, col1;
    CHECK_RC(MPI_Type_vector(3, 1, 4, MPI_INT, &col), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_resized(col, 0, sizeof(int), &col1), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&col1), MPI_SUCCESS);
    int t[12];
    pos = 0;
    CHECK_RC(MPI_Pack(m, 4, col1, t, (int)sizeof t, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 48);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 3; i++)
            CHECK(t[3 * j + i] == m[i][j]); /* the transpose */
    CHECK_RC(MPI_Type_free(&col1), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&col), MPI_SUCCESS);
}

static void bottom(void)
{
    /* three unrelated variables described by absolute addresses */
    static double x = 3.5;
    int y[2] = {4, 5};
    char z = 'z';
    MPI_Aint ax, ay, az, ay1;
    CHECK_RC(MPI_Get_address(&x, &ax), MPI_SUCCESS);
    CHECK_RC(MPI_Get_address(y, &ay), MPI_SUCCESS);
    CHECK_RC(MPI_Get_address(&y[1], &ay1), MPI_SUCCESS);
    CHECK_RC(MPI_Get_address(&z, &az), MPI_SUCCESS);
    CHECK(MPI_Aint_diff(ay1, ay) == (MPI_Aint)sizeof(int));
    CHECK(MPI_Aint_add(ay, sizeof(int)) == ay1);
    CHECK(MPI_Aint_add(MPI_Aint_diff(az, ax), ax) == az);
    /* MPICH 4 refuses MPI_BOTTOM (a null pointer) as MPI_Pack's buffer: elsewhere the same
     * addresses relative to x */
#ifdef METAMPI
    void *base = MPI_BOTTOM;
    MPI_Aint origin = 0;
#else
    void *base = &x;
    MPI_Aint origin = ax;
#endif
    MPI_Datatype t;
    CHECK_RC(MPI_Type_create_struct(3, (int[]){1, 2, 1},
                                    (MPI_Aint[]){MPI_Aint_diff(ax, origin),
                                                 MPI_Aint_diff(ay, origin),
                                                 MPI_Aint_diff(az, origin)},
                                    (MPI_Datatype[]){MPI_DOUBLE, MPI_INT, MPI_CHAR}, &t),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
    unsigned char buf[17];
    int pos = 0;
    CHECK_RC(MPI_Pack(base, 1, t, buf, (int)sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(pos == 17 && buf[16] == 'z');
    x = 0, y[0] = y[1] = 0, z = 0;
    pos = 0;
    CHECK_RC(MPI_Unpack(buf, 17, &pos, base, 1, t, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(x == 3.5 && y[0] == 4 && y[1] == 5 && z == 'z');
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);
}

static void statuses(void)
{
    MPI_Status st;
    int n;
    MPI_Count nx;
    MPI_Datatype v; /* 2 blocks of 3 shorts: 12 bytes, 6 elements */
    CHECK_RC(MPI_Type_vector(2, 3, 4, MPI_SHORT, &v), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&v), MPI_SUCCESS);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_SHORT, 9), MPI_SUCCESS); /* 1.5 vectors */
    CHECK_RC(MPI_Get_elements(&st, v, &n), MPI_SUCCESS);
    CHECK(n == 9);
    CHECK_RC(MPI_Get_count(&st, v, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Status_set_elements_x(&st, MPI_SHORT, 12), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&st, v, &n), MPI_SUCCESS);
    CHECK(n == 2);
    CHECK_RC(MPI_Get_elements_x(&st, v, &nx), MPI_SUCCESS);
    CHECK(nx == 12);
#ifdef METAMPI
    /* MPI-3.1 §12.3: MPI_Get_elements returns what MPI_Status_set_elements set, in basic
     * elements of the type (MPICH 4 stores count * size of the type instead) */
    CHECK_RC(MPI_Status_set_elements(&st, v, 9), MPI_SUCCESS);
    CHECK_RC(MPI_Get_elements(&st, v, &n), MPI_SUCCESS);
    CHECK(n == 9);
    CHECK_RC(MPI_Get_count(&st, MPI_SHORT, &n), MPI_SUCCESS);
    CHECK(n == 9);
    CHECK_RC(MPI_Status_set_elements_x(&st, v, 12), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&st, v, &n), MPI_SUCCESS);
    CHECK(n == 2);
#endif
    /* a status of 13 bytes ends inside a short: MPI_UNDEFINED, as for a predefined type
     * (MPICH 4 counts the whole shorts of a derived type) */
    CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 13), MPI_SUCCESS);
    CHECK_RC(MPI_Get_elements(&st, MPI_SHORT, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
#ifdef METAMPI
    CHECK_RC(MPI_Get_elements(&st, v, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
#endif
    CHECK_RC(MPI_Type_free(&v), MPI_SUCCESS);

    /* mixed basic types: {double, int} pairs; 20 bytes = one pair and one double */
    CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 20), MPI_SUCCESS);
    CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    CHECK(n == 3);
    CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
#ifdef METAMPI
    CHECK_RC(MPI_Status_set_elements(&st, MPI_BYTE, 10), MPI_SUCCESS); /* inside the double */
    CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Status_set_elements(&st, MPI_DOUBLE_INT, 3), MPI_SUCCESS);
    CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n), MPI_SUCCESS);
    CHECK(n == 3);
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &n), MPI_SUCCESS);
    CHECK(n == 20);
#endif
}

/* a packed message to the next rank: a count, then that many {char, double, short[3]} */
static void exchange(void)
{
    if (dt_size < 2)
        return;
    int right = (dt_rank + 1) % dt_size, left = (dt_rank + dt_size - 1) % dt_size;
    MPI_Datatype t = rec_type();
    int n = 3 + dt_rank, cap, s1, s2;
    CHECK_RC(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &s1), MPI_SUCCESS);
    CHECK_RC(MPI_Pack_size(16, t, MPI_COMM_WORLD, &s2), MPI_SUCCESS);
    cap = s1 + s2;
    char *out = malloc((size_t)cap), *in = malloc((size_t)cap);
    CHECK(out && in);
    struct rec r[16], q[16];
    memset(r, 0, sizeof r);
    for (int i = 0; i < n; i++) {
        r[i].tag = (char)('A' + dt_rank);
        r[i].value = dt_rank * 100 + i;
        r[i].id[0] = r[i].id[1] = r[i].id[2] = (short)i;
    }
    int pos = 0;
    CHECK_RC(MPI_Pack(&n, 1, MPI_INT, out, cap, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Pack(r, n, t, out, cap, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv(out, pos, MPI_PACKED, right, 5, in, cap, MPI_PACKED, left, 5,
                          MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    int got, m, upos = 0;
    CHECK_RC(MPI_Get_count(&st, MPI_PACKED, &got), MPI_SUCCESS);
    CHECK_RC(MPI_Unpack(in, got, &upos, &m, 1, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(m == 3 + left);
    CHECK_RC(MPI_Unpack(in, got, &upos, q, m, t, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(upos == got);
    for (int i = 0; i < m; i++)
        CHECK(q[i].tag == 'A' + left && q[i].value == left * 100 + i && q[i].id[2] == i);
    free(out);
    free(in);
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    vector_bytes();
    sequence();
    structs();
    subarray_and_resized();
    bottom();
    statuses();
    exchange();
    dt_finish("dt_pack");
    return 0;
}
