/* Adapters of the collectives' choices and thresholds over the registry (runtime/tunables.h),
 * which parses, bounds and documents every variable; these keep the names and defaults of
 * the callers in step with it. */
#include "coll/tune.h"

#include "core/errors.h"
#include "runtime/tunables.h"

#include <string.h>

/* The registry's entry of name; one that is missing is a programming error. */
static tun_id_t registered(const char *name)
{
    int id = tun_find(name);
    if (id < 0)
        err_fatal(MPI_ERR_INTERN, name, "not in the registry of variables "
                                        "(src/runtime/tunables.def)");
    return (tun_id_t)id;
}

/* The index of the n-character choice c in names, or -1. */
static int name_index(const coll_choice_t *ch, const char *c, size_t n)
{
    for (int i = 0; i < ch->n; i++)
        if (strlen(ch->names[i]) == n && strncmp(ch->names[i], c, n) == 0)
            return i;
    return -1;
}

static _Noreturn void choices_differ(const coll_choice_t *ch, const char *choices)
{
    err_fatal(MPI_ERR_INTERN, ch->env, "the registry's choices '%s' are not auto and this "
                                       "collective's algorithms", choices);
}

int coll_choice_forced(coll_choice_t *ch)
{
    if (ch->loaded)
        return ch->forced;
    tun_id_t id = registered(ch->env);
    const char *choices = tun_info(id)->choices;
    /* the registry lists auto, then exactly the caller's names (in any order) */
    int picked = tun_enum(id), forced = -1, pos = 0;
    for (const char *c = choices; c && *c; pos++) {
        const char *comma = strchr(c, ',');
        size_t n = comma ? (size_t)(comma - c) : strlen(c);
        int i = name_index(ch, c, n);
        if (pos == 0 ? n != 4 || strncmp(c, "auto", 4) != 0 : i < 0)
            choices_differ(ch, choices);
        if (pos > 0 && pos == picked)
            forced = i;
        c = comma ? comma + 1 : c + n;
    }
    if (pos != ch->n + 1)
        choices_differ(ch, choices);
    ch->loaded = 1;
    return ch->forced = forced;
}

size_t coll_knob(coll_knob_t *k)
{
    if (k->loaded)
        return k->value;
    tun_id_t id = registered(k->env);
    if (tun_info(id)->dflt != (unsigned long long)k->dflt)
        err_fatal(MPI_ERR_INTERN, k->env, "the default %zu differs from the registry's %llu",
                  k->dflt, tun_info(id)->dflt);
    k->value = (size_t)tun_number(id);
    k->loaded = 1;
    return k->value;
}
