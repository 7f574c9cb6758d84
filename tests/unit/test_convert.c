/*
 * The conversion between unlike architectures (datatype/engine/convert.h), on streams built
 * here as a sender of another architecture would pack them: big-endian LP64 with binary128
 * long double (s390x), little-endian ILP32 with x87 in 12 bytes (i386), big-endian ILP32 with
 * long double = double, and an invented ILP64 one (8-byte int) for narrowing. A reference
 * encoder writes every element independently of the converter (binary128 through GCC's
 * __float128). Every predefined type, the pair types, a vector, an indexed and a struct type;
 * fragments cut at every offset; range failures; counts of foreign streams.
 */
#include "datatype/construct.h"
#include "datatype/dtype.h"
#include "datatype/engine/convert.h"
#include "datatype/engine/packed_arch.h"
#include "datatype/predefined.h"
#include "util/arch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

static arch_desc_t s390x, i386_, be32, ilp64;

static void make_archs(void)
{
    const arch_desc_t *me = arch_local();
    s390x = *me;
    s390x.byte_order = ARCH_BIG;
    s390x.ldbl_format = ARCH_LDBL_BINARY128;
    s390x.size[ARCH_LONG_DOUBLE] = 16;
    i386_ = *me;
    i386_.size[ARCH_LONG] = i386_.size[ARCH_POINTER] = 4;
    i386_.size[ARCH_LONG_DOUBLE] = 12;
    i386_.ldbl_format = ARCH_LDBL_X87;
    be32 = i386_;
    be32.byte_order = ARCH_BIG;
    be32.ldbl_format = ARCH_LDBL_DOUBLE;
    be32.size[ARCH_LONG_DOUBLE] = 8;
    ilp64 = s390x;
    ilp64.size[ARCH_INT] = 8;
}

/* ---- the reference encoder: one native element into arch a's bytes ------------------- */

static void put_uint(unsigned char *p, size_t size, int big, unsigned long long v)
{
    for (size_t i = 0; i < size; i++, v >>= 8)
        p[big ? size - 1 - i : i] = (unsigned char)v;
}

static void reversed(unsigned char *out, const unsigned char *in, size_t n, int rev)
{
    for (size_t i = 0; i < n; i++)
        out[i] = rev ? in[n - 1 - i] : in[i];
}

static void encode_ld(const unsigned char *nat, const arch_desc_t *a, unsigned char *out)
{
    long double v;
    memcpy(&v, nat, sizeof v);
    int big = a->byte_order == ARCH_BIG;
    if (a->ldbl_format == ARCH_LDBL_BINARY128) {
        __float128 q = (__float128)v;
        reversed(out, (unsigned char *)&q, 16, big); /* this host is little-endian */
    } else if (a->ldbl_format == ARCH_LDBL_DOUBLE) {
        double d = (double)v;
        reversed(out, (unsigned char *)&d, 8, big);
    } else {
        memset(out, 0, a->size[ARCH_LONG_DOUBLE]);
        memcpy(out, nat, 10);
    }
}

/* Encodes one element of basic type b; returns its foreign size. */
static size_t encode(int b, const unsigned char *nat, const arch_desc_t *a, unsigned char *out)
{
    const dtype_basic_info_t *info = dtype_basic(b);
    size_t n = dtype_predefined_size(info->handle), f = dt_conv_basic_size(b, a);
    int big = a->byte_order == ARCH_BIG;
    unsigned long long v = 0;
    switch (info->ext32_kind) {
    case EXT32_COPY:
        memcpy(out, nat, n);
        break;
    case EXT32_SINT:
    case EXT32_UINT:
        memcpy(&v, nat, n);
        if (info->ext32_kind == EXT32_SINT && n < 8 && (v >> (8 * n - 1) & 1))
            v |= ~0ULL << (8 * n);
        put_uint(out, f, big, v);
        break;
    case EXT32_FLOAT:
        reversed(out, nat, n, big);
        break;
    case EXT32_COMPLEX:
        reversed(out, nat, n / 2, big);
        reversed(out + n / 2, nat + n / 2, n / 2, big);
        break;
    case EXT32_LDOUBLE:
        encode_ld(nat, a, out);
        break;
    case EXT32_LDCOMPLEX:
        encode_ld(nat, a, out);
        encode_ld(nat + n / 2, a, out + f / 2);
        break;
    }
    return f;
}

