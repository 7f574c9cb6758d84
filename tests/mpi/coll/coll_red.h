/* Reduction data for the collective tests (coll_reduce.c, coll_scan.c, coll_inter.c,
 * coll_nonblocking.c): for a representative (type, op) set, the input element i of process
 * `who` in case `key` (chosen so that every result is exact: no rounding, no signed
 * overflow, ties for MINLOC/MAXLOC), the reference fold in rank order, element comparison,
 * and two user ops: a NON-COMMUTATIVE 2x2 matrix product over uint32 (mod 2^32, exactly
 * associative) on a contiguous type and on a resized type with a gap, and a commutative one
 * on MPI_INT. */
#ifndef METAMPI_TEST_COLL_RED_H
#define METAMPI_TEST_COLL_RED_H

#include "coll_check.h"

#include <complex.h>
#include <stdbool.h>

typedef struct {
    MPI_Datatype type; /* the datatype (for the user types: set by red_init) */
    size_t extent;     /* bytes per element in memory */
    const char *name;
    /* element i of buf from hash h, suited to op */
    void (*gen)(void *buf, size_t i, uint32_t h, MPI_Op op);
    /* acc[i] = acc[i] op in[i]: acc holds the lower ranks' result (the left operand) */
    void (*fold)(MPI_Op op, void *acc, const void *in, size_t i);
    int (*eq)(const void *a, const void *b, size_t i);
} tdesc_t;

/* ---- arithmetic types --------------------------------------------------------------------- */

/* Integer inputs: SUM small signed values, PROD in {-1, 1, 2, 3} (|result| <= 3^8 for 8
 * ranks), MAX/MIN the full hash, logical ops mostly-true (LAND), mostly-false (LOR) or even
 * (LXOR) so that both results occur, bitwise ops mostly-ones (BAND) or mostly-zeros (BOR). */
static inline long long int_value(uint32_t h, MPI_Op op, int is_unsigned, int bits)
{
    if (op == MPI_SUM)
        return is_unsigned ? (long long)h : (long long)(h % 2001) - 1000;
    if (op == MPI_PROD) {
        static const int pv[4] = {-1, 1, 2, 3};
        return is_unsigned ? (long long)(h % 5) + 1 : pv[h % 4];
    }
    if (op == MPI_LAND)
        return h % 12 == 0 ? 0 : (long long)(h >> 8) % 5 + 1;
    if (op == MPI_LOR)
        return h % 12 != 0 ? 0 : (long long)(h >> 8) % 5 + 1;
    if (op == MPI_LXOR)
        return h % 2 ? 0 : (long long)(h >> 8) % 3 + 1;
    if (op == MPI_BAND)
        return (long long)(h | (h >> 3) | (h >> 7) | (h << 11));
    if (op == MPI_BOR)
        return (long long)(h & (h >> 5) & (h >> 9) & (h << 3));
    if (bits < 32 && !is_unsigned)
        return (long long)(h % (1u << bits)) - (1 << (bits - 1));
    return is_unsigned ? (long long)h : (long long)(int32_t)h;
}

/* MPICH 4.0.2 compares unsigned integers as signed in MAX/MIN (0x80000001 < 1): under
 * MPICH their inputs keep the top bit clear. */
#ifdef METAMPI
#define UNSIGNED_MAX_OK 1
#else
#define UNSIGNED_MAX_OK 0
#endif

