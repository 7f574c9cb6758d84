/*
 * The converter's element loops: byte reversal (vectorised with GCC's generic vectors, which
 * every target lowers to its own shuffles: SSE2's pshuflw/pshufhw, s390x's vperm, NEON's
 * rev), integer width changes with range checks, booleans and long double formats.
 */
#include "datatype/engine/convert_kernels.h"

#include "datatype/engine/ldouble.h"

#include <string.h>

typedef uint16_t v8u16 __attribute__((vector_size(16)));
/* a permutation of v's 16-bit lanes by constant indices (GCC's and clang's spellings) */
#if defined(__clang__)
#define LANES(v, ...) __builtin_shufflevector(v, v, __VA_ARGS__)
#else
#define LANES(v, ...) __builtin_shuffle(v, (v8u16){ __VA_ARGS__ })
#endif

/* 16-byte blocks: the 16-bit lanes are permuted by the indices (the swap of 2-byte units inside
 * each value), then each lane's two bytes change places. */
#define SWAP_LOOP(out, in, nbytes, ...)                                                       \
    do {                                                                                       \
        size_t off_ = 0;                                                                       \
        for (; off_ + 32 <= (nbytes); off_ += 32) {                                            \
            v8u16 a_, b_;                                                                      \
            memcpy(&a_, (in) + off_, 16);                                                      \
            memcpy(&b_, (in) + off_ + 16, 16);                                                 \
            a_ = LANES(a_, __VA_ARGS__);                                                       \
            b_ = LANES(b_, __VA_ARGS__);                                                       \
            a_ = (v8u16)(a_ << 8 | a_ >> 8);                                                   \
            b_ = (v8u16)(b_ << 8 | b_ >> 8);                                                   \
            memcpy((out) + off_, &a_, 16);                                                     \
            memcpy((out) + off_ + 16, &b_, 16);                                                \
        }                                                                                      \
        done_ = off_;                                                                          \
    } while (0)

void dt_swap_bytes(void *out_, const void *in_, size_t size, size_t n)
{
    unsigned char *out = out_;
    const unsigned char *in = in_;
    size_t nbytes = size * n, done_ = 0;
    switch (size) {
    case 2:
        SWAP_LOOP(out, in, nbytes, 0, 1, 2, 3, 4, 5, 6, 7);
        for (; done_ < nbytes; done_ += 2) {
            uint16_t v;
            memcpy(&v, in + done_, 2);
            v = __builtin_bswap16(v);
            memcpy(out + done_, &v, 2);
        }
        return;
    case 4:
        SWAP_LOOP(out, in, nbytes, 1, 0, 3, 2, 5, 4, 7, 6);
        for (; done_ < nbytes; done_ += 4) {
            uint32_t v;
            memcpy(&v, in + done_, 4);
            v = __builtin_bswap32(v);
            memcpy(out + done_, &v, 4);
        }
        return;
    case 8:
        SWAP_LOOP(out, in, nbytes, 3, 2, 1, 0, 7, 6, 5, 4);
        for (; done_ < nbytes; done_ += 8) {
            uint64_t v;
            memcpy(&v, in + done_, 8);
            v = __builtin_bswap64(v);
            memcpy(out + done_, &v, 8);
        }
        return;
    case 16:
        SWAP_LOOP(out, in, nbytes, 7, 6, 5, 4, 3, 2, 1, 0);
        for (; done_ < nbytes; done_ += 16) {
            uint64_t a, b;
            memcpy(&a, in + done_, 8);
            memcpy(&b, in + done_ + 8, 8);
            a = __builtin_bswap64(a);
            b = __builtin_bswap64(b);
            memcpy(out + done_, &b, 8);
            memcpy(out + done_ + 8, &a, 8);
        }
        return;
    default:
        for (size_t i = 0; i < n; i++)
            for (size_t b = 0; b < size; b++)
                out[i * size + b] = in[i * size + size - 1 - b];
    }
}

/* ---- integers -------------------------------------------------------------------------- */

/* An integer of `size` bytes (1, 2, 4 or 8) at p, its bytes reversed when swap. */
static inline uint64_t load_int(const unsigned char *p, size_t size, int swap)
{
    switch (size) {
    case 1:
        return *p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return swap ? __builtin_bswap16(v) : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return swap ? __builtin_bswap32(v) : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return swap ? __builtin_bswap64(v) : v;
    }
    }
}

/* v's low `size` bytes at p in this host's order. */
static inline void store_int(unsigned char *p, size_t size, uint64_t v)
{
    switch (size) {
    case 1:
        *p = (unsigned char)v;
        return;
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(p, &x, 2);
        return;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, 4);
        return;
    }
    default:
        memcpy(p, &v, 8);
    }
}

