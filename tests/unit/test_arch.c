/* util/arch: the local descriptor, its wire form, and what counts as the same representation. */
#include "util/arch.h"

#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL line %d: %s\n", __LINE__, #c); failures++; } } while (0)

int main(void)
{
    const arch_desc_t *me = arch_local();
    CHECK(me->size[ARCH_INT] == sizeof(int) && me->size[ARCH_LONG] == sizeof(long));
    CHECK(me->size[ARCH_LONG_DOUBLE] == sizeof(long double));

    uint8_t wire[ARCH_WIRE_SIZE];
    arch_desc_t back;
    arch_encode(me, wire);
    CHECK(arch_decode(wire, &back) == 0);
    CHECK(arch_same(me, &back) && !strcmp(me->name, back.name));

    /* s390x as a big-endian peer with binary128 long double: not the same as x86-64 */
    arch_desc_t s390x = *me;
    s390x.byte_order = ARCH_BIG;
    s390x.ldbl_format = ARCH_LDBL_BINARY128;
    snprintf(s390x.name, sizeof s390x.name, "s390x");
    CHECK(!arch_same(me, &s390x) || (me->byte_order == ARCH_BIG &&
                                     me->ldbl_format == ARCH_LDBL_BINARY128));
    char text[128];
    arch_describe(&s390x, text, sizeof text);
    CHECK(strstr(text, "s390x (big-endian") == text);

    /* the name alone differs: same representation */
    arch_desc_t renamed = *me;
    snprintf(renamed.name, sizeof renamed.name, "other");
    CHECK(arch_same(me, &renamed));
    /* a 4-byte long (ILP32): different */
    arch_desc_t ilp32 = *me;
    ilp32.size[ARCH_LONG] = 4;
    CHECK(!arch_same(me, &ilp32) || sizeof(long) == 4);

    /* refused wire forms: unknown version, bad byte order, a size of 0, alignment over size */
    uint8_t bad[ARCH_WIRE_SIZE];
    memcpy(bad, wire, sizeof bad); bad[0] = 99;  CHECK(arch_decode(bad, &back) != 0);
    memcpy(bad, wire, sizeof bad); bad[1] = 7;   CHECK(arch_decode(bad, &back) != 0);
    memcpy(bad, wire, sizeof bad); bad[4] = 0;   CHECK(arch_decode(bad, &back) != 0);
    memcpy(bad, wire, sizeof bad); bad[4 + ARCH_NTYPES] = 16; CHECK(arch_decode(bad, &back) != 0);
    /* a name of ARCH_NAME_MAX characters comes back NUL-terminated */
    memcpy(bad, wire, sizeof bad);
    memset(bad + 4 + 2 * ARCH_NTYPES, 'x', ARCH_NAME_MAX);
    CHECK(arch_decode(bad, &back) == 0 && strlen(back.name) == ARCH_NAME_MAX);

    if (failures)
        return 1;
    printf("arch: %s\n", arch_describe(me, text, sizeof text));
    return 0;
}
