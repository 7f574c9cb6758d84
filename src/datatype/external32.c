#include "datatype/external32.h"

#include "datatype/engine/convert.h"
#include "datatype/engine/ldouble.h"
#include "datatype/predefined.h"
#include "util/arch.h"

#include <stdint.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ && \
                                 __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__)
#error "unknown byte order"
#endif
#define HOST_LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

/* ---- integers ------------------------------------------------------------------------- */

static uint64_t load_native(const unsigned char *p, int size)
{
    switch (size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void store_native(unsigned char *p, int size, uint64_t v)
{
    switch (size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static uint64_t load_be(const unsigned char *p, int size)
{
    uint64_t v = 0;
    for (int i = 0; i < size; i++)
        v = v << 8 | p[i];
    return v;
}

static void store_be(unsigned char *p, int size, uint64_t v)
{
    for (int i = size - 1; i >= 0; i--, v >>= 8)
        p[i] = (unsigned char)v;
}

/* Sign-extends the low `size` bytes of v. */
static int64_t sext(uint64_t v, int size)
{
    int shift = 64 - 8 * size;
    return shift ? (int64_t)(v << shift) >> shift : (int64_t)v;
}

/* Whether v (signed or not) survives a round trip through `size` bytes. */
static int fits(uint64_t v, int is_signed, int size)
{
    if (size >= 8)
        return 1;
    if (is_signed)
        return sext(v, size) == (int64_t)v;
    return (v >> (8 * size)) == 0;
}

/* v: the native value widened (sign-extended for signed types) to 64 bits. */
static int convert_int(const unsigned char *in, int in_size, int in_be, unsigned char *out,
                       int out_size, int out_be, int is_signed, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++, in += in_size, out += out_size) {
        uint64_t v = in_be ? load_be(in, in_size) : load_native(in, in_size);
        if (is_signed)
            v = (uint64_t)sext(v, in_size);
        bad |= !fits(v, is_signed, out_size);
        if (out_be)
            store_be(out, out_size, v);
        else
            store_native(out, out_size, v);
    }
    return bad ? -1 : 0;
}

/* ---- floating point ------------------------------------------------------------------- */

/* IEEE values of `size` bytes between host order and big-endian (an involution). */
static void swap_copy(const unsigned char *in, unsigned char *out, int size, size_t n)
{
    if (!HOST_LITTLE) {
        memcpy(out, in, (size_t)size * n);
        return;
    }
    dt_swap_bytes(out, in, (size_t)size, n);
}

/* long double through its binary128 image (engine/ldouble.c, shared with the conversion
 * between unlike peers): exact from x87 extended, rounded to nearest on the way back. */
static int local_ldbl(void)
{
    return arch_local()->ldbl_format;
}

static int ld_encode(const unsigned char *in, unsigned char *out, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        dt_quad_t q;
        bad |= dt_ld_read(local_ldbl(), !HOST_LITTLE, in + sizeof(long double) * i, &q);
        dt_quad_store_be(out + 16 * i, q);
    }
    return bad ? -1 : 0;
}

static int ld_decode(const unsigned char *in, unsigned char *out, size_t n)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++)
        bad |= dt_ld_write(local_ldbl(), !HOST_LITTLE, dt_quad_load_be(in + 16 * i),
                           out + sizeof(long double) * i, sizeof(long double));
    return bad ? -1 : 0;
}

/* ---- per basic type ------------------------------------------------------------------- */

static int convert(int basic, const void *from, void *to, size_t n, int encode)
{
    const dtype_basic_info_t *b = dtype_basic(basic);
    const unsigned char *in = from;
    unsigned char *out = to;
    int native = (int)dtype_predefined_size(b->handle), ext = b->ext32_size;
    switch (b->ext32_kind) {
    case EXT32_COPY:
        memcpy(out, in, n);
        return 0;
    case EXT32_SINT:
    case EXT32_UINT: {
        int is_signed = b->ext32_kind == EXT32_SINT;
        return encode ? convert_int(in, native, 0, out, ext, 1, is_signed, n)
                      : convert_int(in, ext, 1, out, native, 0, is_signed, n);
    }
    case EXT32_FLOAT:
        swap_copy(in, out, native, n);
        return 0;
    case EXT32_COMPLEX:
        swap_copy(in, out, native / 2, 2 * n);
        return 0;
    case EXT32_LDOUBLE:
    case EXT32_LDCOMPLEX: {
        size_t parts = b->ext32_kind == EXT32_LDCOMPLEX ? 2 * n : n;
        return encode ? ld_encode(in, out, parts) : ld_decode(in, out, parts);
    }
    }
    return -1;
}

int ext32_encode(int basic, const void *native, void *ext, size_t n)
{
    return convert(basic, native, ext, n, 1);
}

int ext32_decode(int basic, const void *ext, void *native, size_t n)
{
    return convert(basic, ext, native, n, 0);
}

/* The layout records leaf blocks of whole basic elements, so every piece dt_next_block
 * returns from the start of the stream holds a whole number of them. */
static int walk(const dtype_t *t, uintptr_t base, size_t count, unsigned char *buf,
                int encode)
{
    dt_cursor_t c;
    dt_cursor_init(&c, t->layout, base, count);
    uintptr_t addr;
    size_t len;
    int basic, bad = 0;
    while (dt_next_block(&c, &addr, &len, &basic)) {
        const dtype_basic_info_t *b = dtype_basic(basic);
        size_t native = dtype_predefined_size(b->handle), n = len / native;
        if (encode)
            bad |= ext32_encode(basic, (const void *)addr, buf, n);
        else
            bad |= ext32_decode(basic, buf, (void *)addr, n);
        buf += n * (size_t)b->ext32_size;
    }
    return bad ? MPI_ERR_CONVERSION : MPI_SUCCESS;
}

int ext32_pack(const dtype_t *t, const void *base, size_t count, void *buf)
{
    return walk(t, (uintptr_t)base, count, buf, 1);
}

int ext32_unpack(const dtype_t *t, const void *buf, size_t count, void *base)
{
    return walk(t, (uintptr_t)base, count, (unsigned char *)(uintptr_t)buf, 0);
}
