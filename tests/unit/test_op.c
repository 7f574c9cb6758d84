/* Reduction kernels (core/op.c, core/op_kernels.c) against straightforward references:
 * every allowed (op, type) pair on corner and random values, MPI_ERR_OP (and untouched
 * buffers) for every pair the standard does not define, MINLOC/MAXLOC ties, complex
 * products, derived types (in place and packed in chunks), user ops, REPLACE/NO_OP. */
#include "core/op.h"
#include "datatype/construct.h"
#include "datatype/dtype.h"

#include <complex.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"


#define N 67 /* odd: vector loops and their scalar tails */

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static op_t *OP(MPI_Op h)
{
    op_t *o = op_lookup(h);
    if (!o) {
        fprintf(stderr, "FAIL op_lookup(0x%x)\n", (unsigned)h);
        exit(1);
    }
    return o;
}

static const MPI_Op all_ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,
                                 MPI_BAND, MPI_LOR,  MPI_BOR,  MPI_LXOR,   MPI_BXOR,
                                 MPI_MAXLOC, MPI_MINLOC};
#define NOPS (int)(sizeof all_ops / sizeof all_ops[0])

/* Applies op on t, expecting MPI_ERR_OP and no write when `want` is not set. */
static int apply(MPI_Op op, const void *in, void *inout, size_t n, MPI_Datatype h, int want)
{
    dtype_t *t = dtype_lookup(h);
    size_t bytes = n * (size_t)(t->ub - t->lb);
    unsigned char *copy = malloc(bytes);
    memcpy(copy, inout, bytes);
    int rc = op_apply(OP(op), in, inout, n, t);
    if (want)
        EXPECTF(rc == MPI_SUCCESS, "%s on %s: rc %d", op_name(OP(op)), t->name, rc);
    else
        EXPECTF(rc == MPI_ERR_OP && memcmp(copy, inout, bytes) == 0,
               "%s on %s: rc %d (want MPI_ERR_OP, buffer untouched)", op_name(OP(op)),
               t->name, rc);
    free(copy);
    return rc == MPI_SUCCESS;
}

/* ---- integers ---------------------------------------------------------------------------- */

static uint64_t bits_ref(MPI_Op op, uint64_t a, uint64_t b)
{
    return op == MPI_BAND ? (a & b) : op == MPI_BOR ? (a | b) : (a ^ b);
}

