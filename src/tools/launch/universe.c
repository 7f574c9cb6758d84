#include "universe.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **universe_kv(char *const *kv, int npairs, int universe, int *nout)
{
    char **out = util_xmalloc((size_t)(2 * (npairs + 1)) * sizeof *out);
    for (int i = 0; i < 2 * npairs; i++)
        out[i] = util_xstrdup(kv[i]);
    char v[16];
    snprintf(v, sizeof v, "%d", universe);
    out[2 * npairs] = util_xstrdup(UNIVERSE_KEY);
    out[2 * npairs + 1] = util_xstrdup(v);
    *nout = npairs + 1;
    return out;
}

void universe_kv_free(char **kv, int npairs)
{
    for (int i = 0; i < 2 * npairs; i++)
        free(kv[i]);
    free(kv);
}

int universe_of_pair(const char *key, const char *value)
{
    if (strcmp(key, UNIVERSE_KEY) != 0)
        return 0;
    char *end;
    long n = strtol(value, &end, 10);
    return *end == '\0' && n > 0 && n <= 1 << 30 ? (int)n : 0;
}