#define INT_DESC(NAME, CT, UNS)                                                                \
    static void gen_##NAME(void *b, size_t i, uint32_t h, MPI_Op op)                           \
    {                                                                                          \
        long long v = int_value(h, op, UNS, (int)(8 * sizeof(CT)));                              \
        if (sizeof(CT) == 8 && op != MPI_SUM && op != MPI_PROD && op != MPI_LAND &&            \
            op != MPI_LOR && op != MPI_LXOR)                                                   \
            v = (long long)((unsigned long long)v << 32 | mix3(h, 1, 2));                      \
        if (!UNSIGNED_MAX_OK && UNS && (op == MPI_MAX || op == MPI_MIN))                       \
            v = (long long)((unsigned long long)v & (~0ull >> (65 - 8 * sizeof(CT))));         \
        ((CT *)b)[i] = (CT)v;                                                                  \
    }                                                                                          \
    static void fold_##NAME(MPI_Op op, void *acc, const void *in, size_t i)                    \
    {                                                                                          \
        CT *a = (CT *)acc + i, x = ((const CT *)in)[i];                                        \
        typedef unsigned long long U;                                                          \
        if (op == MPI_SUM)                                                                     \
            *a = (CT)((U)*a + (U)x);                                                           \
        else if (op == MPI_PROD)                                                               \
            *a = (CT)((U)*a * (U)x);                                                           \
        else if (op == MPI_MAX)                                                                \
            *a = x > *a ? x : *a;                                                              \
        else if (op == MPI_MIN)                                                                \
            *a = x < *a ? x : *a;                                                              \
        else if (op == MPI_LAND)                                                               \
            *a = (CT)(*a && x);                                                                \
        else if (op == MPI_LOR)                                                                \
            *a = (CT)(*a || x);                                                                \
        else if (op == MPI_LXOR)                                                               \
            *a = (CT)(!*a != !x);                                                              \
        else if (op == MPI_BAND)                                                               \
            *a = (CT)(*a & x);                                                                 \
        else if (op == MPI_BOR)                                                                \
            *a = (CT)(*a | x);                                                                 \
        else if (op == MPI_BXOR)                                                               \
            *a = (CT)(*a ^ x);                                                                 \
    }                                                                                          \
    static int eq_##NAME(const void *a, const void *b, size_t i)                               \
    {                                                                                          \
        return ((const CT *)a)[i] == ((const CT *)b)[i];                                       \
    }

INT_DESC(int, int, 0)
INT_DESC(uns, unsigned, 1)
INT_DESC(ll, long long, 0)
INT_DESC(u64, uint64_t, 1)
INT_DESC(uchar, unsigned char, 1)
INT_DESC(schar, signed char, 0)
INT_DESC(short, short, 0)

/* C_BOOL: logical ops only. */
static void gen_bool(void *b, size_t i, uint32_t h, MPI_Op op)
{
    ((bool *)b)[i] = int_value(h, op, 0, 32) != 0;
}
static void fold_bool(MPI_Op op, void *acc, const void *in, size_t i)
{
    bool *a = (bool *)acc + i, x = ((const bool *)in)[i];
    *a = op == MPI_LAND ? (*a && x) : op == MPI_LOR ? (*a || x) : (*a != x);
}
static int eq_bool(const void *a, const void *b, size_t i)
{
    return ((const bool *)a)[i] == ((const bool *)b)[i];
}

/* Floating point: SUM of integers below 2^20 (exact in any order), PROD of {-1, 0.5, 1, 2}
 * (powers of two: exact), MAX/MIN of arbitrary fractions. */
#define FLT_DESC(NAME, CT)                                                                     \
    static void gen_##NAME(void *b, size_t i, uint32_t h, MPI_Op op)                           \
    {                                                                                          \
        static const CT pv[4] = {-1, 0.5, 1, 2};                                               \
        CT v;                                                                                  \
        if (op == MPI_SUM)                                                                     \
            v = (CT)((int)(h % 200001) - 100000);                                              \
        else if (op == MPI_PROD)                                                               \
            v = pv[h % 4];                                                                     \
        else                                                                                   \
            v = (CT)((int)(h % 2000001) - 1000000) / (CT)128;                                  \
        ((CT *)b)[i] = v;                                                                      \
    }                                                                                          \
    static void fold_##NAME(MPI_Op op, void *acc, const void *in, size_t i)                    \
    {                                                                                          \
        CT *a = (CT *)acc + i, x = ((const CT *)in)[i];                                        \
        if (op == MPI_SUM)                                                                     \
            *a += x;                                                                           \
        else if (op == MPI_PROD)                                                               \
            *a *= x;                                                                           \
        else if (op == MPI_MAX)                                                                \
            *a = x > *a ? x : *a;                                                              \
        else                                                                                   \
            *a = x < *a ? x : *a;                                                              \
    }                                                                                          \
    static int eq_##NAME(const void *a, const void *b, size_t i)                               \
    {                                                                                          \
        return ((const CT *)a)[i] == ((const CT *)b)[i];                                       \
    }