/* logical: C integers only (not the multi-language types) */
#define TEST_INT(T, H, TMIN, TMAX, logical)                                                    \
    do {                                                                                       \
        T a[N], b[N], r[N];                                                                    \
        const T corner[] = {0, 1, (T)-1, TMIN, TMAX, (T)(TMAX - 1), (T)(TMIN + 1), 2, 3};      \
        for (int op_i = 0; op_i < NOPS; op_i++) {                                              \
            MPI_Op op = all_ops[op_i];                                                         \
            int is_logic = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;                  \
            int want = op != MPI_MAXLOC && op != MPI_MINLOC && (!is_logic || (logical));       \
            for (int i = 0; i < N; i++) {                                                      \
                a[i] = i < 9 ? corner[i] : (T)next();                                          \
                b[i] = i < 9 ? corner[(i * 7 + 3) % 9] : i % 5 == 0 ? a[i] : (T)next();        \
                r[i] = b[i];                                                                   \
            }                                                                                  \
            if (!apply(op, a, r, N, H, want))                                                  \
                continue;                                                                      \
            for (int i = 0; i < N; i++) {                                                      \
                T x = a[i], y = b[i], e;                                                       \
                if (op == MPI_MAX)                                                             \
                    e = x < y ? y : x;                                                         \
                else if (op == MPI_MIN)                                                        \
                    e = y < x ? y : x;                                                         \
                else if (op == MPI_SUM)                                                        \
                    e = (T)((uint64_t)x + (uint64_t)y);                                        \
                else if (op == MPI_PROD)                                                       \
                    e = (T)((uint64_t)x * (uint64_t)y);                                        \
                else if (op == MPI_LAND)                                                       \
                    e = (T)(x != 0 && y != 0);                                                 \
                else if (op == MPI_LOR)                                                        \
                    e = (T)(x != 0 || y != 0);                                                 \
                else if (op == MPI_LXOR)                                                       \
                    e = (T)((x != 0) != (y != 0));                                             \
                else                                                                           \
                    e = (T)bits_ref(op, (uint64_t)x, (uint64_t)y);                             \
                EXPECTF(r[i] == e, "%s on %s [%d]", op_name(OP(op)), #H, i);                    \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static void test_integers(void)
{
    TEST_INT(signed char, MPI_SIGNED_CHAR, SCHAR_MIN, SCHAR_MAX, 1);
    TEST_INT(unsigned char, MPI_UNSIGNED_CHAR, 0, UCHAR_MAX, 1);
    TEST_INT(short, MPI_SHORT, SHRT_MIN, SHRT_MAX, 1);
    TEST_INT(unsigned short, MPI_UNSIGNED_SHORT, 0, USHRT_MAX, 1);
    TEST_INT(int, MPI_INT, INT_MIN, INT_MAX, 1);
    TEST_INT(unsigned, MPI_UNSIGNED, 0, UINT_MAX, 1);
    TEST_INT(long, MPI_LONG, LONG_MIN, LONG_MAX, 1);
    TEST_INT(unsigned long, MPI_UNSIGNED_LONG, 0, ULONG_MAX, 1);
    TEST_INT(long long, MPI_LONG_LONG, LLONG_MIN, LLONG_MAX, 1);
    TEST_INT(unsigned long long, MPI_UNSIGNED_LONG_LONG, 0, ULLONG_MAX, 1);
    TEST_INT(int8_t, MPI_INT8_T, INT8_MIN, INT8_MAX, 1);
    TEST_INT(int16_t, MPI_INT16_T, INT16_MIN, INT16_MAX, 1);
    TEST_INT(int32_t, MPI_INT32_T, INT32_MIN, INT32_MAX, 1);
    TEST_INT(int64_t, MPI_INT64_T, INT64_MIN, INT64_MAX, 1);
    TEST_INT(uint8_t, MPI_UINT8_T, 0, UINT8_MAX, 1);
    TEST_INT(uint16_t, MPI_UINT16_T, 0, UINT16_MAX, 1);
    TEST_INT(uint32_t, MPI_UINT32_T, 0, UINT32_MAX, 1);
    TEST_INT(uint64_t, MPI_UINT64_T, 0, UINT64_MAX, 1);
    TEST_INT(MPI_Aint, MPI_AINT, PTRDIFF_MIN, PTRDIFF_MAX, 0);
    TEST_INT(MPI_Offset, MPI_OFFSET, LLONG_MIN, LLONG_MAX, 0);
    TEST_INT(MPI_Count, MPI_COUNT, LLONG_MIN, LLONG_MAX, 0);
}

/* ---- floating point, complex, bool, byte, the types no op takes -------------------------- */

#define TEST_FLOAT(T, H, TMAX, TMIN_NORMAL, TDENORM)                                           \
    do {                                                                                       \
        T a[N], b[N], r[N];                                                                    \
        const T corner[] = {0, 1, -1, TMAX, -TMAX, TMIN_NORMAL, TDENORM, (T)INFINITY,          \
                            -(T)INFINITY, (T)0.5, (T)-2.25};                                   \
        for (int op_i = 0; op_i < NOPS; op_i++) {                                              \
            MPI_Op op = all_ops[op_i];                                                         \
            int want = op == MPI_MAX || op == MPI_MIN || op == MPI_SUM || op == MPI_PROD;      \
            for (int i = 0; i < N; i++) {                                                      \
                a[i] = i < 11 ? corner[i] : (T)((int)(next() % 2001) - 1000) / 8;              \
                b[i] = i < 11 ? corner[(i * 3 + 4) % 11] : (T)((int)(next() % 2001) - 1000) / 4; \
                r[i] = b[i];                                                                   \
            }                                                                                  \
            if (!apply(op, a, r, N, H, want))                                                  \
                continue;                                                                      \
            for (int i = 0; i < N; i++) {                                                      \
                T x = a[i], y = b[i], e;                                                       \
                if (op == MPI_MAX)                                                             \
                    e = x < y ? y : x;                                                         \
                else if (op == MPI_MIN)                                                        \
                    e = y < x ? y : x;                                                         \
                else if (op == MPI_SUM)                                                        \
                    e = x + y;                                                                 \
                else                                                                           \
                    e = x * y;                                                                 \
                EXPECTF(r[i] == e || (r[i] != r[i] && e != e), "%s on %s [%d]",                 \
                       op_name(OP(op)), #H, i);                                                \
            }                                                                                  \
        }                                                                                      \
    } while (0)

/* Exactly representable parts, so (ac - bd) + (ad + bc)i is exact. */
#define TEST_COMPLEX(R, T, H)                                                                  \
    do {                                                                                       \
        T a[N], b[N], r[N];                                                                    \
        for (int op_i = 0; op_i < NOPS; op_i++) {                                              \
            MPI_Op op = all_ops[op_i];                                                         \
            int want = op == MPI_SUM || op == MPI_PROD;                                        \
            for (int i = 0; i < N; i++) {                                                      \
                R p[4];                                                                        \
                for (int k = 0; k < 4; k++)                                                    \
                    p[k] = (R)((int)(next() % 201) - 100) / 4;                                 \
                memcpy(&a[i], p, sizeof a[i]);                                                 \
                memcpy(&b[i], p + 2, sizeof b[i]);                                             \
                r[i] = b[i];                                                                   \
            }                                                                                  \
            if (!apply(op, a, r, N, H, want))                                                  \
                continue;                                                                      \
            for (int i = 0; i < N; i++) {                                                      \
                R x[2], y[2], z[2], e[2];                                              \
                memcpy(x, &a[i], sizeof x);                                                    \
                memcpy(y, &b[i], sizeof y);                                                    \
                memcpy(z, &r[i], sizeof z);                                                    \
                if (op == MPI_SUM) {                                                           \
                    e[0] = x[0] + y[0];                                                        \
                    e[1] = x[1] + y[1];                                                        \
                } else {                                                                       \
                    e[0] = x[0] * y[0] - x[1] * y[1];                                          \
                    e[1] = x[0] * y[1] + x[1] * y[0];                                          \
                }                                                                              \
                EXPECTF(z[0] == e[0] && z[1] == e[1], "%s on %s [%d]", op_name(OP(op)), #H, i);  \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static void test_float_complex(void)
{
    TEST_FLOAT(float, MPI_FLOAT, FLT_MAX, FLT_MIN, FLT_TRUE_MIN);
    TEST_FLOAT(double, MPI_DOUBLE, DBL_MAX, DBL_MIN, DBL_TRUE_MIN);
    TEST_FLOAT(long double, MPI_LONG_DOUBLE, LDBL_MAX, LDBL_MIN, LDBL_TRUE_MIN);
    TEST_COMPLEX(float, float _Complex, MPI_C_COMPLEX);
    TEST_COMPLEX(float, float _Complex, MPI_C_FLOAT_COMPLEX);
    TEST_COMPLEX(double, double _Complex, MPI_C_DOUBLE_COMPLEX);
    TEST_COMPLEX(long double, long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
    TEST_COMPLEX(float, float _Complex, MPI_CXX_FLOAT_COMPLEX);
    TEST_COMPLEX(double, double _Complex, MPI_CXX_DOUBLE_COMPLEX);
    TEST_COMPLEX(long double, long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX);

    /* an infinite factor: C99 Annex G, (inf + 0i)(1 + 1i) = inf + inf i, not NaN */
    double _Complex x = INFINITY, y;
    double parts[2] = {1, 1};
    memcpy(&y, parts, sizeof y);
    apply(MPI_PROD, &x, &y, 1, MPI_C_DOUBLE_COMPLEX, 1);
    memcpy(parts, &y, sizeof y);
    EXPECTF(parts[0] == INFINITY && parts[1] == INFINITY, "complex inf product %g %g",
           parts[0], parts[1]);
}

static void test_bool_byte_others(void)
{
    const MPI_Datatype bools[] = {MPI_C_BOOL, MPI_CXX_BOOL};
    for (int t = 0; t < 2; t++)
        for (int op_i = 0; op_i < NOPS; op_i++) {
            MPI_Op op = all_ops[op_i];
            bool a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1}, r[4];
            memcpy(r, b, sizeof r);
            int want = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
            if (!apply(op, a, r, 4, bools[t], want))
                continue;
            for (int i = 0; i < 4; i++) {
                bool e = op == MPI_LAND ? a[i] && b[i] : op == MPI_LOR ? a[i] || b[i]
                                                                       : a[i] != b[i];
                EXPECTF(r[i] == e, "%s on bool [%d]", op_name(OP(op)), i);
            }
        }
    for (int op_i = 0; op_i < NOPS; op_i++) {
        MPI_Op op = all_ops[op_i];
        unsigned char a[N], b[N], r[N];
        for (int i = 0; i < N; i++)
            a[i] = (unsigned char)next(), b[i] = r[i] = (unsigned char)next();
        int want = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
        if (apply(op, a, r, N, MPI_BYTE, want))
            for (int i = 0; i < N; i++)
                EXPECTF(r[i] == (unsigned char)bits_ref(op, a[i], b[i]), "%s on MPI_BYTE",
                       op_name(OP(op)));
    }
    /* characters and MPI_PACKED take no op at all (MPI-3.1 §5.9.2) */
    const MPI_Datatype none[] = {MPI_CHAR, MPI_WCHAR, MPI_PACKED};
    for (int t = 0; t < 3; t++)
        for (int op_i = 0; op_i < NOPS; op_i++) {
            long long a[2] = {1, 2}, r[2] = {3, 4};
            apply(all_ops[op_i], a, r, 1, none[t], 0);
        }
}

/* ---- MINLOC/MAXLOC ------------------------------------------------------------------------ */

#define TEST_PAIR(T, H)                                                                        \
    do {                                                                                       \
        struct {                                                                               \
            T v;                                                                               \
            int i;                                                                             \
        } a[N], b[N], r[N];                                                                    \
        memset(a, 0, sizeof a);                                                                \
        memset(b, 0, sizeof b);                                                                \
        for (int op_i = 0; op_i < NOPS; op_i++) {                                              \
            MPI_Op op = all_ops[op_i];                                                         \
            int want = op == MPI_MAXLOC || op == MPI_MINLOC;                                   \
            for (int k = 0; k < N; k++) {                                                      \
                a[k].v = (T)(next() % 5);                                                      \
                b[k].v = k % 3 == 0 ? a[k].v : (T)(next() % 5); /* ties */                     \
                a[k].i = (int)(next() % 7);                                                    \
                b[k].i = (int)(next() % 7);                                                    \
            }                                                                                  \
            memcpy(r, b, sizeof r);                                                            \
            if (!apply(op, a, r, N, H, want))                                                  \
                continue;                                                                      \
            for (int k = 0; k < N; k++) {                                                      \
                int better = op == MPI_MAXLOC ? a[k].v > b[k].v : a[k].v < b[k].v;             \
                T ev = better ? a[k].v : b[k].v;                                               \
                int ei = better ? a[k].i                                                       \
                         : a[k].v == b[k].v ? (a[k].i < b[k].i ? a[k].i : b[k].i)              \
                                            : b[k].i;                                          \
                EXPECTF(r[k].v == ev && r[k].i == ei, "%s on %s [%d]", op_name(OP(op)), #H, k); \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static void test_pairs(void)
{
    TEST_PAIR(float, MPI_FLOAT_INT);
    TEST_PAIR(double, MPI_DOUBLE_INT);
    TEST_PAIR(long, MPI_LONG_INT);
    TEST_PAIR(int, MPI_2INT);
    TEST_PAIR(short, MPI_SHORT_INT);
    TEST_PAIR(long double, MPI_LONG_DOUBLE_INT);
    int a[2] = {1, 2}, r[2] = {3, 4};
    apply(MPI_MAXLOC, a, r, 2, MPI_INT, 0);
}

/* ---- derived types ------------------------------------------------------------------------ */

static void committed(int rc, dtype_t **t)
{
    if (rc != MPI_SUCCESS || dtype_commit(*t) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL building a type\n");
        exit(1);
    }
}

static void test_derived(void)
{
    /* every other int of 2 * 40000 (packed in several chunks): SUM, gaps untouched */
    enum { M = 40000 };
    dtype_t *vec;
    committed(dtype_hvector(M, 1, 2 * sizeof(int), dtype_lookup(MPI_INT), &vec), &vec);
    int *a = malloc(2 * M * sizeof(int)), *r = malloc(2 * M * sizeof(int));
    for (int i = 0; i < 2 * M; i++)
        a[i] = i, r[i] = 3 * i;
    EXPECTF(op_apply(OP(MPI_SUM), a, r, 1, vec) == MPI_SUCCESS, "SUM on a vector");
    for (int i = 0; i < 2 * M; i++)
        EXPECTF(r[i] == (i % 2 ? 3 * i : 4 * i), "vector SUM [%d] = %d", i, r[i]);
    EXPECTF(op_apply(OP(MPI_BAND), a, r, 1, vec) == MPI_SUCCESS, "BAND on a vector");
    EXPECTF(op_apply(OP(MPI_LAND), a, r, 1, vec) == MPI_SUCCESS, "LAND on a vector");
    memcpy(r, a, 2 * M * sizeof(int));
    EXPECTF(op_apply(OP(MPI_PROD), a, r, 0, vec) == MPI_SUCCESS && r[0] == 0, "count 0");
    /* forbidden on the vector's basic type: checked before anything is written */
    double *d = calloc(2 * M, sizeof(double));
    dtype_t *dvec;
    committed(dtype_hvector(M, 1, 2 * sizeof(double), dtype_lookup(MPI_DOUBLE), &dvec), &dvec);
    EXPECTF(op_apply(OP(MPI_BXOR), d, d, 1, dvec) == MPI_ERR_OP, "BXOR on a double vector");
    EXPECTF(op_apply(OP(MPI_MAXLOC), a, r, 1, vec) == MPI_ERR_OP, "MAXLOC on an int vector");

    /* contiguous ints (in place, no packing) */
    dtype_t *con;
    committed(dtype_contiguous(5, dtype_lookup(MPI_INT), &con), &con);
    for (int i = 0; i < 10; i++)
        a[i] = i, r[i] = 100;
    EXPECTF(op_apply(OP(MPI_MAX), a, r, 2, con) == MPI_SUCCESS, "MAX on contiguous");
    for (int i = 0; i < 10; i++)
        EXPECTF(r[i] == 100, "contiguous MAX [%d]", i);

    /* contiguous DOUBLE_INT pairs (padded: packed per chunk), MINLOC with ties */
    struct {
        double v;
        int i;
    } pa[7], pr[7];
    memset(pa, 0, sizeof pa);
    memset(pr, 0, sizeof pr);
    for (int k = 0; k < 7; k++)
        pa[k].v = k % 2, pa[k].i = k, pr[k].v = 1 - k % 3 % 2, pr[k].i = 3;
    dtype_t *pc;
    committed(dtype_contiguous(7, dtype_lookup(MPI_DOUBLE_INT), &pc), &pc);
    EXPECTF(op_apply(OP(MPI_MINLOC), pa, pr, 1, pc) == MPI_SUCCESS, "MINLOC on pairs");
    for (int k = 0; k < 7; k++) {
        double bv = 1 - k % 3 % 2;
        double ev = pa[k].v < bv ? pa[k].v : bv;
        int ei = pa[k].v < bv ? k : pa[k].v == bv ? (k < 3 ? k : 3) : 3;
        EXPECTF(pr[k].v == ev && pr[k].i == ei, "derived MINLOC [%d]: %g %d", k, pr[k].v,
               pr[k].i);
    }
    EXPECTF(op_apply(OP(MPI_SUM), pa, pr, 1, pc) == MPI_ERR_OP, "SUM on DOUBLE_INT pairs");

    /* mixed basic types: no predefined op */
    int bl[2] = {1, 1};
    MPI_Aint disps[2] = {0, 8};
    dtype_t *types[2] = {dtype_lookup(MPI_INT), dtype_lookup(MPI_DOUBLE)};
    dtype_t *mixed;
    committed(dtype_struct(2, bl, disps, types, &mixed), &mixed);
    char buf1[16] = {0}, buf2[16] = {0};
    EXPECTF(op_apply(OP(MPI_SUM), buf1, buf2, 1, mixed) == MPI_ERR_OP, "SUM on a mixed struct");

    dtype_release(vec);
    dtype_release(dvec);
    dtype_release(con);
    dtype_release(pc);
    dtype_release(mixed);
    free(a);
    free(r);
    free(d);
}

/* ---- user ops, REPLACE, NO_OP, handles ----------------------------------------------------- */

static int user_calls, user_len;
static MPI_Datatype user_type;
static void user_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    user_calls++;
    user_len = *len;
    user_type = *type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] = 2 * ((int *)inout)[i] - ((int *)in)[i];
}

static void test_user_and_handles(void)
{
    MPI_Op h;
    EXPECTF(op_create(user_fn, 0, &h) == MPI_SUCCESS, "op_create");
    op_t *u = op_lookup(h);
    EXPECTF(u && u->kind == OP_USER && !u->commute, "user op object");
    int a[3] = {1, 2, 3}, r[3] = {10, 20, 30};
    EXPECTF(op_apply(u, a, r, 3, dtype_lookup(MPI_INT)) == MPI_SUCCESS, "user op apply");
    EXPECTF(user_calls == 1 && user_len == 3 && user_type == MPI_INT && r[0] == 19 &&
               r[2] == 57, "user op call");
    op_retain(u);
    op_release(u);
    EXPECTF(op_lookup(h) == u, "retained op lives");
    op_release(u);
    EXPECTF(op_lookup(h) == NULL, "released op is gone");

    int in[3] = {7, 8, 9}, io[3] = {1, 1, 1};
    EXPECTF(op_apply(OP(MPI_NO_OP), in, io, 3, dtype_lookup(MPI_INT)) == MPI_SUCCESS &&
               io[0] == 1, "NO_OP");
    EXPECTF(op_apply(OP(MPI_REPLACE), in, io, 3, dtype_lookup(MPI_INT)) == MPI_SUCCESS &&
               io[0] == 7 && io[2] == 9, "REPLACE");
    EXPECTF(op_is_rma_only(OP(MPI_REPLACE)) && op_is_rma_only(OP(MPI_NO_OP)) &&
               !op_is_rma_only(OP(MPI_SUM)), "rma only");
    for (int k = OP_MAX; k <= OP_NPREDEFINED; k++)
        EXPECTF(op_lookup((MPI_Op)(0x20000000 | k))->kind == (op_kind_t)k, "predefined %d", k);
    EXPECTF(op_lookup(MPI_OP_NULL) == NULL && op_lookup(MPI_INT) == NULL &&
               op_lookup(0x20001234) == NULL && op_lookup(-1) == NULL, "invalid handles");
}

int main(void)
{
    if (dtype_init(NULL) != 0) {
        fprintf(stderr, "FAIL dtype_init\n");
        return 1;
    }
    test_integers();
    test_float_complex();
    test_bool_byte_others();
    test_pairs();
    test_derived();
    test_user_and_handles();
    dtype_finalize();
    return expect_done("op");
}
