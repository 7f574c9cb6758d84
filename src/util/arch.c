/* The architecture descriptor (see arch.h). */
#include "util/arch.h"

#include <float.h>
#include <stdalign.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

_Static_assert(FLT_MANT_DIG == 24 && DBL_MANT_DIG == 53 && FLT_RADIX == 2,
               "metampi needs IEEE 754 float and double");

#if defined(__x86_64__)
#define ARCH_MACHINE "x86_64"
#elif defined(__i386__)
#define ARCH_MACHINE "i386"
#elif defined(__s390x__)
#define ARCH_MACHINE "s390x"
#elif defined(__aarch64__)
#define ARCH_MACHINE "aarch64"
#elif defined(__arm__)
#define ARCH_MACHINE "arm"
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define ARCH_MACHINE "ppc64el"
#elif defined(__powerpc64__)
#define ARCH_MACHINE "ppc64"
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH_MACHINE "riscv64"
#else
#define ARCH_MACHINE "unknown"
#endif

#if LDBL_MANT_DIG == 53
#define ARCH_LDBL ARCH_LDBL_DOUBLE
#elif LDBL_MANT_DIG == 64
#define ARCH_LDBL ARCH_LDBL_X87
#elif LDBL_MANT_DIG == 113
#define ARCH_LDBL ARCH_LDBL_BINARY128
#elif LDBL_MANT_DIG == 106
#define ARCH_LDBL ARCH_LDBL_DOUBLE_DOUBLE
#else
#error "unknown long double format: add it to util/arch.h"
#endif

static arch_desc_t local;
static int local_ready;

#define SET(t, T) (local.size[t] = (uint8_t)sizeof(T), local.align[t] = (uint8_t)alignof(T))

const arch_desc_t *arch_local(void)
{
    if (!local_ready) {
        const uint16_t probe = 1;
        local.version = ARCH_VERSION;
        local.byte_order = *(const uint8_t *)&probe ? ARCH_LITTLE : ARCH_BIG;
        local.float_format = ARCH_FLOAT_IEEE;
        local.ldbl_format = ARCH_LDBL;
        SET(ARCH_SHORT, short);
        SET(ARCH_INT, int);
        SET(ARCH_LONG, long);
        SET(ARCH_LONG_LONG, long long);
        SET(ARCH_POINTER, void *);
        SET(ARCH_FLOAT, float);
        SET(ARCH_DOUBLE, double);
        SET(ARCH_LONG_DOUBLE, long double);
        SET(ARCH_BOOL, bool);
        SET(ARCH_WCHAR, wchar_t);
        snprintf(local.name, sizeof local.name, "%s", ARCH_MACHINE);
        local_ready = 1;
    }
    return &local;
}

void arch_encode(const arch_desc_t *d, uint8_t out[ARCH_WIRE_SIZE])
{
    out[0] = d->version;
    out[1] = d->byte_order;
    out[2] = d->float_format;
    out[3] = d->ldbl_format;
    memcpy(out + 4, d->size, ARCH_NTYPES);
    memcpy(out + 4 + ARCH_NTYPES, d->align, ARCH_NTYPES);
    memset(out + 4 + 2 * ARCH_NTYPES, 0, ARCH_NAME_MAX);
    memcpy(out + 4 + 2 * ARCH_NTYPES, d->name, strnlen(d->name, ARCH_NAME_MAX));
}

int arch_decode(const uint8_t in[ARCH_WIRE_SIZE], arch_desc_t *d)
{
    memset(d, 0, sizeof *d);
    d->version = in[0];
    d->byte_order = in[1];
    d->float_format = in[2];
    d->ldbl_format = in[3];
    memcpy(d->size, in + 4, ARCH_NTYPES);
    memcpy(d->align, in + 4 + ARCH_NTYPES, ARCH_NTYPES);
    memcpy(d->name, in + 4 + 2 * ARCH_NTYPES, ARCH_NAME_MAX);
    if (d->version != ARCH_VERSION || d->byte_order > ARCH_BIG ||
        d->float_format != ARCH_FLOAT_IEEE || d->ldbl_format < ARCH_LDBL_DOUBLE ||
        d->ldbl_format > ARCH_LDBL_DOUBLE_DOUBLE)
        return -1;
    for (int t = 0; t < ARCH_NTYPES; t++) {
        unsigned s = d->size[t], a = d->align[t];
        if (s == 0 || s > 16 || a == 0 || a > s || (a & (a - 1)))
            return -1;
    }
    return 0;
}

int arch_same(const arch_desc_t *a, const arch_desc_t *b)
{
    return a->byte_order == b->byte_order && a->float_format == b->float_format &&
           a->ldbl_format == b->ldbl_format && !memcmp(a->size, b->size, ARCH_NTYPES);
}

static const char *ldbl_name(unsigned f)
{
    switch (f) {
    case ARCH_LDBL_DOUBLE: return "binary64";
    case ARCH_LDBL_X87: return "x87 extended";
    case ARCH_LDBL_BINARY128: return "binary128";
    case ARCH_LDBL_DOUBLE_DOUBLE: return "double-double";
    default: return "unknown";
    }
}

char *arch_describe(const arch_desc_t *d, char *buf, size_t len)
{
    snprintf(buf, len, "%s (%s-endian, long %u B, long double %s)", d->name[0] ? d->name : "?",
             d->byte_order == ARCH_BIG ? "big" : "little", d->size[ARCH_LONG],
             ldbl_name(d->ldbl_format));
    return buf;
}
