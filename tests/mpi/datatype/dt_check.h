/* Helpers of the datatype API tests (dt_*.c): start-up, typemap property checks, and error
 * class checks that hold for any MPI (an implementation returns codes, compared as classes;
 * metampi's classes are checked exactly, other implementations' only for failure). All of it
 * is plain MPI, so the programs also run under MPICH (dt_run_with_mpich.sh). */
#ifndef METAMPI_TEST_DT_CHECK_H
#define METAMPI_TEST_DT_CHECK_H

#include "../check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int dt_rank = -1, dt_size = -1;

static inline void dt_init(int *argc, char ***argv)
{
    CHECK_RC(MPI_Init(argc, argv), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &dt_rank), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &dt_size), MPI_SUCCESS);
    const char *e = getenv("EXPECT_SIZE");
    if (e)
        CHECK(dt_size == atoi(e));
}

static inline void dt_finish(const char *name)
{
    CHECK_RC(MPI_Finalize(), MPI_SUCCESS);
    if (dt_rank == 0)
        printf("%s: ok\n", name);
}

/* size, lb, extent, true lb, true extent of t, each compared (and reported) */
#define CHECK_TYPE(t, size_, lb_, ext_, tlb_, text_)                                             \
    do {                                                                                       \
        int s_;                                                                                \
        MPI_Aint l_, e_, tl_, te_;                                                             \
        MPI_Count sx_, lx_, ex_, tlx_, tex_;                                                   \
        CHECK_RC(MPI_Type_size(t, &s_), MPI_SUCCESS);                                          \
        CHECK_RC(MPI_Type_get_extent(t, &l_, &e_), MPI_SUCCESS);                               \
        CHECK_RC(MPI_Type_get_true_extent(t, &tl_, &te_), MPI_SUCCESS);                        \
        CHECK_RC(MPI_Type_size_x(t, &sx_), MPI_SUCCESS);                                       \
        CHECK_RC(MPI_Type_get_extent_x(t, &lx_, &ex_), MPI_SUCCESS);                           \
        CHECK_RC(MPI_Type_get_true_extent_x(t, &tlx_, &tex_), MPI_SUCCESS);                    \
        if (s_ != (size_) || l_ != (lb_) || e_ != (ext_) || tl_ != (tlb_) || te_ != (text_) || \
            sx_ != s_ || lx_ != l_ || ex_ != e_ || tlx_ != tl_ || tex_ != te_) {               \
            fprintf(stderr,                                                                    \
                    "%s:%d: %s: size %d lb %lld extent %lld true lb %lld true extent %lld; "   \
                    "expected %d %lld %lld %lld %lld\n",                                       \
                    __FILE__, __LINE__, #t, s_, (long long)l_, (long long)e_, (long long)tl_,  \
                    (long long)te_, (int)(size_), (long long)(lb_), (long long)(ext_),         \
                    (long long)(tlb_), (long long)(text_));                                    \
            CHECK(0);                                                                          \
        }                                                                                      \
    } while (0)

#define CHECK_ENVELOPE(t, ni_, na_, nd_, comb_)                                                \
    do {                                                                                       \
        int ni, na, nd, comb;                                                                  \
        CHECK_RC(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_SUCCESS);                 \
        if (ni != (ni_) || na != (na_) || nd != (nd_) || comb != (comb_)) {                    \
            fprintf(stderr, "%s:%d: %s: envelope %d %d %d combiner %d; expected %d %d %d %d\n", \
                    __FILE__, __LINE__, #t, ni, na, nd, comb, (ni_), (na_), (nd_), (comb_));   \
            CHECK(0);                                                                          \
        }                                                                                      \
    } while (0)

/* expr fails with the error class cls (metampi), or fails at all (other MPIs) */
#ifdef METAMPI
#define CHECK_ERR(expr, cls) CHECK(dt_class(expr) == (cls))
#else
#define CHECK_ERR(expr, cls) CHECK(dt_class(expr) != MPI_SUCCESS)
#endif

static inline int dt_class(int code)
{
    int cls = code;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &cls);
    return cls;
}

/* a deterministic pseudo-random generator (xorshift), the same under every MPI */
static inline unsigned dt_rand(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (unsigned)(*s >> 11);
}

#endif