FLT_DESC(dbl, double)
FLT_DESC(flt, float)

/* double complex: SUM of small integer parts, PROD of {1, i, -1, -i, 1+i} (exact). */
static void gen_cdbl(void *b, size_t i, uint32_t h, MPI_Op op)
{
    static const double complex pv[5] = {1, I, -1, -I, 1 + I};
    ((double complex *)b)[i] =
        op == MPI_SUM ? (double)((int)(h % 201) - 100) + (double)((int)(h >> 16) % 51) * I
                      : pv[h % 5];
}
static void fold_cdbl(MPI_Op op, void *acc, const void *in, size_t i)
{
    double complex *a = (double complex *)acc + i, x = ((const double complex *)in)[i];
    if (op == MPI_SUM)
        *a += x;
    else
        *a = (creal(*a) * creal(x) - cimag(*a) * cimag(x)) +
             (creal(*a) * cimag(x) + cimag(*a) * creal(x)) * I;
}
static int eq_cdbl(const void *a, const void *b, size_t i)
{
    double complex x = ((const double complex *)a)[i], y = ((const double complex *)b)[i];
    return creal(x) == creal(y) && cimag(x) == cimag(y);
}

/* ---- MINLOC / MAXLOC pairs: values from a small range (ties), arbitrary indices ------------- */

#define LOC_DESC(NAME, VT)                                                                     \
    typedef struct {                                                                           \
        VT v;                                                                                  \
        int i;                                                                                 \
    } NAME##_t;                                                                                \
    static void gen_##NAME(void *b, size_t i, uint32_t h, MPI_Op op)                           \
    {                                                                                          \
        (void)op;                                                                              \
        NAME##_t *p = (NAME##_t *)b + i;                                                       \
        memset(p, 0, sizeof *p);                                                               \
        p->v = (VT)(h % 4);                                                                    \
        p->i = (int)((h >> 8) % 1000);                                                         \
    }                                                                                          \
    static void fold_##NAME(MPI_Op op, void *acc, const void *in, size_t i)                    \
    {                                                                                          \
        NAME##_t *a = (NAME##_t *)acc + i;                                                     \
        const NAME##_t *x = (const NAME##_t *)in + i;                                          \
        int better = op == MPI_MAXLOC ? x->v > a->v : x->v < a->v;                             \
        if (better)                                                                            \
            *a = *x;                                                                           \
        else if (x->v == a->v && x->i < a->i)                                                  \
            a->i = x->i;                                                                       \
    }                                                                                          \
    static int eq_##NAME(const void *a, const void *b, size_t i)                               \
    {                                                                                          \
        const NAME##_t *x = (const NAME##_t *)a + i, *y = (const NAME##_t *)b + i;             \
        return x->v == y->v && x->i == y->i;                                                   \
    }

LOC_DESC(i2, int)
LOC_DESC(di, double)
LOC_DESC(fi, float)
LOC_DESC(li, long)
LOC_DESC(si, short)
LOC_DESC(ldi, long double)

/* ---- user ops ------------------------------------------------------------------------------- */

/* 2x2 matrices over uint32 mod 2^32 (row-major a b / c d), stored in `words` uint32 (4, or 5
 * with a gap word that no reduction may write). */
static MPI_Datatype mat_type, matgap_type;
static MPI_Op matmul_op, isum_op;
static int user_calls;

