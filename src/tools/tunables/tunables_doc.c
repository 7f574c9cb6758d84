/*
 * metampi-tunables-doc: the README's tables of environment variables, generated from the
 * registry (runtime/tunables.def; docs/tunables.md). Built and run by the build, not
 * installed.
 *
 *   metampi-tunables-doc                 print every table (one per kind)
 *   metampi-tunables-doc --check FILE    exit 1 when FILE's tables differ from the registry
 *   metampi-tunables-doc --write FILE    rewrite FILE's tables from the registry
 *   metampi-tunables-doc --names         print every variable's name (tests)
 *
 * A table in FILE is the text between a line "<!-- BEGIN tunables KIND: ... -->" and the line
 * "<!-- END tunables KIND -->"; FILE has one of each kind, so that every variable is listed.
 */
#include "runtime/tunables.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = { "setting", "diagnostic", "testing", "internal" };
enum { NKINDS = sizeof kind_names / sizeof kind_names[0] };

static const char *const reader_names[] = { "runtime", "transport", "proto", "core", "coll",
                                            "mpirun", "gateway", "rendezvous",
                                            "mpicc/mpicxx/mpifort" };

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
} buf_t;

static void put(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf_t *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            abort();
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s)
            abort();
    }
}

/* 262144 as 256K: sizes that are whole KiB, MiB or GiB with their suffix. */
static void put_size(buf_t *b, unsigned long long v)
{
    static const char suffix[] = "KMG";
    int i = -1;
    while (i < 2 && v >= 1024 && v % 1024 == 0)
        v /= 1024, i++;
    if (i >= 0)
        put(b, "%llu%c", v, suffix[i]);
    else
        put(b, "%llu", v);
}

static void put_values(buf_t *b, const tun_info_t *t)
{
    switch (t->type) {
    case TUN_BOOL: put(b, "`0`, `1`"); break;
    case TUN_INT:
    case TUN_TIME:
        if (t->unit)
            put(b, "%s, ", t->unit);
        if (t->max)
            put(b, "%llu–%llu", t->min, t->max);
        else
            put(b, "≥ %llu", t->min);
        break;
    case TUN_SIZE:
        put(b, "%s", t->unit ? t->unit : "");
        if (t->min || t->max) {
            put(b, ", ");
            put_size(b, t->min);
            put(b, "–");
            put_size(b, t->max);
        }
        break;
    case TUN_POW2:
        put(b, "power of two, ");
        put_size(b, t->min);
        put(b, "–");
        put_size(b, t->max);
        put(b, "%s%s", t->unit ? " " : "", t->unit ? t->unit : "");
        break;
    case TUN_ENUM:
        put(b, "`");
        for (const char *c = t->choices; *c; c++) {
            if (*c == ',')
                put(b, "`, `");
            else
                put(b, "%c", *c);
        }
        put(b, "`");
        break;
    case TUN_STRING: put(b, "text"); break;
    case TUN_SECRET: put(b, "key (%s)", t->unit ? t->unit : "secret"); break;
    }
    if (t->zero)
        put(b, " (`0`: %s)", t->zero);
}

static void put_default(buf_t *b, const tun_info_t *t)
{
    if (t->dflt_doc) {
        put(b, "%s", t->dflt_doc);
        return;
    }
    switch (t->type) {
    case TUN_BOOL:
    case TUN_INT:
    case TUN_TIME: put(b, "%llu", t->dflt); break;
    case TUN_SIZE:
    case TUN_POW2: put_size(b, t->dflt); break;
    case TUN_ENUM: {
        const char *c = t->choices;
        for (unsigned long long i = 0; i < t->dflt && strchr(c, ','); i++)
            c = strchr(c, ',') + 1;
        put(b, "`%.*s`", (int)strcspn(c, ","), c);
        break;
    }
    case TUN_STRING:
    case TUN_SECRET: put(b, "unset"); break;
    }
}

