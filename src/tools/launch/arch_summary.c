#include "arch_summary.h"

#include "runtime/pmi_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DISTINCT_MAX = 16 };

/* The architecture part of rank r's machine value, or NULL when it has none yet. */
static const char *arch_of(const kvs_t *k, int r)
{
    char key[48];
    snprintf(key, sizeof key, "metampi.machine.%d", r);
    const char *v = kvs_get(k, key);
    const char *slash = v ? strrchr(v, '/') : NULL;
    return slash && slash[1] ? slash + 1 : NULL;
}

/* Appends "[,]a" or "[,]a-b" for the run [a, b]; -1 when it does not fit. */
static int put_run(char *out, size_t cap, size_t *len, int first, int a, int b)
{
    int n = a == b ? snprintf(out + *len, cap - *len, "%s%d", first ? "" : ",", a)
                   : snprintf(out + *len, cap - *len, "%s%d-%d", first ? "" : ",", a, b);
    if (n < 0 || (size_t)n >= cap - *len)
        return -1;
    *len += (size_t)n;
    return 0;
}

void arch_summary_publish(kvs_t *k, int size)
{
    if (size < 1 || kvs_get(k, ARCH_SUMMARY_KEY))
        return;
    const char *distinct[DISTINCT_MAX];
    int ndistinct = 0;
    for (int r = 0; r < size; r++) {
        const char *a = arch_of(k, r);
        if (!a)
            return; /* not every rank has published yet */
        int d = 0;
        while (d < ndistinct && strcmp(distinct[d], a) != 0)
            d++;
        if (d == ndistinct) {
            if (ndistinct == DISTINCT_MAX)
                return;
            distinct[ndistinct++] = a;
        }
    }
    char out[PMI_WIRE_VALLEN_MAX + 1];
    size_t len = 0;
    for (int d = 0; d < ndistinct; d++) {
        int n = snprintf(out + len, sizeof out - len, "%s%s:", d ? ";" : "", distinct[d]);
        if (n < 0 || (size_t)n >= sizeof out - len)
            return;
        len += (size_t)n;
        int first = 1, start = -1;
        for (int r = 0; r <= size; r++) {
            int in = r < size && strcmp(arch_of(k, r), distinct[d]) == 0;
            if (in && start < 0)
                start = r;
            if (!in && start >= 0) {
                if (put_run(out, sizeof out, &len, first, start, r - 1) != 0)
                    return;
                first = 0;
                start = -1;
            }
        }
    }
    if (pmi_wire_valid_value(out))
        kvs_put(k, ARCH_SUMMARY_KEY, out);
}