/* inout = in x inout for every matrix: `in` comes from the lower ranks. */
static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, ext;
    CHECK(*dt == mat_type || *dt == matgap_type);
    MPI_Type_get_extent(*dt, &lb, &ext);
    size_t w = (size_t)ext / sizeof(uint32_t);
    user_calls++;
    for (int k = 0; k < *len; k++) {
        const uint32_t *x = (const uint32_t *)in + (size_t)k * w;
        uint32_t *y = (uint32_t *)inout + (size_t)k * w;
        uint32_t r0 = x[0] * y[0] + x[1] * y[2], r1 = x[0] * y[1] + x[1] * y[3];
        uint32_t r2 = x[2] * y[0] + x[3] * y[2], r3 = x[2] * y[1] + x[3] * y[3];
        y[0] = r0, y[1] = r1, y[2] = r2, y[3] = r3;
    }
}

/* A commutative user op on MPI_INT: wrapping sum of squares-free values (a + b). */
static void isum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    CHECK(*dt == MPI_INT);
    user_calls++;
    for (int k = 0; k < *len; k++)
        ((int *)inout)[k] = (int)((unsigned)((int *)inout)[k] + (unsigned)((int *)in)[k]);
}

static void gen_mat(void *b, size_t i, uint32_t h, MPI_Op op)
{
    (void)op;
    uint32_t *m = (uint32_t *)b + 4 * i;
    m[0] = h, m[1] = mix3(h, 1, 0), m[2] = mix3(h, 2, 0), m[3] = mix3(h, 3, 0);
}
static void gen_matgap(void *b, size_t i, uint32_t h, MPI_Op op)
{
    (void)op;
    uint32_t *m = (uint32_t *)b + 5 * i;
    m[0] = h, m[1] = mix3(h, 1, 0), m[2] = mix3(h, 2, 0), m[3] = mix3(h, 3, 0);
    m[4] = (uint32_t)SENT;
}
/* acc = acc x in (acc is the left operand: the lower ranks). */
static void mat_mul_left(uint32_t *a, const uint32_t *x)
{
    uint32_t r0 = a[0] * x[0] + a[1] * x[2], r1 = a[0] * x[1] + a[1] * x[3];
    uint32_t r2 = a[2] * x[0] + a[3] * x[2], r3 = a[2] * x[1] + a[3] * x[3];
    a[0] = r0, a[1] = r1, a[2] = r2, a[3] = r3;
}
static void fold_mat(MPI_Op op, void *acc, const void *in, size_t i)
{
    (void)op;
    mat_mul_left((uint32_t *)acc + 4 * i, (const uint32_t *)in + 4 * i);
}
static void fold_matgap(MPI_Op op, void *acc, const void *in, size_t i)
{
    (void)op;
    mat_mul_left((uint32_t *)acc + 5 * i, (const uint32_t *)in + 5 * i);
}
static int eq_mat(const void *a, const void *b, size_t i)
{
    return memcmp((const uint32_t *)a + 4 * i, (const uint32_t *)b + 4 * i, 16) == 0;
}
static int eq_matgap(const void *a, const void *b, size_t i)
{
    return memcmp((const uint32_t *)a + 5 * i, (const uint32_t *)b + 5 * i, 20) == 0;
}
static void gen_isum(void *b, size_t i, uint32_t h, MPI_Op op)
{
    (void)op;
    ((int *)b)[i] = (int)h;
}
static void fold_isum(MPI_Op op, void *acc, const void *in, size_t i)
{
    (void)op;
    ((int *)acc)[i] = (int)((unsigned)((int *)acc)[i] + (unsigned)((const int *)in)[i]);
}

/* ---- the table ----------------------------------------------------------------------------- */