/* The stream a sender of arch a packs from count elements of t at native base buf. */
static size_t encode_stream(const dtype_t *t, const void *buf, size_t count,
                            const arch_desc_t *a, unsigned char *out)
{
    dt_cursor_t c;
    dt_cursor_init(&c, t->layout, (uintptr_t)buf, count);
    uintptr_t addr;
    size_t len, pos = 0;
    int b;
    while (dt_next_block(&c, &addr, &len, &b)) {
        size_t n = dtype_predefined_size(dtype_basic(b)->handle);
        for (size_t k = 0; k < len; k += n)
            pos += encode(b, (const unsigned char *)addr + k, a, out + pos);
    }
    return pos;
}

/* ---- values ---------------------------------------------------------------------------- */

/* Fills every basic element of count elements of t at buf with values every architecture
 * here can hold (wide: full-width integers, for architectures of the same sizes). */
static void fill(const dtype_t *t, void *buf, size_t count, int wide)
{
    dt_cursor_t c;
    dt_cursor_init(&c, t->layout, (uintptr_t)buf, count);
    uintptr_t addr;
    size_t len;
    int b, k = 0;
    static const long double ld[] = { 1.5L, -2.75L, 1e10L, 0.0L, -0.0L, 1024.125L };
    while (dt_next_block(&c, &addr, &len, &b)) {
        const dtype_basic_info_t *info = dtype_basic(b);
        size_t n = dtype_predefined_size(info->handle);
        for (unsigned char *p = (unsigned char *)addr; p < (unsigned char *)addr + len;
             p += n, k++) {
            long long small = (k * 37 % 200) - (info->ext32_kind == EXT32_SINT ? 100 : 0);
            unsigned long long big = 0x0102030405060708ULL * (unsigned)(k + 1);
            switch (info->ext32_kind) {
            case EXT32_COPY:
                *p = (unsigned char)(info->handle == MPI_C_BOOL || info->handle == MPI_CXX_BOOL
                                         ? k & 1 : k * 7);
                break;
            case EXT32_SINT:
            case EXT32_UINT: {
                unsigned long long v = wide ? big : (unsigned long long)small;
                memcpy(p, &v, n);
                break;
            }
            case EXT32_FLOAT:
            case EXT32_COMPLEX:
                if (n == 4 || (n == 8 && info->ext32_kind == EXT32_COMPLEX)) {
                    float f[2] = { (float)small / 4, -(float)k };
                    memcpy(p, f, n);
                } else if (n == 16 && info->ext32_kind == EXT32_FLOAT) {
                    __float128 q = (__float128)small / 3;
                    memcpy(p, &q, 16);
                } else if (n == 32) {
                    __float128 q[2] = { (__float128)small / 3, k };
                    memcpy(p, q, 32);
                } else {
                    double d[2] = { (double)small / 8, 1e300 / (k + 1) };
                    memcpy(p, d, n);
                }
                break;
            case EXT32_LDOUBLE:
            case EXT32_LDCOMPLEX: {
                long double v[2] = { ld[k % 6], ld[(k + 1) % 6] * 3 };
                memset(p, 0, n);
                for (size_t q = 0; q < n / sizeof(long double); q++)
                    memcpy(p + q * sizeof(long double), &v[q], 10);
                break;
            }
            }
        }
    }
}

/* Compares the data bytes of two buffers of count elements of t (gaps and x87 padding
 * ignored). */
static int same_data(const dtype_t *t, const void *x, const void *y, size_t count)
{
    dt_cursor_t c;
    dt_cursor_init(&c, t->layout, (uintptr_t)x, count);
    uintptr_t addr;
    size_t len;
    int b;
    while (dt_next_block(&c, &addr, &len, &b)) {
        size_t n = dtype_predefined_size(dtype_basic(b)->handle);
        size_t cmp = dtype_basic(b)->ext32_kind == EXT32_LDOUBLE ||
                     dtype_basic(b)->ext32_kind == EXT32_LDCOMPLEX ? 10 : n;
        size_t step = dtype_basic(b)->ext32_kind == EXT32_LDCOMPLEX ? n / 2 : n;
        for (size_t k = 0; k < len; k += step) {
            uintptr_t off = addr + k - (uintptr_t)x;
            if (memcmp((const char *)x + off, (const char *)y + off, cmp))
                return 0;
        }
    }
    return 1;
}

/* ---- the checks -------------------------------------------------------------------------- */

enum { COUNT = 5, MAXB = 1 << 16 };
static unsigned char native[MAXB], got[MAXB], stream[2 * MAXB];

/* count elements of t from arch a: in one piece, then cut in two at every offset (and byte
 * by byte for small streams). */
