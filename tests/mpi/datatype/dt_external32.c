/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size with "external32"
 * (MPI-3.1 §4.3, §13.5.2): the packed bytes against hand-written big-endian encodings with
 * the standard's fixed sizes (MPI_LONG 4 bytes, MPI_WCHAR 2, MPI_LONG_DOUBLE a 16-byte IEEE
 * quad), derived types (gaps dropped), round trips, positions, and MPI_ERR_CONVERSION for a
 * long that does not fit 32 bits. */
#include "dt_check.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

static void expect_bytes(const unsigned char *got, const unsigned char *want, size_t n,
                         const char *what)
{
    if (memcmp(got, want, n) != 0) {
        fprintf(stderr, "%s: packed", what);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %02x", got[i]);
        fprintf(stderr, "\n%s: wanted", what);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %02x", want[i]);
        fprintf(stderr, "\n");
        CHECK(0);
    }
}

/* packs count elements of t at buf, checks size and bytes, unpacks into back */
static void pack_check(const void *buf, int count, MPI_Datatype t, const unsigned char *want,
                       size_t n, void *back, const char *what)
{
    unsigned char out[256];
    MPI_Aint size, pos = 0;
    CHECK(n <= sizeof out);
    CHECK_RC(MPI_Pack_external_size("external32", count, t, &size), MPI_SUCCESS);
    CHECK(size == (MPI_Aint)n);
    CHECK_RC(MPI_Pack_external("external32", buf, count, t, out, sizeof out, &pos), MPI_SUCCESS);
    CHECK(pos == (MPI_Aint)n);
    expect_bytes(out, want, n, what);
    if (back) {
        pos = 0;
        CHECK_RC(MPI_Unpack_external("external32", out, (MPI_Aint)n, &pos, back, count, t),
                 MPI_SUCCESS);
        CHECK(pos == (MPI_Aint)n);
    }
}

