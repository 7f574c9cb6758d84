/*
 * Shared pieces of the reduction collective tests: typed test cases (predefined, pair and
 * derived types, predefined and user ops, commutative and not), deterministic inputs, and
 * references folded in rank order with MPI_Reduce_local.
 *
 * Buffers are whole allocations filled with a sentinel byte before the data is placed (by a
 * send-receive to self from a contiguous array of basic values into the typed layout), so a
 * memcmp of the allocation also checks that nothing was written into a type's holes.
 */
#ifndef RED_TEST_H
#define RED_TEST_H

#include "../check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL 0xA5

static inline int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}
#define CHECK_ERR(expr, klass) CHECK_RC(cls(expr), klass)

typedef struct { double v; int i; } dint_t;
typedef struct { int v; int i; } iint_t;

/* Affine maps x -> a x + b composed left to right ("apply the left one first"): associative,
 * not commutative, exact (unsigned arithmetic wraps). */
static inline void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a1 = a[2 * i], b1 = a[2 * i + 1], a2 = b[2 * i], b2 = b[2 * i + 1];
        b[2 * i] = a1 * a2;
        b[2 * i + 1] = b1 * a2 + b2;
    }
}

/* Wrapping unsigned sum as a user op (commutative). */
static inline void usum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

typedef struct tcase {
    const char *name;
    MPI_Datatype dt;    /* the type the collective uses */
    MPI_Datatype basic; /* the type values are generated in */
    int per;            /* basic values per element of dt */
    MPI_Op op;
    int big;            /* also run with large counts */
    size_t off;         /* bytes of data before an element's origin (negative true lb) */
} tcase_t;

enum { MAXCASES = 12 };
static tcase_t cases[MAXCASES];
static int NCASES;
static MPI_Datatype t_vec, t_resized, t_pair2u, t_shifted;
static MPI_Op op_affine, op_usum;

static inline void cases_init(void)
{
    MPI_Type_vector(2, 1, 3, MPI_INT, &t_vec); /* ints at 0 and 3, extent 4 ints */
    MPI_Type_commit(&t_vec);
    MPI_Type_create_resized(MPI_INT, 0, 8, &t_resized); /* an int every 8 bytes */
    MPI_Type_commit(&t_resized);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &t_pair2u);
    MPI_Type_commit(&t_pair2u);
    /* one int 4 bytes before the origin, extent 8: true lb -4 */
    MPI_Datatype h;
    int one = 1;
    MPI_Aint at = -4;
    MPI_Type_create_hindexed(1, &one, &at, MPI_INT, &h);
    MPI_Type_create_resized(h, -4, 8, &t_shifted);
    MPI_Type_commit(&t_shifted);
    MPI_Type_free(&h);
    MPI_Op_create(affine, 0, &op_affine);
    MPI_Op_create(usum, 1, &op_usum);
    tcase_t c[] = {
        { "int sum", MPI_INT, MPI_INT, 1, MPI_SUM, 1, 0 },
        { "int max", MPI_INT, MPI_INT, 1, MPI_MAX, 0, 0 },
        { "double sum", MPI_DOUBLE, MPI_DOUBLE, 1, MPI_SUM, 1, 0 },
        { "double min", MPI_DOUBLE, MPI_DOUBLE, 1, MPI_MIN, 0, 0 },
        { "double_int minloc", MPI_DOUBLE_INT, MPI_DOUBLE_INT, 1, MPI_MINLOC, 0, 0 },
        { "2int maxloc", MPI_2INT, MPI_2INT, 1, MPI_MAXLOC, 0, 0 },
        { "affine (non-commutative user op)", t_pair2u, MPI_UNSIGNED, 2, op_affine, 1, 0 },
        { "usum (commutative user op)", MPI_UNSIGNED, MPI_UNSIGNED, 1, op_usum, 0, 0 },
#ifdef METAMPI /* predefined ops on derived types of one basic type (MPICH refuses them) */
        { "vector sum", t_vec, MPI_INT, 2, MPI_SUM, 1, 0 },
        { "resized bxor", t_resized, MPI_INT, 1, MPI_BXOR, 0, 0 },
        { "negative lb min", t_shifted, MPI_INT, 1, MPI_MIN, 1, 0 },
#endif
    };
    NCASES = (int)(sizeof c / sizeof c[0]);
    memcpy(cases, c, sizeof c);
    for (int i = 0; i < NCASES; i++) {
        MPI_Aint tlb, text;
        MPI_Type_get_true_extent(cases[i].dt, &tlb, &text);
        cases[i].off = tlb < 0 ? (size_t)-tlb : 0;
    }
}

