/* Reduction operations through the MPI interface: MPI_Reduce_local for every (op, type) pair
 * MPI-3.1 §5.9.2 allows, MPI_ERR_OP for pairs it does not, MINLOC/MAXLOC with ties, derived
 * types, user ops (commutative and not: inoutbuf = inbuf op inoutbuf, in that order),
 * MPI_Op_free / MPI_Op_commutative, and invalid arguments. A plain MPI program (validated
 * against MPICH); checks MPICH does not make are under #ifdef METAMPI. */
#include "../check.h"

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The error class of a return code (MPICH returns codes, not classes). */
static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}
#define CHECK_ERR(expr, klass) CHECK_RC(cls(expr), klass)

/* Value classes: how to store 3 and 5 (or true/false) and read the result back. */
enum { I_S8, I_U8, I_S16, I_U16, I_S32, I_U32, I_S64, I_U64, F_F, F_D, F_LD, C_F, C_D, C_LD,
       BOOL_, BYTE_ };

static const struct {
    MPI_Datatype t;
    int cls;
    const char *name;
    int multi; /* MPI_AINT, MPI_OFFSET, MPI_COUNT: no logical ops */
} types[] = {
#define T(h, c) {h, c, #h, 0}
    T(MPI_SIGNED_CHAR, I_S8), T(MPI_UNSIGNED_CHAR, I_U8), T(MPI_SHORT, I_S16),
    T(MPI_UNSIGNED_SHORT, I_U16), T(MPI_INT, I_S32), T(MPI_UNSIGNED, I_U32),
    T(MPI_LONG, I_S64), T(MPI_UNSIGNED_LONG, I_U64), T(MPI_LONG_LONG_INT, I_S64),
    T(MPI_LONG_LONG, I_S64), T(MPI_UNSIGNED_LONG_LONG, I_U64), T(MPI_INT8_T, I_S8),
    T(MPI_INT16_T, I_S16), T(MPI_INT32_T, I_S32), T(MPI_INT64_T, I_S64), T(MPI_UINT8_T, I_U8),
    T(MPI_UINT16_T, I_U16), T(MPI_UINT32_T, I_U32), T(MPI_UINT64_T, I_U64),
    {MPI_AINT, I_S64, "MPI_AINT", 1}, {MPI_OFFSET, I_S64, "MPI_OFFSET", 1},
    {MPI_COUNT, I_S64, "MPI_COUNT", 1},
    T(MPI_FLOAT, F_F), T(MPI_DOUBLE, F_D), T(MPI_LONG_DOUBLE, F_LD),
    T(MPI_C_COMPLEX, C_F), T(MPI_C_FLOAT_COMPLEX, C_F), T(MPI_C_DOUBLE_COMPLEX, C_D),
    T(MPI_C_LONG_DOUBLE_COMPLEX, C_LD), T(MPI_C_BOOL, BOOL_), T(MPI_BYTE, BYTE_),
#undef T
};
#define NTYPES (int)(sizeof types / sizeof types[0])

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {{MPI_MAX, "MAX"},   {MPI_MIN, "MIN"},   {MPI_SUM, "SUM"},   {MPI_PROD, "PROD"},
           {MPI_LAND, "LAND"}, {MPI_LOR, "LOR"},   {MPI_LXOR, "LXOR"}, {MPI_BAND, "BAND"},
           {MPI_BOR, "BOR"},   {MPI_BXOR, "BXOR"}, {MPI_MAXLOC, "MAXLOC"},
           {MPI_MINLOC, "MINLOC"}};
#define NOPS (int)(sizeof ops / sizeof ops[0])

static int is_int(int c) { return c <= I_U64; }
static int is_float(int c) { return c >= F_F && c <= F_LD; }
static int is_complex(int c) { return c >= C_F && c <= C_LD; }

