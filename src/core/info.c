#include "core/info.h"

#include "util/handles.h"
#include "core/state.h"
#include "runtime/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define INFO_KIND 0x10000000u
#define INFO_ENV_INDEX 1

typedef struct info_pair {
    char *key, *value;
} info_pair_t;

struct info {
    MPI_Info handle;          /* MPI_INFO_NULL while handle-less */
    int n, cap;
    info_pair_t *pairs;       /* in the order the keys were first set */
};

static handle_table_t infos = HANDLE_TABLE_INIT(INFO_KIND, INFO_ENV_INDEX + 1);
static info_t *info_env;
static int env_thread_level = MPI_THREAD_SINGLE;

static info_t *info_new(void)
{
    info_t *i = calloc(1, sizeof *i);
    if (i)
        i->handle = MPI_INFO_NULL;
    return i;
}

static int find(const info_t *i, const char *key)
{
    for (int k = 0; k < i->n; k++)
        if (strcmp(i->pairs[k].key, key) == 0)
            return k;
    return -1;
}

int info_set(info_t *i, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return -1;
    int k = find(i, key);
    if (k >= 0) {
        free(i->pairs[k].value);
        i->pairs[k].value = v;
        return 0;
    }
    if (i->n == i->cap) {
        int cap = i->cap ? 2 * i->cap : 8;
        info_pair_t *p = realloc(i->pairs, (size_t)cap * sizeof *p);
        if (!p) {
            free(v);
            return -1;
        }
        i->pairs = p;
        i->cap = cap;
    }
    char *kk = strdup(key);
    if (!kk) {
        free(v);
        return -1;
    }
    i->pairs[i->n++] = (info_pair_t){ kk, v };
    return 0;
}

int info_delete(info_t *i, const char *key)
{
    int k = find(i, key);
    if (k < 0)
        return -1;
    free(i->pairs[k].key);
    free(i->pairs[k].value);
    memmove(&i->pairs[k], &i->pairs[k + 1], (size_t)(i->n - k - 1) * sizeof i->pairs[0]);
    i->n--;
    return 0;
}

const char *info_get(const info_t *i, const char *key)
{
    int k = find(i, key);
    return k >= 0 ? i->pairs[k].value : NULL;
}

int info_nkeys(const info_t *i)
{
    return i->n;
}

const char *info_nthkey(const info_t *i, int n)
{
    return i->pairs[n].key;
}

MPI_Info info_handle(const info_t *i)
{
    return i->handle;
}

void info_destroy(info_t *i)
{
    if (!i)
        return;
    for (int k = 0; k < i->n; k++) {
        free(i->pairs[k].key);
        free(i->pairs[k].value);
    }
    free(i->pairs);
    free(i);
}

info_t *info_copy(const info_t *src)
{
    info_t *i = info_new();
    if (!i || !src)
        return i;
    for (int k = 0; k < src->n; k++)
        if (info_set(i, src->pairs[k].key, src->pairs[k].value) != 0) {
            info_destroy(i);
            return NULL;
        }
    return i;
}

MPI_Info info_publish(info_t *i)
{
    int h = handle_new(&infos, i);
    i->handle = h ? (MPI_Info)h : MPI_INFO_NULL;
    return (MPI_Info)h;
}

void info_free(info_t *i)
{
    handle_release(&infos, i->handle);
    info_destroy(i);
}

/* ---- MPI_INFO_ENV (MPI-3.1 §8.7.2) ---------------------------------------------------------- */

/* command and argv from the kernel's copy of the command line: the application may have
 * passed NULL to MPI_Init. */
static void env_command_line(info_t *i)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return;
    char buf[MPI_MAX_INFO_VAL + 1], args[MPI_MAX_INFO_VAL + 1] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (n == 0 || !buf[0])
        return;
    info_set(i, "command", buf);
    size_t len = 0;
    for (size_t p = strlen(buf) + 1; p < n; p += strlen(buf + p) + 1) {
        int w = snprintf(args + len, sizeof args - len, "%s%s", len ? " " : "", buf + p);
        if (w < 0 || (size_t)w >= sizeof args - len)
            break; /* values are limited to MPI_MAX_INFO_VAL: keep whole arguments only */
        len += (size_t)w;
    }
    if (len)
        info_set(i, "argv", args);
}

static info_t *env_build(void)
{
    static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    info_t *i = info_new();
    if (!i)
        return NULL;
    char v[MPI_MAX_INFO_VAL + 1];
    env_command_line(i);
    snprintf(v, sizeof v, "%d", job.size);
    info_set(i, "maxprocs", v);
    if (job.hostname[0])
        info_set(i, "host", job.hostname);
    struct utsname u;
    if (uname(&u) == 0)
        info_set(i, "arch", u.machine);
    if (getcwd(v, sizeof v))
        info_set(i, "wdir", v);
    info_set(i, "thread_level", levels[env_thread_level]);
    i->handle = MPI_INFO_ENV;
    if (handle_set(&infos, INFO_ENV_INDEX, i) != 0) {
        info_destroy(i);
        return NULL;
    }
    return i;
}

void info_env_set_thread_level(int required)
{
    if (required >= MPI_THREAD_SINGLE && required <= MPI_THREAD_MULTIPLE)
        env_thread_level = required;
}

info_t *info_lookup(MPI_Info h)
{
    if (h == MPI_INFO_ENV) {
        if (!info_env && state.phase == STATE_INITIALIZED)
            info_env = env_build();
        return info_env;
    }
    return handle_get(&infos, h);
}