static void roundtrip(const char *what, const dtype_t *t, const arch_desc_t *a, int wide)
{
    size_t span = (size_t)(t->ub - t->lb) * COUNT + 64;
    memset(native, 0, span);
    fill(t, native, COUNT, wide);
    size_t n = encode_stream(t, native, COUNT, a, stream);
    EXPECTF(n == dt_conv_stream_size(t->layout, a, COUNT), "%s: stream size %zu, computed %llu",
           what, n, (unsigned long long)dt_conv_stream_size(t->layout, a, COUNT));
    for (size_t cut = 0; cut <= n; cut += cut < 80 ? 1 : 7) {
        memset(got, 0xa5, span);
        dt_conv_t cv;
        dt_conv_init(&cv, a, t->layout, (uintptr_t)got, COUNT);
        size_t took = dt_conv_unpack(&cv, stream, cut);
        took += dt_conv_unpack(&cv, stream + cut, n - cut);
        char why[256];
        EXPECTF(took == n && !dt_conv_failure(&cv, why, sizeof why) &&
                   dt_conv_native_bytes(&cv) == (size_t)t->size * COUNT &&
                   same_data(t, native, got, COUNT),
               "%s from %s, cut at %zu of %zu: took %zu, native bytes %zu", what, a->name, cut,
               n, took, dt_conv_native_bytes(&cv));
    }
    if (n <= 512) { /* byte by byte */
        memset(got, 0xa5, span);
        dt_conv_t cv;
        dt_conv_init(&cv, a, t->layout, (uintptr_t)got, COUNT);
        for (size_t i = 0; i < n; i++)
            dt_conv_unpack(&cv, stream + i, 1);
        EXPECTF(same_data(t, native, got, COUNT), "%s from %s byte by byte", what, a->name);
    }
    long long whole, basic;
    dt_conv_stream_count(t->layout, a, n, &whole, &basic);
    EXPECTF(whole == COUNT && basic == t->nelems * COUNT, "%s: count %lld, elements %lld", what,
           whole, basic);
}

static void every_predefined(void)
{
    const arch_desc_t *archs[] = { &s390x, &i386_, &be32 };
    for (int b = 1; b <= DTYPE_NBASIC; b++) {
        dtype_t *t = dtype_lookup(dtype_basic(b)->handle);
        for (int i = 0; i < 3; i++)
            roundtrip(dtype_basic(b)->name, t, archs[i], 0);
        roundtrip(dtype_basic(b)->name, t, &s390x, 1);
    }
    static const MPI_Datatype pairs[] = { MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT,
                                          MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
                                          MPI_2REAL, MPI_2DOUBLE_PRECISION, MPI_2INTEGER };
    for (int i = 0; i < 9; i++) {
        dtype_t *t = dtype_lookup(pairs[i]);
        roundtrip(dtype_name(pairs[i]), t, &s390x, 0);
        roundtrip(dtype_name(pairs[i]), t, &i386_, 0);
        roundtrip(dtype_name(pairs[i]), t, &be32, 0);
    }
}

static void committed(int rc, dtype_t **t)
{
    if (rc != MPI_SUCCESS || dtype_commit(*t) != MPI_SUCCESS) {
        fprintf(stderr, "FAIL: cannot build a test type\n");
        exit(1);
    }
}

static void derived(void)
{
    dtype_t *vec, *idx, *st;
    /* a vector of longs: 3 blocks of 2, stride 5 */
    committed(dtype_hvector(3, 2, 5 * sizeof(long), dtype_lookup(MPI_LONG), &vec), &vec);
    int ii[] = { 3, 2, 1, 4, 0, 9, 20 }; /* count 3: blocklengths 2 1 4, displacements 0 9 20 */
    dtype_t *old = dtype_lookup(MPI_INT);
    committed(dtype_create(MPI_COMBINER_INDEXED, 7, ii, 0, NULL, 1, &old, &idx), &idx);
    struct s { char c; long l[2]; long double ld; short s; double d; wchar_t w; };
    int bl[] = { 1, 2, 1, 1, 1, 1 };
    MPI_Aint disp[] = { offsetof(struct s, c), offsetof(struct s, l), offsetof(struct s, ld),
                        offsetof(struct s, s), offsetof(struct s, d), offsetof(struct s, w) };
    dtype_t *types[] = { dtype_lookup(MPI_CHAR), dtype_lookup(MPI_LONG),
                         dtype_lookup(MPI_LONG_DOUBLE), dtype_lookup(MPI_SHORT),
                         dtype_lookup(MPI_DOUBLE), dtype_lookup(MPI_WCHAR) };
    committed(dtype_struct(6, bl, disp, types, &st), &st);
    const arch_desc_t *archs[] = { &s390x, &i386_, &be32 };
    for (int i = 0; i < 3; i++) {
        roundtrip("vector of MPI_LONG", vec, archs[i], 0);
        roundtrip("indexed MPI_INT", idx, archs[i], 0);
        roundtrip("struct", st, archs[i], 0);
    }
    /* Get_elements of a stream cut inside an element: i386's struct is 1+8+12+2+8+4 bytes */
    long long whole, basic;
    dt_conv_stream_count(st->layout, &i386_, 35 + 1 + 8, &whole, &basic);
    EXPECTF(whole == -1 && basic == 7 + 3, "struct prefix: whole %lld basic %lld", whole, basic);
    dt_conv_stream_count(st->layout, &i386_, 35 + 2, &whole, &basic);
    EXPECTF(whole == -1 && basic == -1, "inside an element: whole %lld basic %lld", whole, basic);
    EXPECTF(dt_conv_stream_size(st->layout, &i386_, 1) == 35 &&
               dt_conv_stream_size(st->layout, &s390x, 1) == 47 &&
               dt_conv_stream_size(st->layout, &be32, 1) == 31,
           "struct stream sizes");
    dtype_release(vec);
    dtype_release(idx);
    dtype_release(st);
}

