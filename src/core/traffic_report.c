#include "core/traffic_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text {
    char *p;
    size_t len, cap;
    int failed;
} text_t;

static void add(text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text_t *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = 2 * t->cap + (size_t)n + 64;
        char *p = realloc(t->p, cap);
        if (!p) {
            t->failed = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
}

static const traffic_sum_t *peers;

/* More bytes first; equal bytes: the lower rank first. */
static int by_bytes(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (peers[x].bytes != peers[y].bytes)
        return peers[x].bytes > peers[y].bytes ? -1 : 1;
    return x - y;
}

static int by_rank(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

char *traffic_report_encode(const traffic_snapshot_t *s, int top)
{
    text_t t = { malloc(256), 0, 256, 0 };
    int *order = malloc((size_t)(s->size > 0 ? s->size : 1) * sizeof *order);
    if (!t.p || !order) {
        free(t.p);
        free(order);
        return NULL;
    }
    add(&t, "v1;r%d;s%d;L", s->rank, s->site);
    for (int l = 0; l < TRAFFIC_LEVELS; l++)
        add(&t, "%s%llu.%llu", l ? "," : "", (unsigned long long)s->level[l].messages,
            (unsigned long long)s->level[l].bytes);
    add(&t, ";W");
    for (int l = 0; l <= TRAFFIC_LEVELS; l++)
        add(&t, "%s%llu", l ? "," : "", (unsigned long long)s->wait_ns[l]);

    /* per site: sites are numbered 0..max, so one pass per site that occurs */
    int nsites = 0;
    for (int r = 0; r < s->size; r++)
        if (s->site_of[r] + 1 > nsites)
            nsites = s->site_of[r] + 1;
    add(&t, ";S");
    int first = 1;
    for (int site = 0; site < nsites; site++) {
        traffic_sum_t sum = { 0, 0 };
        for (int r = 0; r < s->size; r++)
            if (s->site_of[r] == site) {
                sum.messages += s->peer[r].messages;
                sum.bytes += s->peer[r].bytes;
            }
        if (sum.messages) {
            add(&t, "%s%d:%llu.%llu", first ? "" : ",", site,
                (unsigned long long)sum.messages, (unsigned long long)sum.bytes);
            first = 0;
        }
    }

    int n = 0;
    for (int r = 0; r < s->size; r++)
        if (s->peer[r].messages)
            order[n++] = r;
    peers = s->peer;
    qsort(order, (size_t)n, sizeof *order, by_bytes);
    int shown = n < top ? n : top;
    traffic_sum_t other = { 0, 0 };
    for (int i = shown; i < n; i++) {
        other.messages += s->peer[order[i]].messages;
        other.bytes += s->peer[order[i]].bytes;
    }
    qsort(order, (size_t)shown, sizeof *order, by_rank);
    add(&t, ";P");
    for (int i = 0; i < shown; i++)
        add(&t, "%s%d:%llu.%llu", i ? "," : "", order[i],
            (unsigned long long)s->peer[order[i]].messages,
            (unsigned long long)s->peer[order[i]].bytes);
    add(&t, ";O%llu.%llu", (unsigned long long)other.messages,
        (unsigned long long)other.bytes);
    free(order);
    if (t.failed) {
        free(t.p);
        return NULL;
    }
    return t.p;
}