static void put_table(buf_t *b, int kind)
{
    put(b, "| variable | values | default | read by | meaning |\n|---|---|---|---|---|\n");
    for (int i = 0; i < TUN_COUNT; i++) {
        const tun_info_t *t = tun_info((tun_id_t)i);
        if ((int)t->kind != kind)
            continue;
        put(b, "| `%s` | ", t->name);
        put_values(b, t);
        put(b, " | ");
        put_default(b, t);
        put(b, " | ");
        const char *sep = "";
        for (size_t r = 0; r < sizeof reader_names / sizeof *reader_names; r++)
            if (t->readers & (1u << r)) {
                put(b, "%s%s", sep, reader_names[r]);
                sep = ", ";
            }
        put(b, " | %s |\n", t->doc);
    }
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    buf_t b = { 0 };
    char chunk[4096];
    size_t n;
    put(&b, "%s", "");
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        put(&b, "%.*s", (int)n, chunk);
    fclose(f);
    return b.s;
}

/* The text between kind's markers in doc: [*from, *to), or -1 (missing, or twice). */
static int find_block(const char *doc, int kind, size_t *from, size_t *to)
{
    char begin[64], end[64];
    snprintf(begin, sizeof begin, "<!-- BEGIN tunables %s:", kind_names[kind]);
    snprintf(end, sizeof end, "<!-- END tunables %s -->\n", kind_names[kind]);
    const char *b = strstr(doc, begin), *e = b ? strstr(b, end) : NULL;
    if (!b || !e || strstr(b + 1, begin) || !strchr(b, '\n'))
        return -1;
    *from = (size_t)(strchr(b, '\n') + 1 - doc);
    *to = (size_t)(e - doc);
    return *from <= *to ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc == 1) {
        for (int k = 0; k < NKINDS; k++) {
            buf_t b = { 0 };
            put_table(&b, k);
            printf("%s%s", k ? "\n" : "", b.s);
            free(b.s);
        }
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--names")) {
        for (int i = 0; i < TUN_COUNT; i++)
            printf("%s\n", tun_info((tun_id_t)i)->name);
        return 0;
    }
    int write = argc == 3 && !strcmp(argv[1], "--write");
    if (argc != 3 || (!write && strcmp(argv[1], "--check"))) {
        fprintf(stderr, "usage: %s [--check FILE | --write FILE | --names]\n", argv[0]);
        return 2;
    }
    const char *path = argv[2];
    char *doc = read_file(path);
    if (!doc) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], path);
        return 2;
    }
    int differ = 0;
    for (int k = 0; k < NKINDS; k++) {
        size_t from, to;
        if (find_block(doc, k, &from, &to) != 0) {
            fprintf(stderr, "%s: %s has no single table of kind %s (between \"<!-- BEGIN "
                            "tunables %s: ...-->\" and \"<!-- END tunables %s -->\")\n",
                    argv[0], path, kind_names[k], kind_names[k], kind_names[k]);
            free(doc);
            return 2;
        }
        buf_t b = { 0 };
        put_table(&b, k);
        if (to - from != b.len || memcmp(doc + from, b.s, b.len) != 0) {
            differ = 1;
            if (write) {
                buf_t n = { 0 };
                put(&n, "%.*s%s%s", (int)from, doc, b.s, doc + to);
                free(doc);
                doc = n.s;
            } else {
                fprintf(stderr, "%s: the %s table differs from src/runtime/tunables.def\n",
                        path, kind_names[k]);
            }
        }
        free(b.s);
    }
    if (write && differ) {
        FILE *f = fopen(path, "wb");
        if (!f || fputs(doc, f) == EOF || fclose(f) != 0) {
            fprintf(stderr, "%s: cannot write %s\n", argv[0], path);
            free(doc);
            return 2;
        }
    }
    free(doc);
    if (differ && !write) {
        fprintf(stderr, "%s: regenerate its tables with `make tunables-readme` "
                        "(docs/tunables.md)\n", path);
        return 1;
    }
    return 0;
}