/* Values the receiver cannot hold are reported (type, element) and stored truncated. */
static void failures_reported(void)
{
    dtype_t *t = dtype_lookup(MPI_INT);
    unsigned char in[24];
    put_uint(in, 8, 1, 5);
    put_uint(in + 8, 8, 1, 5000000000ULL);
    put_uint(in + 16, 8, 1, (unsigned long long)-7);
    int out[3];
    dt_conv_t cv;
    dt_conv_init(&cv, &ilp64, t->layout, (uintptr_t)out, 3);
    EXPECTF(dt_conv_unpack(&cv, in, 24) == 24, "ILP64 stream taken");
    char why[256] = "";
    EXPECTF(dt_conv_failure(&cv, why, sizeof why) == DT_CV_INT_RANGE &&
               strstr(why, "MPI_INT") && strstr(why, "element 1"),
           "int range failure: %s", why);
    EXPECTF(out[0] == 5 && out[2] == -7, "the other ints converted");

    /* binary128's largest finite value rounds up beyond x87's range */
    dtype_t *ld = dtype_lookup(MPI_LONG_DOUBLE);
    unsigned char q[16];
    memset(q, 0xff, sizeof q);
    q[0] = 0x7f;
    q[1] = 0xfe;
    long double v;
    dt_conv_init(&cv, &s390x, ld->layout, (uintptr_t)&v, 1);
    dt_conv_unpack(&cv, q, 16);
    EXPECTF(dt_conv_failure(&cv, why, sizeof why) == DT_CV_FLOAT_RANGE &&
               strstr(why, "MPI_LONG_DOUBLE"),
           "long double range failure: %s", why);
    arch_desc_t dd = s390x;
    dd.ldbl_format = ARCH_LDBL_DOUBLE_DOUBLE;
    dt_conv_init(&cv, &dd, ld->layout, (uintptr_t)&v, 1);
    dt_conv_unpack(&cv, q, 16);
    EXPECTF(dt_conv_failure(&cv, why, sizeof why) == DT_CV_NO_FORMAT, "double-double: %s", why);
    /* a receive buffer smaller than the stream takes what fits */
    int two[2];
    dt_conv_init(&cv, &s390x, t->layout, (uintptr_t)two, 2);
    EXPECTF(dt_conv_unpack(&cv, in, 12) == 8 && dt_conv_native_bytes(&cv) == 8,
           "a full buffer stops the stream");
}

/* binary64 long double (be32) to x87, and denormals and rounding through binary64. */
static void long_double_formats(void)
{
    dtype_t *ld = dtype_lookup(MPI_LONG_DOUBLE);
    double ds[] = { 4.9e-324, -2.2250738585072014e-308, 1e-310, 3.141592653589793, 1e308 };
    for (int i = 0; i < 5; i++) {
        unsigned char in[8];
        reversed(in, (unsigned char *)&ds[i], 8, 1);
        long double v = 0;
        dt_conv_t cv;
        dt_conv_init(&cv, &be32, ld->layout, (uintptr_t)&v, 1);
        dt_conv_unpack(&cv, in, 8);
        EXPECTF(v == (long double)ds[i], "binary64 %g to x87 gave %Lg", ds[i], v);
    }
}

/* MPI_PACKED buffers of mixed communicators: the header names the writer; a buffer written
 * on s390x (header + its native ints) is read back as it. */
