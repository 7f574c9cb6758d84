#include "coll/tune.h"

#include "core/errors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int coll_choice_forced(coll_choice_t *ch)
{
    if (ch->loaded)
        return ch->forced;
    ch->loaded = 1;
    ch->forced = -1;
    const char *v = getenv(ch->env);
    if (!v || !*v || !strcmp(v, "auto"))
        return -1;
    for (int i = 0; i < ch->n; i++)
        if (!strcmp(v, ch->names[i]))
            return ch->forced = i;
    char list[512] = "auto";
    for (int i = 0; i < ch->n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, ", %s", ch->names[i]);
    }
    err_fatal(MPI_ERR_ARG, ch->env, "unknown algorithm '%s' (valid: %s)", v, list);
    return -1;
}

size_t coll_knob(coll_knob_t *k)
{
    if (k->loaded)
        return k->value;
    k->loaded = 1;
    k->value = k->dflt;
    const char *v = getenv(k->env);
    if (!v || !*v)
        return k->value;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    if (*end == 'k' || *end == 'K')
        x <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        x <<= 20, end++;
    if (end == v || *end)
        err_fatal(MPI_ERR_ARG, k->env, "'%s' is not a size in bytes", v);
    return k->value = (size_t)x;
}