#define TD(NAME, T, CT) {T, sizeof(CT), #T, gen_##NAME, fold_##NAME, eq_##NAME}
enum {
    TD_INT, TD_UNS, TD_LL, TD_U64, TD_UCHAR, TD_SCHAR, TD_SHORT, TD_BOOL, TD_DBL, TD_FLT,
    TD_CDBL, TD_2INT, TD_DI, TD_FI, TD_LI, TD_SI, TD_LDI, TD_BYTE, TD_MAT, TD_MATGAP, TD_ISUM,
    NTD
};
static tdesc_t tds[NTD] = {
    TD(int, MPI_INT, int), TD(uns, MPI_UNSIGNED, unsigned), TD(ll, MPI_LONG_LONG, long long),
    TD(u64, MPI_UINT64_T, uint64_t), TD(uchar, MPI_UNSIGNED_CHAR, unsigned char),
    TD(schar, MPI_SIGNED_CHAR, signed char), TD(short, MPI_SHORT, short),
    TD(bool, MPI_C_BOOL, bool), TD(dbl, MPI_DOUBLE, double), TD(flt, MPI_FLOAT, float),
    TD(cdbl, MPI_C_DOUBLE_COMPLEX, double complex), TD(i2, MPI_2INT, i2_t),
    TD(di, MPI_DOUBLE_INT, di_t), TD(fi, MPI_FLOAT_INT, fi_t), TD(li, MPI_LONG_INT, li_t),
    TD(si, MPI_SHORT_INT, si_t), TD(ldi, MPI_LONG_DOUBLE_INT, ldi_t),
    {MPI_BYTE, 1, "MPI_BYTE", gen_uchar, fold_uchar, eq_uchar},
    {MPI_DATATYPE_NULL, 16, "mat (user, non-commutative)", gen_mat, fold_mat, eq_mat},
    {MPI_DATATYPE_NULL, 20, "mat with gap (user, non-commutative)", gen_matgap, fold_matgap,
     eq_matgap},
    {MPI_INT, sizeof(int), "MPI_INT (user, commutative)", gen_isum, fold_isum, eq_int},
};
#undef TD

/* The representative (type, op) pairs the reductions run. */
typedef struct {
    int td;
    MPI_Op op;
    const char *opname;
} redcase_t;

#define NREDCASES 38
static redcase_t redcases[NREDCASES];

static inline void red_init(void)
{
    CHECK_RC(MPI_Type_contiguous(4, MPI_UINT32_T, &mat_type), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_resized(mat_type, 0, 5 * sizeof(uint32_t), &matgap_type),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&mat_type), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&matgap_type), MPI_SUCCESS);
    tds[TD_MAT].type = mat_type;
    tds[TD_MATGAP].type = matgap_type;
    CHECK_RC(MPI_Op_create(matmul_fn, 0, &matmul_op), MPI_SUCCESS);
    CHECK_RC(MPI_Op_create(isum_fn, 1, &isum_op), MPI_SUCCESS);
    int k = 0;
#define RC(t, o) redcases[k++] = (redcase_t){t, o, #o}
    RC(TD_INT, MPI_SUM), RC(TD_UNS, MPI_SUM), RC(TD_LL, MPI_SUM), RC(TD_DBL, MPI_SUM);
    RC(TD_FLT, MPI_SUM), RC(TD_UCHAR, MPI_SUM), RC(TD_CDBL, MPI_SUM);
    RC(TD_INT, MPI_PROD), RC(TD_UNS, MPI_PROD), RC(TD_DBL, MPI_PROD), RC(TD_CDBL, MPI_PROD);
    RC(TD_INT, MPI_MAX), RC(TD_DBL, MPI_MAX), RC(TD_U64, MPI_MAX), RC(TD_SCHAR, MPI_MAX);
    RC(TD_INT, MPI_MIN), RC(TD_FLT, MPI_MIN), RC(TD_SHORT, MPI_MIN), RC(TD_LL, MPI_MIN);
    RC(TD_INT, MPI_LAND), RC(TD_BOOL, MPI_LOR), RC(TD_INT, MPI_LXOR), RC(TD_BOOL, MPI_LXOR);
    RC(TD_UNS, MPI_BAND), RC(TD_U64, MPI_BOR), RC(TD_BYTE, MPI_BXOR), RC(TD_UNS, MPI_BXOR);
    RC(TD_2INT, MPI_MAXLOC), RC(TD_DI, MPI_MAXLOC), RC(TD_LI, MPI_MAXLOC);
    RC(TD_FI, MPI_MINLOC), RC(TD_SI, MPI_MINLOC), RC(TD_DI, MPI_MINLOC);
    RC(TD_LDI, MPI_MAXLOC);
    RC(TD_MAT, matmul_op), RC(TD_MATGAP, matmul_op), RC(TD_ISUM, isum_op);
    RC(TD_INT, MPI_BOR);
