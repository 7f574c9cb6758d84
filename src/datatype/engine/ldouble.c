/* long double formats through their binary128 image (see ldouble.h). */
#include "datatype/engine/ldouble.h"

#include "util/arch.h"

#include <string.h>

static uint64_t load64(const unsigned char *p, int big)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
    return v;
}

static void store64(unsigned char *p, uint64_t v, int big)
{
    for (int i = 0; i < 8; i++)
        p[big ? 7 - i : i] = (unsigned char)(v >> (8 * i));
}

void dt_quad_store_be(unsigned char *p, dt_quad_t q)
{
    store64(p, q.hi, 1);
    store64(p + 8, q.lo, 1);
}

dt_quad_t dt_quad_load_be(const unsigned char *p)
{
    return (dt_quad_t){ load64(p, 1), load64(p + 8, 1) };
}

/* ---- x87 extended: 64-bit significand with an explicit integer bit, then sign and a 15-bit
 * exponent with binary128's bias, little-endian in 10 of 12 or 16 bytes ---------------------- */

static dt_quad_t x87_read(const unsigned char *p)
{
    uint64_t m = load64(p, 0);
    uint64_t se = (uint64_t)p[8] | (uint64_t)p[9] << 8;
    uint64_t exp = se & 0x7fffu, sign = se >> 15;
    uint64_t frac = m & 0x7fffffffffffffffULL;
    if (exp == 0 && (m >> 63))
        exp = 1; /* pseudo-denormal: the same value as the smallest normal exponent */
    return (dt_quad_t){ sign << 63 | exp << 48 | frac >> 15, frac << 49 };
}

/* Rounds the 112-bit fraction to 63 bits (to nearest, ties to even): the exponent ranges are
 * the same, so nothing overflows except by rounding up to infinity. */
static int x87_write(dt_quad_t q, unsigned char *p, size_t size)
{
    uint64_t sign = q.hi >> 63, exp = (q.hi >> 48) & 0x7fffu;
    uint64_t fhi = q.hi & 0xffffffffffffULL; /* top 48 fraction bits */
    uint64_t frac = fhi << 15 | q.lo >> 49;  /* top 63 fraction bits */
    uint64_t rest = q.lo & ((1ULL << 49) - 1), half = 1ULL << 48;
    uint64_t m;
    int rc = DT_LD_OK;
    if (exp == 0x7fff) {
        m = 1ULL << 63 | frac;
        if ((fhi || q.lo) && !frac)
            m |= 1ULL << 62; /* a NaN whose payload lies in the dropped bits stays a NaN */
    } else {
        if (rest > half || (rest == half && (frac & 1)))
            frac++;
        if (exp == 0) {
            m = frac; /* denormal (or zero): the same scale in both formats */
            if (frac >> 63)
                exp = 1; /* rounded up to the smallest normal */
        } else {
            m = 1ULL << 63 | frac;
            if (frac >> 63) { /* the fraction overflowed: next binade */
                m = 1ULL << 63;
                exp++;
            }
            if (exp == 0x7fff) {
                m = 1ULL << 63; /* rounded to infinity */
                rc = DT_LD_OVERFLOW;
            }
        }
    }
    memset(p, 0, size);
    store64(p, m, 0);
    p[8] = (unsigned char)exp;
    p[9] = (unsigned char)(sign << 7 | exp >> 8);
    return rc;
}

/* ---- binary64 ------------------------------------------------------------------------------ */

static dt_quad_t double_read(const unsigned char *p, int big)
{
    uint64_t b = load64(p, big), sign = b >> 63, exp = (b >> 52) & 0x7ff;
    uint64_t frac = b & ((1ULL << 52) - 1);
    if (exp == 0x7ff)
        exp = 0x7fff;
    else if (exp)
        exp += 16383 - 1023;
    else if (frac) { /* denormal: normal in binary128 */
        int lz = __builtin_clzll(frac) - 11; /* shifts that bring the top bit to bit 52 */
        frac = (frac << lz) & ((1ULL << 52) - 1);
        exp = 16383 - 1022 - (uint64_t)lz;
    }
    return (dt_quad_t){ sign << 63 | exp << 48 | frac >> 4, frac << 60 };
}

static int double_write(dt_quad_t q, unsigned char *p, int big)
{
    uint64_t sign = q.hi >> 63, exp = (q.hi >> 48) & 0x7fffu;
    uint64_t fhi = q.hi & 0xffffffffffffULL;
    uint64_t bits, s = sign << 63;
    int rc = DT_LD_OK;
    if (exp == 0x7fff) {
        uint64_t frac = fhi << 4 | q.lo >> 60;
        if ((fhi || q.lo) && !frac)
            frac = 1ULL << 51; /* NaN stays NaN */
        bits = s | 0x7ffULL << 52 | frac;
    } else if (exp == 0 && !fhi && !q.lo) {
        bits = s;
    } else {
        /* significand with its integer bit: 113 bits; keep 53 (fewer for denormals) */
        unsigned __int128 m = (unsigned __int128)((exp ? 1ULL << 48 : 0) | fhi) << 64 | q.lo;
        long de = (long)exp - 16383 + 1023;
        int shift = 60;
        if (exp == 0)
            de = 1 - 16382 + 1022 - 1; /* binary128 denormals: far below binary64's */
        if (de <= 0) {
            shift += (int)(1 - de);
            de = 0;
        }
        uint64_t r = 0;
        if (shift < 114) {
            unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
            unsigned __int128 rest = m & ((half << 1) - 1);
            r = (uint64_t)(m >> shift);
            if (rest > half || (rest == half && (r & 1)))
                r++;
        }
        if (de > 0 && (r >> 53)) { /* rounding carried into the next binade */
            r >>= 1;
            de++;
        }
        if (de >= 0x7ff) {
            bits = s | 0x7ffULL << 52;
            rc = DT_LD_OVERFLOW;
        } else if (de > 0) {
            bits = s | (uint64_t)de << 52 | (r & ((1ULL << 52) - 1));
        } else {
            bits = s | r; /* r == 2^52 is the smallest normal, encoded by the same sum */
        }
    }
    store64(p, bits, big);
    return rc;
}

/* ---- dispatch ------------------------------------------------------------------------------ */

int dt_ld_read(int fmt, int big, const unsigned char *p, dt_quad_t *q)
{
    switch (fmt) {
    case ARCH_LDBL_X87:
        *q = x87_read(p);
        return DT_LD_OK;
    case ARCH_LDBL_BINARY128:
        *q = big ? (dt_quad_t){ load64(p, 1), load64(p + 8, 1) }
                 : (dt_quad_t){ load64(p + 8, 0), load64(p, 0) };
        return DT_LD_OK;
    case ARCH_LDBL_DOUBLE:
        *q = double_read(p, big);
        return DT_LD_OK;
    default:
        return DT_LD_UNSUPPORTED;
    }
}

int dt_ld_write(int fmt, int big, dt_quad_t q, unsigned char *p, size_t size)
{
    switch (fmt) {
    case ARCH_LDBL_X87:
        return x87_write(q, p, size);
    case ARCH_LDBL_BINARY128:
        store64(p + (big ? 0 : 8), q.hi, big);
        store64(p + (big ? 8 : 0), q.lo, big);
        return DT_LD_OK;
    case ARCH_LDBL_DOUBLE:
        return double_write(q, p, big);
    default:
        return DT_LD_UNSUPPORTED;
    }
}