static inline void cases_free(void)
{
    MPI_Type_free(&t_vec);
    MPI_Type_free(&t_resized);
    MPI_Type_free(&t_pair2u);
    MPI_Type_free(&t_shifted);
    MPI_Op_free(&op_affine);
    MPI_Op_free(&op_usum);
}

static inline size_t extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return (size_t)ext;
}

/* Bytes from an array's origin to the end of its allocation (at least 16). */
static inline size_t span(const tcase_t *c, size_t count)
{
    return count * extent_of(c->dt) + 16;
}

/* Buffers are addressed by their origin; c->off bytes before it belong to them too. */
static inline void *alloc_buf(const tcase_t *c, size_t count)
{
    size_t n = span(c, count) + c->off;
    char *p = malloc(n);
    CHECK(p);
    memset(p, SENTINEL, n);
    return p + c->off;
}

static inline void free_buf(const tcase_t *c, void *p)
{
    if (p)
        free((char *)p - c->off);
}

static inline void clear_buf(const tcase_t *c, void *p, size_t count)
{
    memset((char *)p - c->off, SENTINEL, span(c, count) + c->off);
}

static inline void copy_buf(const tcase_t *c, void *dst, const void *src, size_t count)
{
    memcpy((char *)dst - c->off, (const char *)src - c->off, span(c, count) + c->off);
}

/* Elements [0, count) of a equal elements [at, at + count) of b, holes included. */
static inline int same_at(const tcase_t *c, const void *a, const void *b, size_t at,
                          size_t count)
{
    size_t ext = extent_of(c->dt);
    return !memcmp((const char *)a - c->off, (const char *)b + at * ext - c->off,
                   count * ext);
}

/* Whole buffers (of count elements) are equal, margins included. */
static inline int same(const tcase_t *c, const void *a, const void *b, size_t count)
{
    return !memcmp((const char *)a - c->off, (const char *)b - c->off,
                   span(c, count) + c->off);
}

static inline uint32_t mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352d;
    x ^= x >> 15;
    x *= 0x846ca68b;
    x ^= x >> 16;
    return x;
}

/* Value j of rank r's input (salt varies per call). Small values: sums never overflow, doubles
 * stay exact; few distinct MINLOC/MAXLOC values, so ties happen. */
static inline void gen(const tcase_t *c, void *vals, size_t n, int r, int salt)
{
    for (size_t j = 0; j < n; j++) {
        uint32_t h = mix((uint32_t)(r * 7919 + salt * 104729) ^ (uint32_t)j * 2654435761u);
        if (c->basic == MPI_INT)
            ((int *)vals)[j] = (int)(h % 2001) - 1000;
        else if (c->basic == MPI_DOUBLE)
            ((double *)vals)[j] = (double)((int)(h % 2001) - 1000);
        else if (c->basic == MPI_DOUBLE_INT)
            ((dint_t *)vals)[j] = (dint_t){ (double)(h % 3), r };
        else if (c->basic == MPI_2INT)
            ((iint_t *)vals)[j] = (iint_t){ (int)(h % 3), r };
        else
            ((unsigned *)vals)[j] = c->op == op_affine && j % 2 == 0 ? (h | 1) : h;
    }
}

static inline size_t basic_size(MPI_Datatype b)
{
    int s;
    MPI_Type_size(b, &s);
    return (size_t)s;
}

/* Places rank r's input (count elements of c->dt) into buf. */
static inline void fill(const tcase_t *c, void *buf, size_t count, int r, int salt)
{
    size_t n = count * (size_t)c->per;
    void *vals = malloc(n * (c->basic == MPI_DOUBLE_INT ? sizeof(dint_t) : basic_size(c->basic)) + 1);
    CHECK(vals);
    gen(c, vals, n, r, salt);
    CHECK_RC(MPI_Sendrecv(vals, (int)n, c->basic, 0, 99, buf, (int)count, c->dt, 0, 99,
                          MPI_COMM_SELF, MPI_STATUS_IGNORE), MPI_SUCCESS);
    free(vals);
}

/* ref = x(lo) op ... op x(hi-1) (rank order, MPI_Reduce_local), inputs of salt; the holes
 * of ref keep the sentinel. lo == hi: ref is left all sentinel. */
static inline void fold(const tcase_t *c, void *ref, size_t count, int lo, int hi, int salt)
{
    clear_buf(c, ref, count);
    if (lo >= hi || count == 0)
        return;
    fill(c, ref, count, lo, salt);
    void *x = alloc_buf(c, count);
    for (int r = lo + 1; r < hi; r++) {
        clear_buf(c, x, count);
        fill(c, x, count, r, salt);
        CHECK_RC(MPI_Reduce_local(ref, x, (int)count, c->dt, c->op), MPI_SUCCESS);
        copy_buf(c, ref, x, count);
    }
    free_buf(c, x);
}

#endif
