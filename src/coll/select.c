/* Reading the selection table (coll/select.h); the table itself is in table.c. */
#include "coll/select.h"

#include <stdint.h>

static const char *const level_names[COLL_LEVELS] = {
    "inter", "direct", "none", "sites", "hier", "shm", "p2p",
};
/* what each level's can_take looks at, for the printed table (coll/level/) */
static const char *const level_takes[COLL_LEVELS] = {
    "an inter-communicator",
    "two members, blocking call, and the messages the scheduled algorithm would send",
    "nothing to move (a member alone, or no data)",
    "more than one site, three members or more (METAMPI_COLL_SITES, METAMPI_COLL_HIER); "
    "reductions: a commutative op or sites of consecutive ranks",
    "more than one host, fewer hosts than members (METAMPI_COLL_HIER); reductions: a "
    "commutative op or hosts of consecutive ranks",
    "one host, contiguous data (METAMPI_COLL_SHM); declines when no area serves the call",
    "any call",
};

const char *coll_level_name(coll_level_id_t level)
{
    return (unsigned)level < COLL_LEVELS ? level_names[level] : "?";
}

int coll_forced(comm_op_kind_t kind)
{
    const coll_table_t *t = coll_table(kind);
    return t && t->forced ? coll_choice_forced(t->forced) : -1;
}

/* the largest power of two <= n (n >= 1) */
static int pow2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

static int holds(const coll_when_t *w, const coll_measure_t *m)
{
    int n = m->n, p2 = pow2_floor(n > 0 ? n : 1);
    if ((w->below && m->size >= coll_knob(w->below)) || (w->from && m->size < coll_knob(w->from)) ||
        (w->upto && m->size > coll_knob(w->upto)))
        return 0;
    if ((w->ranks_below && (size_t)n >= coll_knob(w->ranks_below)) ||
        (w->ranks_from && (size_t)n < coll_knob(w->ranks_from)))
        return 0;
    if ((w->min_ranks && n < w->min_ranks) || (w->max_ranks && n > w->max_ranks))
        return 0;
    if (((w->flags & COLL_W_NOT_POW2) && p2 == n) ||
        ((w->flags & COLL_W_COUNT_LT_P2) && m->count >= (size_t)p2) ||
        ((w->flags & COLL_W_COUNT_GE_P2) && m->count < (size_t)p2) ||
        ((w->flags & COLL_W_COUNT_GE_N) && m->count < (size_t)n))
        return 0;
    return 1;
}

static int fits(const coll_algo_t *a, const coll_measure_t *m)
{
    return !((a->needs & COLL_NEEDS_POW2) && (m->n & (m->n - 1))) &&
           !((a->needs & COLL_NEEDS_COMMUTATIVE) && !m->commutative) &&
           !((a->needs & COLL_NEEDS_TWO) && m->n < 2) &&
           !((a->needs & COLL_NEEDS_THREE) && m->n < 3);
}

int coll_pick_p2p(comm_op_kind_t kind, const coll_measure_t *m)
{
    const coll_table_t *t = coll_table(kind);
    int f = t->forced ? coll_choice_forced(t->forced) : -1;
    if (f >= 0 && t->algos[f].level == COLL_P2P) {
        if (fits(&t->algos[f], m))
            return f;
        if (t->algos[f].instead >= 0)
            return t->algos[f].instead;
    }
    for (int i = 0; i < t->nrules; i++) {
        const coll_rule_t *r = &t->rules[i];
        if (r->level == COLL_P2P && fits(&t->algos[r->algo], m) && holds(&r->when, m))
            return r->algo;
    }
    return t->rules[t->nrules - 1].algo; /* the last rule has no conditions */
}

int coll_level_row_applies(const coll_table_t *t, const coll_rule_t *r, const coll_measure_t *m)
{
    const coll_when_t *w = &r->when;
    if (!w->below && !w->from && !w->upto && !w->ranks_below && !w->ranks_from &&
        !w->min_ranks && !w->max_ranks && !w->flags)
        return 1; /* most level rows: no conditions */
    int f = t->forced ? coll_choice_forced(t->forced) : -1;
    if (f >= 0 && t->algos[f].level == r->level)
        return 1;
    return holds(&r->when, m);
}