static void integers(void)
{
    int i[2] = {0x01020304, -2}, ib[2];
    pack_check(i, 2, MPI_INT, (unsigned char[]){1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe}, 8, ib,
               "int");
    CHECK(ib[0] == i[0] && ib[1] == i[1]);

    short s[2] = {-3, 0x1234}, sb[2];
    pack_check(s, 2, MPI_SHORT, (unsigned char[]){0xff, 0xfd, 0x12, 0x34}, 4, sb, "short");
    CHECK(sb[0] == -3 && sb[1] == 0x1234);

    /* MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes in external32 whatever sizeof(long) is */
    long l[3] = {5, -1, -0x7fffffffL}, lb[3];
    pack_check(l, 3, MPI_LONG,
               (unsigned char[]){0, 0, 0, 5, 0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 1}, 12, lb,
               "long");
    CHECK(lb[0] == 5 && lb[1] == -1 && lb[2] == -0x7fffffffL);
    unsigned long ul[1] = {0xfffffffeUL}, ulb[1];
    pack_check(ul, 1, MPI_UNSIGNED_LONG, (unsigned char[]){0xff, 0xff, 0xff, 0xfe}, 4, ulb,
               "unsigned long");
    CHECK(ulb[0] == 0xfffffffeUL);

    long long ll[1] = {0x0102030405060708LL}, llb[1];
    pack_check(ll, 1, MPI_LONG_LONG, (unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8, llb,
               "long long");
    CHECK(llb[0] == ll[0]);

    uint16_t u16[1] = {0xbeef}, u16b[1];
    pack_check(u16, 1, MPI_UINT16_T, (unsigned char[]){0xbe, 0xef}, 2, u16b, "uint16");
    CHECK(u16b[0] == 0xbeef);
    int64_t i64[1] = {-2}, i64b[1];
    pack_check(i64, 1, MPI_INT64_T, (unsigned char[]){0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                                      0xfe},
               8, i64b, "int64");
    CHECK(i64b[0] == -2);
#ifdef METAMPI /* MPICH 4 aborts on MPI_AINT in external32 */
    MPI_Aint a[1] = {0x10203}, ab[1];
    pack_check(a, 1, MPI_AINT, (unsigned char[]){0, 0, 0, 0, 0, 1, 2, 3}, 8, ab, "aint");
    CHECK(ab[0] == a[0]);
#endif

    char c[3] = {'a', 'b', -1}, cb[3];
    pack_check(c, 3, MPI_CHAR, (unsigned char[]){'a', 'b', 0xff}, 3, cb, "char");
    CHECK(cb[2] == (char)-1); /* char is unsigned on s390x */
    bool bo[2] = {true, false}, bob[2];
    pack_check(bo, 2, MPI_C_BOOL, (unsigned char[]){1, 0}, 2, bob, "bool");
    CHECK(bob[0] && !bob[1]);
}

static void floating(void)
{
    float f[2] = {1.0f, -0.5f}, fb[2];
    pack_check(f, 2, MPI_FLOAT, (unsigned char[]){0x3f, 0x80, 0, 0, 0xbf, 0, 0, 0}, 8, fb,
               "float");
    CHECK(fb[0] == 1.0f && fb[1] == -0.5f);
    double d[1] = {-2.5}, db[1];
    pack_check(d, 1, MPI_DOUBLE, (unsigned char[]){0xc0, 0x04, 0, 0, 0, 0, 0, 0}, 8, db,
               "double");
    CHECK(db[0] == -2.5);
    float _Complex fc[1] = {1.0f + 2.0f * I}, fcb[1];
    pack_check(fc, 1, MPI_C_FLOAT_COMPLEX,
               (unsigned char[]){0x3f, 0x80, 0, 0, 0x40, 0, 0, 0}, 8, fcb, "float complex");
    CHECK(fcb[0] == fc[0]);
    double _Complex dc[1] = {-1.0 + 0.5 * I}, dcb[1];
    pack_check(dc, 1, MPI_C_DOUBLE_COMPLEX,
               (unsigned char[]){0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0}, 16,
               dcb, "double complex");
    CHECK(dcb[0] == dc[0]);
}

/* MPI_LONG_DOUBLE is an IEEE binary128 in external32: sign, 15-bit exponent (bias 16383),
 * 112-bit fraction. MPICH 4 copies the native 80-bit bytes instead: metampi only. */
static void long_doubles(void)
{
#ifdef METAMPI
    long double x[2] = {1.0L, -0.75L}, xb[2];
    unsigned char want[32] = {0x3f, 0xff};
    want[16] = 0xbf, want[17] = 0xfe, want[18] = 0x80;
    pack_check(x, 2, MPI_LONG_DOUBLE, want, 32, xb, "long double");
    CHECK(xb[0] == 1.0L && xb[1] == -0.75L);

    /* values that must survive native -> quad -> native exactly */
    long double v[8] = {LDBL_MAX, LDBL_MIN, LDBL_MIN / 1024, -LDBL_TRUE_MIN, INFINITY,
                        -0.0L, 1.0L / 3, NAN};
    long double vb[8];
    unsigned char out[8 * 16];
    MPI_Aint pos = 0;
    CHECK_RC(MPI_Pack_external("external32", v, 8, MPI_LONG_DOUBLE, out, sizeof out, &pos),
             MPI_SUCCESS);
    pos = 0;
    CHECK_RC(MPI_Unpack_external("external32", out, sizeof out, &pos, vb, 8, MPI_LONG_DOUBLE),
             MPI_SUCCESS);
    for (int i = 0; i < 7; i++)
        CHECK(vb[i] == v[i] && signbit(vb[i]) == signbit(v[i]));
    CHECK(isnan(vb[7]));
    /* infinity in binary128 */
    CHECK(out[64] == 0x7f && out[65] == 0xff && out[66] == 0 && out[79] == 0);

    long double _Complex lc[1] = {2.0L - 1.0L * I}, lcb[1];
    unsigned char wc[32] = {0x40, 0x00};
    wc[16] = 0xbf, wc[17] = 0xff;
    pack_check(lc, 1, MPI_C_LONG_DOUBLE_COMPLEX, wc, 32, lcb, "long double complex");
    CHECK(lcb[0] == lc[0]);
#else
    MPI_Aint size;
    CHECK_RC(MPI_Pack_external_size("external32", 1, MPI_LONG_DOUBLE, &size), MPI_SUCCESS);
    CHECK(size == 16);
#endif
}

static void derived(void)
{
    /* every other int of 6: the gaps are not packed */
    int v[6] = {1, 2, 3, 4, 5, 6}, vb[6] = {0};
    MPI_Datatype every2;
    CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &every2), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&every2), MPI_SUCCESS);
    pack_check(v, 1, every2, (unsigned char[]){0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0, 5}, 12, vb,
               "vector");
    CHECK(vb[0] == 1 && vb[1] == 0 && vb[2] == 3 && vb[4] == 5 && vb[5] == 0);
    CHECK_RC(MPI_Type_free(&every2), MPI_SUCCESS);

    /* MPICH 4 aborts in MPI_Pack_external_size for any struct type: metampi only */
