/*
 * The one parser of the registry's values (tunables.h), and the words that say what a
 * variable accepts. Pure: no environment, no state.
 *
 * Numbers are decimal digits only (no sign, no blanks, no 0x); a value that does not fit in
 * 64 bits, or lies outside [min, max], is an error like any other text.
 */
#include "runtime/tunables.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The largest value of a type, where the entry does not give one. */
static unsigned long long max_of(const tun_info_t *t)
{
    if (t->max)
        return t->max;
    return t->type == TUN_SIZE || t->type == TUN_POW2 ? SIZE_MAX : INT_MAX;
}

/* Leading digits of s as *v; the rest in *rest. 0, or -1 without a digit or on overflow. */
static int digits(const char *s, unsigned long long *v, const char **rest)
{
    unsigned long long n = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (n > (ULLONG_MAX - d) / 10)
            return -1;
        n = n * 10 + d;
    }
    *v = n;
    *rest = p;
    return p == s ? -1 : 0;
}

static int parse_bool(const char *s, unsigned long long *v)
{
    static const char *const words[2][4] = { { "0", "no", "off", "false" },
                                              { "1", "yes", "on", "true" } };
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 4; i++)
            if (strcasecmp(s, words[b][i]) == 0)
                return *v = (unsigned long long)b, 0;
    return -1;
}

/* Bytes with an optional k/m/g suffix (KiB, MiB, GiB). */
static int parse_size(const char *s, unsigned long long *v)
{
    const char *rest;
    if (digits(s, v, &rest) != 0)
        return -1;
    int shift = 0;
    switch (*rest) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case '\0': return 0;
    default: return -1;
    }
    if (rest[1] != '\0' || *v > (ULLONG_MAX >> shift))
        return -1;
    *v <<= shift;
    return 0;
}

static unsigned long long unit_us(const char *unit)
{
    return !unit ? 0 : !strcmp(unit, "seconds") ? 1000000 : !strcmp(unit, "milliseconds") ? 1000
         : !strcmp(unit, "microseconds") ? 1 : 0;
}

/* A number of the entry's unit, or with a suffix (us, ms, s) that converts to a whole one. */
static int parse_time(const char *s, const char *unit, unsigned long long *v)
{
    const char *rest;
    if (digits(s, v, &rest) != 0)
        return -1;
    if (*rest == '\0')
        return 0;
    unsigned long long from = !strcmp(rest, "us") ? 1 : !strcmp(rest, "ms") ? 1000
                            : !strcmp(rest, "s") ? 1000000 : 0;
    unsigned long long to = unit_us(unit);
    if (!from || !to || *v > ULLONG_MAX / from || (*v * from) % to != 0)
        return -1;
    *v = *v * from / to;
    return 0;
}

/* The index of s among the comma-separated choices, or -1. */
static int choice_index(const char *choices, const char *s)
{
    size_t len = strlen(s);
    int i = 0;
    for (const char *c = choices; c && *c; i++) {
        const char *comma = strchr(c, ',');
        size_t n = comma ? (size_t)(comma - c) : strlen(c);
        if (n == len && len && strncmp(c, s, n) == 0)
            return i;
        c = comma ? comma + 1 : c + n;
    }
    return -1;
}

static int in_range(const tun_info_t *t, unsigned long long v)
{
    if (v < t->min || v > max_of(t))
        return 0;
    return t->type != TUN_POW2 || (v && !(v & (v - 1)));
}

/* "from 0 (off) to 86400" */
static void range_words(const tun_info_t *t, char *buf, size_t len)
{
    if (t->min == 0 && t->zero)
        snprintf(buf, len, "from 0 (%s) to %llu", t->zero, max_of(t));
    else
        snprintf(buf, len, "from %llu to %llu", t->min, max_of(t));
}

void tun_accepted(tun_id_t id, char *buf, size_t len)
{
    const tun_info_t *t = tun_info(id);
    char range[160];
    range_words(t, range, sizeof range);
    switch (t->type) {
    case TUN_BOOL:
        snprintf(buf, len, "one of 0, 1, no, yes, off, on, false, true");
        break;
    case TUN_INT:
        snprintf(buf, len, "a whole number %s", range);
        break;
    case TUN_SIZE:
        if (t->min == 0 && max_of(t) == SIZE_MAX)
            snprintf(buf, len, "a size in bytes (a whole number, with an optional k, m or g "
                               "suffix)");
        else
            snprintf(buf, len, "a size in bytes %s (with an optional k, m or g suffix)", range);
        break;
    case TUN_POW2:
        snprintf(buf, len, "a power of two %s (with an optional k, m or g suffix)", range);
        break;
    case TUN_TIME:
        snprintf(buf, len, "a number of %s %s", t->unit, range);
        break;
    case TUN_ENUM: {
        size_t n = (size_t)snprintf(buf, len, "one of ");
        for (const char *c = t->choices; *c && n + 3 < len; c++) {
            if (*c == ',')
                buf[n++] = ',', buf[n++] = ' ';
            else
                buf[n++] = *c;
        }
        if (n < len)
            buf[n] = '\0';
        break;
    }
    case TUN_STRING:
    case TUN_SECRET:
        snprintf(buf, len, "any text");
        break;
    }
}

int tun_parse(tun_id_t id, const char *text, unsigned long long *value, char *err,
              size_t errlen)
{
    const tun_info_t *t = tun_info(id);
    *value = t->dflt;
    if (!text || !*text)
        return 0;
    unsigned long long v = 0;
    int rc = 0;
    switch (t->type) {
    case TUN_BOOL: rc = parse_bool(text, &v); break;
    case TUN_INT: {
        const char *rest;
        rc = digits(text, &v, &rest) == 0 && *rest == '\0' ? 0 : -1;
        break;
    }
    case TUN_SIZE:
    case TUN_POW2: rc = parse_size(text, &v); break;
    case TUN_TIME: rc = parse_time(text, t->unit, &v); break;
    case TUN_ENUM: {
        int i = choice_index(t->choices, text);
        rc = i < 0 ? -1 : 0;
        v = (unsigned long long)(i < 0 ? 0 : i);
        break;
    }
    case TUN_STRING:
    case TUN_SECRET: return 0;
    }
    if (rc == 0 && t->type != TUN_BOOL && t->type != TUN_ENUM && !in_range(t, v))
        rc = -1;
    if (rc != 0) {
        char accepted[512];
        tun_accepted(id, accepted, sizeof accepted);
        snprintf(err, errlen, "%s=%s is not %s", t->name, text, accepted);
        return -1;
    }
    *value = v;
    return 0;
}
