#include "pmi_spawn.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

int pmi_spawn_is_part(const char *cmd)
{
    return strcmp(cmd, "spawn_app") == 0 || strcmp(cmd, "spawn_arg") == 0 ||
           strcmp(cmd, "spawn_info") == 0 || strcmp(cmd, "spawn_preput") == 0;
}

void pmi_spawn_hex_encode(const char *s, char *out)
{
    static const char digits[] = "0123456789abcdef";
    if (!*s) {
        strcpy(out, "-");
        return;
    }
    for (; *s; s++) {
        *out++ = digits[(unsigned char)*s >> 4];
        *out++ = digits[(unsigned char)*s & 15];
    }
    *out = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

char *pmi_spawn_hex_decode(const char *s)
{
    if (strcmp(s, "-") == 0)
        return util_xstrdup("");
    size_t n = strlen(s);
    if (n == 0 || n % 2)
        return NULL;
    char *out = util_xmalloc(n / 2 + 1);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0 || (hi | lo) == 0) {
            free(out);
            return NULL;
        }
        out[i] = (char)(hi << 4 | lo);
    }
    out[n / 2] = '\0';
    return out;
}

/* Takes s into the request's byte budget; 0, or -1 (refused, s freed). */
static int charge(pmi_spawn_req_t *r, char *s)
{
    size_t len = strlen(s) + 1 + sizeof(char *);
    if (r->bytes + len > PMI_SPAWN_MAX_BYTES) {
        free(s);
        r->refused = 1;
        return -1;
    }
    r->bytes += len;
    return 0;
}

static void push(char ***list, int count, char *s)
{
    *list = util_xrealloc(*list, (size_t)(count + 1) * sizeof **list);
    (*list)[count] = s;
}

static int add_app(pmi_spawn_req_t *r, const pmi_msg_t *m)
{
    const char *np = pmi_msg_get(m, "maxprocs"), *ex = pmi_msg_get(m, "execname");
    char *end = NULL;
    long n = np ? strtol(np, &end, 10) : 0;
    char *name = ex ? pmi_spawn_hex_decode(ex) : NULL;
    if (!np || end == np || *end || n <= 0 || !name) {
        free(name);
        return PMI_SPAWN_INVALID;
    }
    if (r->napps >= PMI_SPAWN_MAX_APPS || n > PMI_SPAWN_MAX_PROCS - r->nprocs) {
        free(name);
        r->refused = 1;
        return PMI_SPAWN_REFUSED;
    }
    if (charge(r, name) != 0)
        return PMI_SPAWN_REFUSED;
    r->app = util_xrealloc(r->app, (size_t)(r->napps + 1) * sizeof *r->app);
    r->app[r->napps++] = (pmi_spawn_app_t){ .execname = name, .maxprocs = (int)n };
    r->nprocs += (int)n;
    return PMI_SPAWN_OK;
}

int pmi_spawn_line(pmi_spawn_req_t *r, const pmi_msg_t *m)
{
    const char *cmd = pmi_msg_cmd(m);
    if (strcmp(cmd, "spawn_app") == 0)
        return add_app(r, m);
    const char *k = pmi_msg_get(m, "key"), *v = pmi_msg_get(m, "value");
    if (strcmp(cmd, "spawn_preput") == 0) {
        if (!k || !v || !pmi_wire_valid_key(k) || !pmi_wire_valid_value(v))
            return PMI_SPAWN_INVALID;
        char *key = util_xstrdup(k), *val = util_xstrdup(v);
        if (charge(r, key) != 0) {
            free(val);
            return PMI_SPAWN_REFUSED;
        }
        if (charge(r, val) != 0) {
            free(key);
            return PMI_SPAWN_REFUSED;
        }
        push(&r->preput, 2 * r->npreput, key);
        push(&r->preput, 2 * r->npreput + 1, val);
        r->npreput++;
        return PMI_SPAWN_OK;
    }
    if (r->napps == 0)
        return PMI_SPAWN_INVALID;   /* an argument or info pair of no application */
    pmi_spawn_app_t *a = &r->app[r->napps - 1];
    char *key = NULL, *val = v ? pmi_spawn_hex_decode(v) : NULL;
    int is_info = strcmp(cmd, "spawn_info") == 0;
    if (is_info)
        key = k ? pmi_spawn_hex_decode(k) : NULL;
    if (!val || (is_info && !key)) {
        free(key);
        free(val);
        return PMI_SPAWN_INVALID;
    }
    if (is_info) {
        if (charge(r, key) != 0) {
            free(val);
            return PMI_SPAWN_REFUSED;
        }
        if (charge(r, val) != 0) {
            free(key);
            return PMI_SPAWN_REFUSED;
        }
        push(&a->info, 2 * a->ninfo, key);
        push(&a->info, 2 * a->ninfo + 1, val);
        a->ninfo++;
    } else {
        if (charge(r, val) != 0)
            return PMI_SPAWN_REFUSED;
        push(&a->argv, a->argc++, val);
    }
    return PMI_SPAWN_OK;
}

const char *pmi_spawn_info(const pmi_spawn_app_t *a, const char *key)
{
    for (int i = 0; i < a->ninfo; i++)
        if (strcmp(a->info[2 * i], key) == 0)
            return a->info[2 * i + 1];
    return NULL;
}

static void free_list(char **list, int n)
{
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

void pmi_spawn_free(pmi_spawn_req_t *r)
{
    for (int i = 0; i < r->napps; i++) {
        free(r->app[i].execname);
        free_list(r->app[i].argv, r->app[i].argc);
        free_list(r->app[i].info, 2 * r->app[i].ninfo);
    }
    free(r->app);
    free_list(r->preput, 2 * r->npreput);
    memset(r, 0, sizeof *r);
}