static int allowed(int ti, MPI_Op op)
{
    int c = types[ti].cls;
    if (op == MPI_MAX || op == MPI_MIN)
        return is_int(c) || is_float(c);
    if (op == MPI_SUM || op == MPI_PROD)
        return is_int(c) || is_float(c) || is_complex(c);
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return (is_int(c) && !types[ti].multi) || c == BOOL_;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return is_int(c) || c == BYTE_;
    return 0;
}

/* Stores v (real part v, imaginary part 1 for complex) as element i of buf. */
static void put(int c, void *buf, int i, long long v)
{
    switch (c) {
    case I_S8: case I_U8: case BYTE_: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case I_S16: case I_U16: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case I_S32: case I_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case I_S64: case I_U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case F_F: ((float *)buf)[i] = (float)v; break;
    case F_D: ((double *)buf)[i] = (double)v; break;
    case F_LD: ((long double *)buf)[i] = (long double)v; break;
    case C_F: ((float _Complex *)buf)[i] = (float)v + 1.0f * I; break;
    case C_D: ((double _Complex *)buf)[i] = (double)v + 1.0 * I; break;
    case C_LD: ((long double _Complex *)buf)[i] = (long double)v + 1.0L * I; break;
    case BOOL_: ((bool *)buf)[i] = v != 0; break;
    }
}

/* Element i of buf: its value (real part) and, for complex, its imaginary part. */
static long long get(int c, const void *buf, int i, long long *imag)
{
    *imag = 0;
    switch (c) {
    case I_S8: return ((const int8_t *)buf)[i];
    case I_U8: case BYTE_: return ((const uint8_t *)buf)[i];
    case I_S16: return ((const int16_t *)buf)[i];
    case I_U16: return ((const uint16_t *)buf)[i];
    case I_S32: return ((const int32_t *)buf)[i];
    case I_U32: return ((const uint32_t *)buf)[i];
    case I_S64: return ((const int64_t *)buf)[i];
    case I_U64: return (long long)((const uint64_t *)buf)[i];
    case F_F: return (long long)((const float *)buf)[i];
    case F_D: return (long long)((const double *)buf)[i];
    case F_LD: return (long long)((const long double *)buf)[i];
    case C_F: *imag = (long long)cimagf(((const float _Complex *)buf)[i]);
              return (long long)crealf(((const float _Complex *)buf)[i]);
    case C_D: *imag = (long long)cimag(((const double _Complex *)buf)[i]);
              return (long long)creal(((const double _Complex *)buf)[i]);
    case C_LD: *imag = (long long)cimagl(((const long double _Complex *)buf)[i]);
               return (long long)creall(((const long double _Complex *)buf)[i]);
    case BOOL_: return ((const bool *)buf)[i];
    }
    return -999;
}