#undef RC
    CHECK(k == NREDCASES);
    for (int i = 0; i < NTD; i++) {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(tds[i].type, &lb, &ext);
        CHECK((size_t)ext == tds[i].extent);
    }
}

static inline void red_free(void)
{
    MPI_Op_free(&matmul_op);
    MPI_Op_free(&isum_op);
    CHECK(matmul_op == MPI_OP_NULL);
    MPI_Type_free(&mat_type);
    MPI_Type_free(&matgap_type);
}

/* A zeroed buffer of count elements of t plus a guard of 64 bytes of 0xa5 (the gap words
 * of "mat with gap" hold SENT, as in the inputs: no reduction may write them). */
static inline void *rbuf_alloc(const tdesc_t *t, size_t count)
{
    size_t n = count * t->extent;
    unsigned char *b = calloc(n + 64, 1);
    CHECK(b != NULL);
    memset(b + n, 0xa5, 64);
    if (t->gen == gen_matgap)
        for (size_t i = 0; i < count; i++)
            ((uint32_t *)b)[5 * i + 4] = (uint32_t)SENT;
    return b;
}

/* Checks the guard after count elements. */
static inline void red_guard(const tdesc_t *t, const void *buf, size_t count)
{
    const unsigned char *g = (const unsigned char *)buf + count * t->extent;
    for (int i = 0; i < 64; i++)
        CHECK(g[i] == 0xa5);
}

/* Fills count elements with the input of process who in case key. */
static inline void red_input(const tdesc_t *t, MPI_Op op, void *buf, size_t count, int key,
                             int who)
{
    for (size_t i = 0; i < count; i++)
        t->gen(buf, i, mix3((uint32_t)key, (uint32_t)who, (uint32_t)i), op);
}

/* acc = the reduction, in rank order, of the inputs of processes lo .. hi - 1 (hi > lo),
 * elements first .. first + count - 1 of those inputs (stored from acc[0]). */
static inline void red_reference(const tdesc_t *t, MPI_Op op, void *acc, size_t first,
                                 size_t count, int key, int lo, int hi)
{
    void *tmp = rbuf_alloc(t, count);
    for (int r = lo; r < hi; r++) {
        void *dst = r == lo ? acc : tmp;
        for (size_t i = 0; i < count; i++)
            t->gen(dst, i, mix3((uint32_t)key, (uint32_t)r, (uint32_t)(first + i)), op);
        if (r > lo)
            for (size_t i = 0; i < count; i++)
                t->fold(op, acc, tmp, i);
    }
    free(tmp);
}

/* Compares count elements and the guard after them; on a difference names it. */
static inline void red_compare_(const tdesc_t *t, const char *opname, const void *got,
                                const void *exp, size_t count, const char *what,
                                const char *file, int line)
{
    size_t bad = (size_t)-1;
    for (size_t i = 0; i < count && bad == (size_t)-1; i++)
        if (!t->eq(got, exp, i))
            bad = i;
    const unsigned char *g = (const unsigned char *)got + count * t->extent;
    for (int i = 0; i < 64 && bad == (size_t)-1; i++)
        if (g[i] != 0xa5)
            bad = count;
    if (bad != (size_t)-1) {
        fprintf(stderr, "FAIL rank %d %s:%d: %s (%s) %s on %s: element %zu of %zu differs%s\n",
                check_rank_(), file, line, what, coll_ctx, opname, t->name, bad, count,
                bad == count ? " (guard overwritten)" : "");
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
#define red_compare(t, opname, got, exp, count, what)                                          \
    red_compare_(t, opname, got, exp, count, what, __FILE__, __LINE__)

#endif