static void packed_header(void)
{
    unsigned char buf[PACKED_ARCH_HEADER + 8];
    arch_desc_t w;
    packed_arch_write(buf);
    EXPECTF(PACKED_ARCH_HEADER % 8 == 0 && packed_arch_read(buf, sizeof buf, &w) &&
               arch_same(&w, arch_local()),
           "the local header reads back");
    EXPECTF(!packed_arch_read(buf, PACKED_ARCH_HEADER - 1, &w), "a short buffer has no header");
    memcpy(buf + 4, "garbage garbage garbage garbage ", 32);
    EXPECTF(!packed_arch_read(buf, sizeof buf, &w), "a corrupt header is refused");
    arch_encode(&s390x, buf + 4);
    put_uint(buf + PACKED_ARCH_HEADER, 4, 1, 7);
    put_uint(buf + PACKED_ARCH_HEADER + 4, 4, 1, (unsigned long long)-9);
    int out[2] = { 0, 0 };
    EXPECTF(packed_arch_read(buf, sizeof buf, &w) && !arch_same(&w, arch_local()) &&
               w.byte_order == ARCH_BIG,
           "an s390x header");
    dt_conv_t cv;
    dt_conv_init(&cv, &w, dtype_lookup(MPI_INT)->layout, (uintptr_t)out, 2);
    dt_conv_unpack(&cv, buf + PACKED_ARCH_HEADER, 8);
    EXPECTF(out[0] == 7 && out[1] == -9, "ints packed on s390x: %d %d", out[0], out[1]);
}

/* One-sided data of several basic types (rma/convert.c): a foreign stream converted into
 * this architecture's stream at the same offsets, when every basic type has one size on both
 * (s390x and x86-64: a struct with a long double); not with a 4-byte long (i386). */
static void restreamed(void)
{
    struct s { int i; double d; long l; char c[3]; long double ld; };
    int bl[] = { 1, 1, 1, 3, 1 };
    MPI_Aint disp[] = { offsetof(struct s, i), offsetof(struct s, d), offsetof(struct s, l),
                        offsetof(struct s, c), offsetof(struct s, ld) };
    dtype_t *types[] = { dtype_lookup(MPI_INT), dtype_lookup(MPI_DOUBLE), dtype_lookup(MPI_LONG),
                         dtype_lookup(MPI_CHAR), dtype_lookup(MPI_LONG_DOUBLE) };
    dtype_t *st;
    committed(dtype_struct(5, bl, disp, types, &st), &st);
    EXPECTF(dt_conv_sizes_alike(st->layout, &s390x) && !dt_conv_sizes_alike(st->layout, &ilp64) &&
               !dt_conv_sizes_alike(st->layout, &i386_),
           "sizes alike with s390x only");
    size_t span = (size_t)(st->ub - st->lb) * COUNT + 64;
    memset(native, 0, span);
    fill(st, native, COUNT, 0);
    size_t n = encode_stream(st, native, COUNT, &s390x, stream);
    EXPECTF(n == (size_t)st->size * COUNT, "s390x's stream of the struct: %zu bytes", n);
    static unsigned char converted[MAXB];
    dt_conv_t cv;
    dt_conv_init(&cv, &s390x, st->layout, 0, COUNT);
    size_t half = dt_conv_restream(&cv, stream, converted, n / 2);
    size_t rest = dt_conv_restream(&cv, stream + half, converted + half, n - half);
    char why[256];
    EXPECTF(half <= n / 2 && half + rest == n && !dt_conv_failure(&cv, why, sizeof why),
           "restreamed %zu + %zu of %zu", half, rest, n);
    memset(got, 0xa5, span);
    dt_cursor_t c;
    dt_cursor_init(&c, st->layout, (uintptr_t)got, COUNT);
    dt_unpack(&c, converted, n);
    EXPECTF(same_data(st, native, got, COUNT), "the restreamed struct unpacks to the values");
    dtype_release(st);
}

int main(void)
{
    if (dtype_init(NULL) != 0) {
        fprintf(stderr, "FAIL dtype_init\n");
        return 1;
    }
    make_archs();
    EXPECTF(dt_conv_basic_size(dtype_lookup(MPI_LONG)->basic, &i386_) == 4 &&
               dt_conv_basic_size(dtype_lookup(MPI_AINT)->basic, &i386_) == 4 &&
               dt_conv_basic_size(dtype_lookup(MPI_INT32_T)->basic, &ilp64) == 4 &&
               dt_conv_basic_size(dtype_lookup(MPI_C_LONG_DOUBLE_COMPLEX)->basic, &i386_) == 24,
           "foreign sizes");
    every_predefined();
    derived();
    failures_reported();
    long_double_formats();
    packed_header();
    restreamed();
    dtype_finalize();
    return expect_done("convert");
}