/* Every predefined op on every basic type: in = {3, 0, 5}, inout = {5, 6, 0}. */
static void test_basic_pairs(void)
{
    static const long long in[3] = {3, 0, 5}, io[3] = {5, 6, 0};
    for (int ti = 0; ti < NTYPES; ti++)
        for (int oi = 0; oi < NOPS; oi++) {
            int c = types[ti].cls;
            MPI_Op op = ops[oi].op;
#ifndef METAMPI /* MPICH 4.0 accepts LAND etc. on MPI_AINT and floats, then asserts */
            if (!allowed(ti, op) && (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR))
                continue;
#endif
            _Alignas(32) unsigned char a[3 * 32], b[3 * 32], orig[3 * 32];
            memset(a, 0, sizeof a);
            memset(b, 0, sizeof b);
            for (int i = 0; i < 3; i++) {
                put(c, a, i, in[i]);
                put(c, b, i, io[i]);
            }
            memcpy(orig, b, sizeof b);
            int rc = MPI_Reduce_local(a, b, 3, types[ti].t, op);
            if (!allowed(ti, op)) {
#ifndef METAMPI /* MPICH defines some pairs beyond the standard's (e.g. LAND on MPI_AINT) */
                if (rc == MPI_SUCCESS)
                    continue;
#endif
                if (cls(rc) != MPI_ERR_OP || memcmp(orig, b, sizeof b) != 0) {
                    fprintf(stderr, "%s on %s: rc %d, want MPI_ERR_OP\n", ops[oi].name,
                            types[ti].name, rc);
                    CHECK(0);
                }
                continue;
            }
            if (rc != MPI_SUCCESS) {
                fprintf(stderr, "%s on %s: rc %d\n", ops[oi].name, types[ti].name, rc);
                CHECK(0);
            }
            for (int i = 0; i < 3; i++) {
                long long x = in[i], y = io[i], e, ei = 0, im;
                if (c == BOOL_)
                    x = x != 0, y = y != 0;
                if (op == MPI_MAX) e = x > y ? x : y;
                else if (op == MPI_MIN) e = x < y ? x : y;
                else if (op == MPI_SUM) e = x + y, ei = 2;
                else if (op == MPI_PROD) e = x * y - 1, ei = x + y; /* (x+i)(y+i) */
                else if (op == MPI_LAND) e = x && y;
                else if (op == MPI_LOR) e = x || y;
                else if (op == MPI_LXOR) e = !x != !y;
                else if (op == MPI_BAND) e = x & y;
                else if (op == MPI_BOR) e = x | y;
                else e = x ^ y;
                if (!is_complex(c)) {
                    ei = 0;
                    if (op == MPI_PROD)
                        e = x * y;
                }
                long long got = get(c, b, i, &im);
                if (got != e || im != ei) {
                    fprintf(stderr, "%s on %s [%d]: %lld%+lldi, want %lld%+lldi\n",
                            ops[oi].name, types[ti].name, i, got, im, e, ei);
                    CHECK(0);
                }
            }
        }
}

/* MINLOC/MAXLOC on the pair types; equal values keep the smaller index. */
#define PAIR_CASE(T, H)                                                                        \
    do {                                                                                       \
        struct { T v; int i; } a[4], b[4];                                                     \
        memset(a, 0, sizeof a);                                                                \
        memset(b, 0, sizeof b);                                                                \
        const T av[4] = {1, 2, 3, 3}, bv[4] = {2, 1, 3, 3};                                    \
        const int ai[4] = {0, 1, 7, 2}, bi[4] = {5, 6, 4, 9};                                  \
        for (int k = 0; k < 4; k++)                                                            \
            a[k].v = av[k], a[k].i = ai[k], b[k].v = bv[k], b[k].i = bi[k];                    \
        CHECK_RC(MPI_Reduce_local(a, b, 4, H, MPI_MAXLOC), MPI_SUCCESS);                       \
        CHECK(b[0].v == 2 && b[0].i == 5 && b[1].v == 2 && b[1].i == 1);                       \
        CHECK(b[2].v == 3 && b[2].i == 4 && b[3].v == 3 && b[3].i == 2);                       \
        for (int k = 0; k < 4; k++)                                                            \
            b[k].v = bv[k], b[k].i = bi[k];                                                    \
        CHECK_RC(MPI_Reduce_local(a, b, 4, H, MPI_MINLOC), MPI_SUCCESS);                       \
        CHECK(b[0].v == 1 && b[0].i == 0 && b[1].v == 1 && b[1].i == 6);                       \
        CHECK(b[2].v == 3 && b[2].i == 4 && b[3].v == 3 && b[3].i == 2);                       \
        CHECK_ERR(MPI_Reduce_local(a, b, 4, H, MPI_SUM), MPI_ERR_OP);                           \
        CHECK_ERR(MPI_Reduce_local(a, b, 4, H, MPI_MAX), MPI_ERR_OP);                           \
    } while (0)

static void test_loc_pairs(void)
{
    PAIR_CASE(float, MPI_FLOAT_INT);
    PAIR_CASE(double, MPI_DOUBLE_INT);
    PAIR_CASE(long, MPI_LONG_INT);
    PAIR_CASE(int, MPI_2INT);
    PAIR_CASE(short, MPI_SHORT_INT);
    PAIR_CASE(long double, MPI_LONG_DOUBLE_INT);
}