const char *coll_algo_name(comm_op_kind_t kind, int algo)
{
    const coll_table_t *t = coll_table(kind);
    return algo >= 0 && algo < t->nalgos ? t->names[algo] : "-";
}

/* ---- printing ------------------------------------------------------------------------------ */

static void knob(FILE *f, const char *sep, const char *what, const char *op, coll_knob_t *k)
{
    size_t v = coll_knob(k);
    if (v == SIZE_MAX)
        fprintf(f, "%s%s %s never (%s)", sep, what, op, k->env);
    else
        fprintf(f, "%s%s %s %zu (%s)", sep, what, op, v, k->env);
}

static void print_rule(FILE *f, const coll_table_t *t, const coll_rule_t *r)
{
    const coll_when_t *w = &r->when;
    fprintf(f, "  %-7s %-19s", level_names[r->level], r->algo >= 0 ? t->names[r->algo] : "-");
    const char *sep = "";
#define SEP (sep = ", ")
    if (w->below)
        knob(f, sep, t->size, "<", w->below), SEP;
    if (w->from)
        knob(f, sep, t->size, ">=", w->from), SEP;
    if (w->upto)
        knob(f, sep, t->size, "<=", w->upto), SEP;
    if (w->ranks_below)
        knob(f, sep, "n", "<", w->ranks_below), SEP;
    if (w->ranks_from)
        knob(f, sep, "n", ">=", w->ranks_from), SEP;
    if (w->min_ranks)
        fprintf(f, "%sn >= %d", sep, w->min_ranks), SEP;
    if (w->max_ranks)
        fprintf(f, "%sn <= %d", sep, w->max_ranks), SEP;
    if (w->flags & COLL_W_NOT_POW2)
        fprintf(f, "%sn not a power of two", sep), SEP;
    if (w->flags & COLL_W_COUNT_LT_P2)
        fprintf(f, "%selements < largest power of two <= n", sep), SEP;
    if (w->flags & COLL_W_COUNT_GE_P2)
        fprintf(f, "%selements >= largest power of two <= n", sep), SEP;
    if (w->flags & COLL_W_COUNT_GE_N)
        fprintf(f, "%selements >= n", sep), SEP;
#undef SEP
    if (r->algo >= 0) {
        const coll_algo_t *a = &t->algos[r->algo];
        if (a->needs & COLL_NEEDS_POW2)
            fprintf(f, "%sneeds n a power of two", sep), sep = ", ";
        if (a->needs & COLL_NEEDS_COMMUTATIVE)
            fprintf(f, "%sneeds a commutative op", sep), sep = ", ";
    }
    if (!*sep && r->level != COLL_P2P)
        fprintf(f, "when the level takes it: %s", level_takes[r->level]);
    fputc('\n', f);
}

void coll_table_print(FILE *f)
{
    fprintf(f, "metampi-coll: the selection table (first rule that applies; docs/collectives.md)\n");
    for (int k = 1; k < COMM_OP_KINDS; k++) {
        const coll_table_t *t = coll_table((comm_op_kind_t)k);
        if (!t)
            continue;
        fprintf(f, "%s", comm_op_name(COMM_BLOCKING, t->kind));
        if (t->forced) {
            int forced = coll_choice_forced(t->forced);
            fprintf(f, "  (%s=%s", t->forced->env, forced >= 0 ? t->names[forced] : "auto");
            for (int i = 0; i < t->nalgos; i++)
                fprintf(f, "%c%s", i ? '|' : ':', t->names[i]);
            fputc(')', f);
        }
        fputc('\n', f);
        for (int i = 0; i < t->nrules; i++)
            print_rule(f, t, &t->rules[i]);
    }
}
