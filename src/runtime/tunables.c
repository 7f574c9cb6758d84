/*
 * The registry's table (tunables.def) and the values of this process (tunables.h): each
 * variable is read from the environment at its first use and kept.
 */
#include "runtime/tunables.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const tun_info_t table[TUN_COUNT] = {
#define TUN(id, ...) [TUN_##id] = { .name = "METAMPI_" #id, __VA_ARGS__ },
#include "runtime/tunables.def"
#undef TUN
};

/* The value of each variable once loaded; text: a copy of the environment's (NULL: unset). */
static struct {
    unsigned char loaded, set;
    unsigned long long value;
    char *text;
} cache[TUN_COUNT];

static void default_error(const char *message)
{
    fprintf(stderr, "%s: %s\n", program_invocation_short_name, message);
    exit(1);
}

static tun_error_fn on_error = default_error;

void tunables_on_error(tun_error_fn fn)
{
    on_error = fn ? fn : default_error;
}

static _Noreturn void fail(const char *message)
{
    on_error(message);
    abort(); /* the handler must not return */
}

const tun_info_t *tun_info(tun_id_t id)
{
    return &table[id];
}

int tun_find(const char *name)
{
    for (int i = 0; i < TUN_COUNT; i++)
        if (strcmp(table[i].name, name) == 0)
            return i;
    return -1;
}

/* Reads id from the environment into the cache: 0, or -1 with the error in err. */
static int load(tun_id_t id, char *err, size_t errlen)
{
    if (cache[id].loaded)
        return 0;
    const char *text = getenv(table[id].name);
    unsigned long long v;
    if (tun_parse(id, text, &v, err, errlen) != 0)
        return -1;
    cache[id].set = text && *text;
    cache[id].value = v;
    cache[id].text = cache[id].set ? strdup(text) : NULL;
    if (cache[id].set && !cache[id].text) {
        snprintf(err, errlen, "out of memory for %s", table[id].name);
        return -1;
    }
    cache[id].loaded = 1;
    return 0;
}

/* The cached entry of id, loaded and of one of the types in the mask (1 << type). */
static unsigned long long get(tun_id_t id, unsigned types)
{
    if (!((1u << table[id].type) & types)) {
        char msg[160];
        snprintf(msg, sizeof msg, "internal error: %s read as another type than its own",
                 table[id].name);
        fail(msg);
    }
    if (!cache[id].loaded) {
        char err[640];
        if (load(id, err, sizeof err) != 0)
            fail(err);
    }
    return cache[id].value;
}

#define NUMERIC ((1u << TUN_BOOL) | (1u << TUN_INT) | (1u << TUN_SIZE) | (1u << TUN_POW2) | \
                 (1u << TUN_TIME) | (1u << TUN_ENUM))

int tun_bool(tun_id_t id)
{
    return (int)get(id, 1u << TUN_BOOL);
}

int tun_int(tun_id_t id)
{
    return (int)get(id, 1u << TUN_INT);
}

size_t tun_size(tun_id_t id)
{
    return (size_t)get(id, (1u << TUN_SIZE) | (1u << TUN_POW2));
}

unsigned long long tun_time(tun_id_t id)
{
    return get(id, 1u << TUN_TIME);
}

int tun_enum(tun_id_t id)
{
    return (int)get(id, 1u << TUN_ENUM);
}

unsigned long long tun_number(tun_id_t id)
{
    return get(id, NUMERIC);
}

const char *tun_string(tun_id_t id)
{
    get(id, NUMERIC | (1u << TUN_STRING));
    return cache[id].text;
}

int tun_is_set(tun_id_t id)
{
    get(id, NUMERIC | (1u << TUN_STRING));
    return cache[id].set;
}

int tun_check(tun_id_t id, char *err, size_t errlen)
{
    return table[id].type == TUN_SECRET ? 0 : load(id, err, errlen);
}

int tunables_check(unsigned readers, char *err, size_t errlen)
{
    for (int i = 0; i < TUN_COUNT; i++)
        if ((table[i].readers & readers) && table[i].type != TUN_SECRET &&
            load((tun_id_t)i, err, errlen) != 0)
            return -1;
    return 0;
}

void tunables_reset(void)
{
    for (int i = 0; i < TUN_COUNT; i++)
        free(cache[i].text);
    memset(cache, 0, sizeof cache);
}