/* The low `size` bytes of v, sign-extended. */
static inline uint64_t sext(uint64_t v, size_t size)
{
    unsigned shift = 64 - 8 * (unsigned)size;
    return shift && shift < 64 ? (uint64_t)((int64_t)(v << shift) >> shift) : v;
}

/* Width changes (and bool normalisation), the range checked when the receiver's width is
 * smaller; out is this host's memory (the receiver converts). Integers have 1, 2, 4 or 8
 * bytes. */
static int resize_ints(int kind, int swap, const unsigned char *in, size_t fsize,
                       unsigned char *out, size_t nsize, size_t n, size_t *bad)
{
    int why = DT_CV_FIT;
    for (size_t i = 0; i < n; i++, in += fsize, out += nsize) {
        uint64_t v = load_int(in, fsize, swap);
        if (kind == DT_CV_SINT)
            v = sext(v, fsize);
        else if (kind == DT_CV_BOOL)
            v = v != 0;
        int fits = nsize >= 8 || (kind == DT_CV_SINT ? sext(v, nsize) == v
                                                     : (v >> (8 * nsize)) == 0);
        if (__builtin_expect(!fits, 0) && why == DT_CV_FIT) {
            why = DT_CV_INT_RANGE;
            *bad = i;
        }
        store_int(out, nsize, v);
    }
    return why;
}

/* ---- long double ----------------------------------------------------------------------- */

static int convert_ldouble(const arch_desc_t *from, const arch_desc_t *to,
                           const unsigned char *in, size_t fsize, unsigned char *out,
                           size_t nsize, size_t n, size_t *bad)
{
    int why = DT_CV_FIT;
    int fbig = from->byte_order == ARCH_BIG, nbig = to->byte_order == ARCH_BIG;
    for (size_t i = 0; i < n; i++, in += fsize, out += nsize) {
        dt_quad_t q;
        int rc = dt_ld_read(from->ldbl_format, fbig, in, &q);
        if (rc == DT_LD_OK)
            rc = dt_ld_write(to->ldbl_format, nbig, q, out, nsize);
        if (rc == DT_LD_UNSUPPORTED) {
            memset(out, 0xff, nsize); /* all ones: a NaN in every IEEE format */
            rc = DT_CV_NO_FORMAT;
        } else if (rc == DT_LD_OVERFLOW) {
            rc = DT_CV_FLOAT_RANGE;
        }
        if (rc != DT_LD_OK && why == DT_CV_FIT) {
            why = rc;
            *bad = i;
        }
    }
    return why;
}

/* ---- dispatch -------------------------------------------------------------------------- */

/* Values of one width that differ at most in byte order. */
static int swap_or_copy(int swap, const unsigned char *in, unsigned char *out, size_t part,
                        size_t n)
{
    if (swap && part > 1)
        dt_swap_bytes(out, in, part, n);
    else
        memcpy(out, in, part * n);
    return DT_CV_FIT;
}

int dt_conv_run(const dt_cv_basic_t *e, const arch_desc_t *from, const arch_desc_t *to,
                const unsigned char *in, size_t fsize, unsigned char *out, size_t nsize,
                size_t n, size_t *bad)
{
    int swap = from->byte_order != to->byte_order;
    size_t parts = e->parts ? e->parts : 1;
    switch (e->kind) {
    case DT_CV_LDOUBLE:
        if (from->ldbl_format != to->ldbl_format || fsize != nsize)
            return convert_ldouble(from, to, in, fsize / parts, out, nsize / parts, n * parts,
                                   bad);
        return swap_or_copy(swap, in, out, nsize / parts, n * parts);
    case DT_CV_FLOAT: /* IEEE widths are the same everywhere: a mismatch is a bad table */
        if (fsize != nsize) {
            memset(out, 0xff, nsize * n);
            *bad = 0;
            return DT_CV_NO_FORMAT;
        }
        return swap_or_copy(swap, in, out, nsize / parts, n * parts);
    case DT_CV_SINT:
    case DT_CV_UINT:
        if (fsize == nsize)
            return swap_or_copy(swap, in, out, nsize, n);
        return resize_ints(e->kind, swap, in, fsize, out, nsize, n, bad);
    case DT_CV_BOOL:
        if (fsize == nsize && (fsize == 1 || !swap)) {
            memcpy(out, in, nsize * n);
            return DT_CV_FIT;
        }
        return resize_ints(e->kind, swap, in, fsize, out, nsize, n, bad);
    default:
        memcpy(out, in, nsize * n);
        return DT_CV_FIT;
    }
}