/* Predefined ops on derived types of one basic type. */
static void test_derived(void)
{
    MPI_Datatype vec, dvec, mixed;
    CHECK_RC(MPI_Type_vector(4, 1, 2, MPI_INT, &vec), MPI_SUCCESS);
#ifdef METAMPI
    /* MPICH 4.0 reports a wrong class for an uncommitted type, and its MPI_Reduce_local
     * refuses derived types with predefined ops */
    int a[8], b[8];
    for (int i = 0; i < 8; i++)
        a[i] = i, b[i] = 10 * i;
    CHECK_ERR(MPI_Reduce_local(a, b, 1, vec, MPI_SUM), MPI_ERR_TYPE); /* not committed */
    CHECK_RC(MPI_Type_commit(&vec), MPI_SUCCESS);
    CHECK_RC(MPI_Reduce_local(a, b, 1, vec, MPI_SUM), MPI_SUCCESS);
    for (int i = 0; i < 8; i++)
        CHECK(b[i] == (i % 2 ? 10 * i : 11 * i));
    MPI_Datatype pairs;
    struct { double v; int i; } pa[6], pb[6];
    memset(pa, 0, sizeof pa);
    memset(pb, 0, sizeof pb);
    for (int k = 0; k < 6; k++)
        pa[k].v = k, pa[k].i = k, pb[k].v = 6 - k, pb[k].i = 10 + k;
    CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_DOUBLE_INT, &pairs), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&pairs), MPI_SUCCESS);
    CHECK_RC(MPI_Reduce_local(pa, pb, 1, pairs, MPI_MAXLOC), MPI_SUCCESS);
    /* elements 0, 2, 4 reduced (in 0 vs 6, 2 vs 4, 4 vs 2); 1, 3, 5 untouched */
    CHECK(pb[0].v == 6 && pb[0].i == 10 && pb[2].v == 4 && pb[2].i == 12);
    CHECK(pb[4].v == 4 && pb[4].i == 4);
    CHECK(pb[1].v == 5 && pb[1].i == 11 && pb[3].v == 3 && pb[3].i == 13);
    CHECK_ERR(MPI_Reduce_local(pa, pb, 1, pairs, MPI_SUM), MPI_ERR_OP);
    MPI_Type_free(&pairs);
#endif
    CHECK_RC(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &dvec), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&dvec), MPI_SUCCESS);
    double d[4] = {0};
    CHECK_ERR(MPI_Reduce_local(d, d + 1, 0, dvec, MPI_BAND), MPI_ERR_OP);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype tt[2] = {MPI_INT, MPI_DOUBLE};
    CHECK_RC(MPI_Type_create_struct(2, bl, disp, tt, &mixed), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&mixed), MPI_SUCCESS);
#ifdef METAMPI /* (MPICH refuses every derived type, see above) */
    CHECK_ERR(MPI_Reduce_local(d, d + 2, 1, mixed, MPI_SUM), MPI_ERR_OP);
#endif
    MPI_Type_free(&vec);
    MPI_Type_free(&dvec);
    MPI_Type_free(&mixed);
}

/* A non-commutative op: digits concatenated, inout = in * 10 + inout, so the order of the
 * operands shows. */
