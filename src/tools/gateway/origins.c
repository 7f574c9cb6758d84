#include "origins.h"

#include <stdlib.h>

int gw_origins_push(gw_origins_t *o, int link, size_t n)
{
    if (!n)
        return 0;
    if (o->n && o->span[(o->first + o->n - 1) % o->cap].link == link) {
        o->span[(o->first + o->n - 1) % o->cap].left += n;
        return 0;
    }
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 8;
        gw_span_t *s = malloc(cap * sizeof *s);
        if (!s)
            return -1;
        for (size_t i = 0; i < o->n; i++)
            s[i] = o->span[(o->first + i) % o->cap];
        free(o->span);
        o->span = s;
        o->cap = cap;
        o->first = 0;
    }
    o->span[(o->first + o->n++) % o->cap] = (gw_span_t){ .link = link, .left = n };
    return 0;
}

void gw_origins_take(gw_origins_t *o, size_t n, gw_origins_fn fn, void *ctx)
{
    while (n && o->n) {
        gw_span_t *s = &o->span[o->first];
        size_t k = n < s->left ? n : s->left;
        if (s->link >= 0)
            fn(ctx, s->link, k);
        s->left -= k;
        n -= k;
        if (!s->left) {
            o->first = (o->first + 1) % o->cap;
            o->n--;
        }
    }
}

void gw_origins_take_all(gw_origins_t *o, gw_origins_fn fn, void *ctx)
{
    for (; o->n; o->n--, o->first = (o->first + 1) % o->cap)
        if (o->span[o->first].link >= 0)
            fn(ctx, o->span[o->first].link, o->span[o->first].left);
}

void gw_origins_free(gw_origins_t *o)
{
    free(o->span);
    o->span = NULL;
    o->cap = o->first = o->n = 0;
}