#ifdef METAMPI
    /* {char, long, float}: 1 + 4 + 4 bytes */
    struct s { char c; long l; float f; } s[2] = {{'x', -7, 2.0f}, {'y', 1 << 20, -1.0f}}, sb[2];
    MPI_Datatype st;
    CHECK_RC(MPI_Type_create_struct(3, (int[]){1, 1, 1},
                                    (MPI_Aint[]){offsetof(struct s, c), offsetof(struct s, l),
                                                 offsetof(struct s, f)},
                                    (MPI_Datatype[]){MPI_CHAR, MPI_LONG, MPI_FLOAT}, &st),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&st), MPI_SUCCESS);
    memset(sb, 0, sizeof sb);
    pack_check(s, 2, st,
               (unsigned char[]){'x', 0xff, 0xff, 0xff, 0xf9, 0x40, 0, 0, 0,
                                 'y', 0, 0x10, 0, 0, 0xbf, 0x80, 0, 0},
               18, sb, "struct");
    CHECK(sb[1].c == 'y' && sb[1].l == 1 << 20 && sb[1].f == -1.0f && sb[0].l == -7);
    CHECK_RC(MPI_Type_free(&st), MPI_SUCCESS);

    /* MPI_FLOAT_INT: 8 bytes; MPI_SHORT_INT: 6 */
    struct { float f; int i; } fi[1] = {{0.5f, 258}}, fib[1];
    pack_check(fi, 1, MPI_FLOAT_INT, (unsigned char[]){0x3f, 0, 0, 0, 0, 0, 1, 2}, 8, fib,
               "float_int");
    CHECK(fib[0].f == 0.5f && fib[0].i == 258);
    struct { short s; int i; } si[1] = {{-1, 3}}, sib[1];
    pack_check(si, 1, MPI_SHORT_INT, (unsigned char[]){0xff, 0xff, 0, 0, 0, 3}, 6, sib,
               "short_int");
    CHECK(sib[0].s == -1 && sib[0].i == 3);
#endif
}

static void wide_chars(void)
{
    /* MPI_WCHAR is 2 bytes in external32 (MPICH 4 aborts here) */
#ifdef METAMPI
    MPI_Aint size;
    CHECK_RC(MPI_Pack_external_size("external32", 3, MPI_WCHAR, &size), MPI_SUCCESS);
    CHECK(size == 6);
    wchar_t w[2] = {L'A', 0x20ac}, wb[2];
    pack_check(w, 2, MPI_WCHAR, (unsigned char[]){0, 0x41, 0x20, 0xac}, 4, wb, "wchar");
    CHECK(wb[0] == L'A' && wb[1] == 0x20ac);
#endif
}

static void positions_and_errors(void)
{
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    int i = 7;
    short s = 9;
    unsigned char out[8];
    MPI_Aint pos = 1;
    CHECK_RC(MPI_Pack_external("external32", &i, 1, MPI_INT, out, 8, &pos), MPI_SUCCESS);
    CHECK_RC(MPI_Pack_external("external32", &s, 1, MPI_SHORT, out, 8, &pos), MPI_SUCCESS);
    CHECK(pos == 7 && out[4] == 7 && out[6] == 9);
    /* no room for another int (MPICH 4 does not check: it would write past the buffer) */
#ifdef METAMPI
    CHECK_ERR(MPI_Pack_external("external32", &i, 1, MPI_INT, out, 8, &pos), MPI_ERR_TRUNCATE);
    CHECK(pos == 7);
#endif
    int j = 0;
#ifdef METAMPI
    pos = 5;
    CHECK_ERR(MPI_Unpack_external("external32", out, 7, &pos, &j, 1, MPI_INT), MPI_ERR_TRUNCATE);
#endif
    pos = 1;
    CHECK_RC(MPI_Unpack_external("external32", out, 7, &pos, &j, 1, MPI_INT), MPI_SUCCESS);
    CHECK(j == 7 && pos == 5);
#ifdef METAMPI
    /* "external32" is the only representation (MPICH 4 ignores the argument) */
    CHECK_ERR(MPI_Pack_external("native", &i, 1, MPI_INT, out, 8, &pos), MPI_ERR_ARG);
    MPI_Aint size;
    CHECK_ERR(MPI_Pack_external_size("internal", 1, MPI_INT, &size), MPI_ERR_ARG);
    if (sizeof(long) > 4) {
        long big = 1L << 40;
        pos = 0;
        CHECK_ERR(MPI_Pack_external("external32", &big, 1, MPI_LONG, out, 8, &pos),
                  MPI_ERR_CONVERSION);
        CHECK(pos == 0);
    }
    wchar_t w = 0x1f600; /* beyond 16 bits */
    pos = 0;
    CHECK_ERR(MPI_Pack_external("external32", &w, 1, MPI_WCHAR, out, 8, &pos),
              MPI_ERR_CONVERSION);
#endif
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    integers();
    floating();
    long_doubles();
    derived();
    wide_chars();
    positions_and_errors();
    dt_finish("dt_external32");
    return 0;
}