static int calls;
static void concat(void *in, void *inout, int *len, MPI_Datatype *type)
{
    calls++;
    CHECK(*type == MPI_LONG);
    for (int i = 0; i < *len; i++)
        ((long *)inout)[i] = ((long *)in)[i] * 10 + ((long *)inout)[i];
}
static void add(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void test_user_ops(void)
{
    MPI_Op cat, sum;
    int commute = -1;
    CHECK_RC(MPI_Op_create(concat, 0, &cat), MPI_SUCCESS);
    CHECK_RC(MPI_Op_create(add, 1, &sum), MPI_SUCCESS);
    CHECK(cat != MPI_OP_NULL && sum != MPI_OP_NULL && cat != sum);
    CHECK_RC(MPI_Op_commutative(cat, &commute), MPI_SUCCESS);
    CHECK(commute == 0);
    CHECK_RC(MPI_Op_commutative(sum, &commute), MPI_SUCCESS);
    CHECK(commute == 1);
    CHECK_RC(MPI_Op_commutative(MPI_MAXLOC, &commute), MPI_SUCCESS);
    CHECK(commute == 1);

    long in[3] = {1, 2, 3}, io[3] = {4, 5, 6};
    CHECK_RC(MPI_Reduce_local(in, io, 3, MPI_LONG, cat), MPI_SUCCESS);
    CHECK(calls >= 1 && io[0] == 14 && io[1] == 25 && io[2] == 36);
    CHECK_RC(MPI_Reduce_local(in, io, 0, MPI_LONG, cat), MPI_SUCCESS);
    int x[2] = {1, 2}, y[2] = {10, 20};
    CHECK_RC(MPI_Reduce_local(x, y, 2, MPI_INT, sum), MPI_SUCCESS);
    CHECK(y[0] == 11 && y[1] == 22);

    CHECK_RC(MPI_Op_free(&cat), MPI_SUCCESS);
    CHECK(cat == MPI_OP_NULL);
    CHECK_RC(MPI_Op_free(&sum), MPI_SUCCESS);
    CHECK(sum == MPI_OP_NULL);
}

static void test_errors(void)
{
    MPI_Op op = MPI_SUM;
    CHECK_ERR(MPI_Op_free(&op), MPI_ERR_OP); /* predefined */
    CHECK(op == MPI_SUM);
    op = MPI_OP_NULL;
    CHECK_ERR(MPI_Op_free(&op), MPI_ERR_OP);
    int commute, a = 1, b = 2;
    CHECK_ERR(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
    CHECK_ERR(MPI_Reduce_local(&a, &b, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    CHECK(b == 2);
    CHECK_RC(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM), MPI_SUCCESS);
    char c1 = 1, c2 = 2;
    CHECK_RC(MPI_Reduce_local(&c1, &c2, 1, MPI_BYTE, MPI_BOR), MPI_SUCCESS);
    CHECK(c2 == 3);
#ifdef METAMPI /* checks MPICH does not make (MPICH 4.0 reports MPI_DATATYPE_NULL
                * as MPI_ERR_OP) */
    CHECK_ERR(MPI_Reduce_local(&a, &b, 1, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Reduce_local(&a, &b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT); /* MPICH: crash */
    CHECK_ERR(MPI_Op_free(NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
    CHECK_ERR(MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG);
    CHECK_ERR(MPI_Op_commutative((MPI_Op)MPI_INT, &commute), MPI_ERR_OP);
    CHECK_ERR(MPI_Reduce_local(&a, &b, 1, MPI_INT, (MPI_Op)0x2000abcd), MPI_ERR_OP);
    CHECK_ERR(MPI_Reduce_local(&a, &b, 1, MPI_INT, MPI_REPLACE), MPI_ERR_OP);
    CHECK_ERR(MPI_Reduce_local(&a, &b, 1, MPI_INT, MPI_NO_OP), MPI_ERR_OP);
    CHECK_ERR(MPI_Reduce_local(NULL, &b, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Reduce_local(&c1, &c2, 1, MPI_CHAR, MPI_SUM), MPI_ERR_OP);
    /* a freed user op handle is invalid */
    MPI_Op freed;
    CHECK_RC(MPI_Op_create(add, 1, &freed), MPI_SUCCESS);
    MPI_Op copy = freed;
    CHECK_RC(MPI_Op_free(&freed), MPI_SUCCESS);
    CHECK_ERR(MPI_Reduce_local(&a, &b, 1, MPI_INT, copy), MPI_ERR_OP);
    CHECK_ERR(MPI_Op_free(&copy), MPI_ERR_OP);
    CHECK(b == 2);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_basic_pairs();
    test_loc_pairs();
    test_derived();
    test_user_ops();
    test_errors();
    MPI_Finalize();
    return 0;
}
