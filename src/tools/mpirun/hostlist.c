#include "hostlist.h"

#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int valid_name(const char *s, size_t len)
{
    if (len == 0 || len > HOSTLIST_NAME_MAX || s[0] == '-')
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

/* A slot count: 1..MPIRUN_MAX_RANKS. */
static int parse_slots(const char *s, size_t len, int *slots)
{
    if (len == 0 || len > 9)
        return -1;
    long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > MPIRUN_MAX_RANKS)
        return -1;
    *slots = (int)v;
    return 0;
}

int hostlist_find(const hostlist_t *l, const char *name, size_t len)
{
    for (int i = 0; i < l->n; i++)
        if (strlen(l->h[i].name) == len && memcmp(l->h[i].name, name, len) == 0)
            return i;
    return -1;
}

int hostlist_add(hostlist_t *l, const char *name, size_t len, int slots, char *err,
                 size_t errlen)
{
    int i = hostlist_find(l, name, len);
    if (i >= 0) {
        l->h[i].slots += slots;
        if (l->h[i].slots > MPIRUN_MAX_RANKS)
            l->h[i].slots = MPIRUN_MAX_RANKS;
        return 0;
    }
    if (l->n == HOSTLIST_MAX_HOSTS) {
        snprintf(err, errlen, "more than %d hosts", HOSTLIST_MAX_HOSTS);
        return -1;
    }
    l->h = util_xrealloc(l->h, (size_t)(l->n + 1) * sizeof *l->h);
    char *copy = util_xmalloc(len + 1);
    memcpy(copy, name, len);
    copy[len] = '\0';
    l->h[l->n++] = (host_entry_t){ .name = copy, .slots = slots };
    return 0;
}

int hostlist_parse_entry(const char *s, size_t len, const char **name, size_t *nlen,
                         int *slots)
{
    const char *colon = memchr(s, ':', len);
    *name = s;
    *nlen = colon ? (size_t)(colon - s) : len;
    *slots = 1;
    if (!valid_name(s, *nlen))
        return -1;
    if (colon && parse_slots(colon + 1, len - *nlen - 1, slots) != 0)
        return -1;
    return 0;
}

int hostlist_add_arg(hostlist_t *l, const char *arg, char *err, size_t errlen)
{
    const char *p = arg;
    for (;;) {
        size_t len = strcspn(p, ",");
        const char *name;
        size_t nlen;
        int slots;
        if (hostlist_parse_entry(p, len, &name, &nlen, &slots) != 0) {
            char shown[320];
            util_sanitize(shown, sizeof shown, p, len, 260);
            snprintf(err, errlen, "invalid host '%s' in --host '%s' (expected NAME or NAME:SLOTS, "
                     "SLOTS from 1 to %d; NAME of letters, digits, '.', '-', '_')", shown, arg,
                     MPIRUN_MAX_RANKS);
            return -1;
        }
        if (hostlist_add(l, name, nlen, slots, err, errlen) != 0)
            return -1;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* One line without its newline; comments already cut. */
static int file_line(hostlist_t *l, char *line, char *why, size_t whylen)
{
    char *tok[3];
    int ntok = 0;
    char *p = line;
    while (*p) {
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        if (ntok == 3) {
            snprintf(why, whylen, "too many fields");
            return -1;
        }
        tok[ntok++] = p;
        while (*p && !is_blank(*p))
            p++;
        if (*p)
            *p++ = '\0';
    }
    if (ntok == 0)
        return 1;  /* blank */
    const char *name;
    size_t nlen;
    int slots;
    if (hostlist_parse_entry(tok[0], strlen(tok[0]), &name, &nlen, &slots) != 0) {
        char shown[320];
        util_sanitize(shown, sizeof shown, tok[0], strlen(tok[0]), 260);
        snprintf(why, whylen, "invalid host '%s'", shown);
        return -1;
    }
    if (ntok == 2) {
        if (memchr(tok[0], ':', strlen(tok[0])) || strncmp(tok[1], "slots=", 6) != 0 ||
            parse_slots(tok[1] + 6, strlen(tok[1] + 6), &slots) != 0) {
            char shown[320];
            util_sanitize(shown, sizeof shown, tok[1], strlen(tok[1]), 260);
            snprintf(why, whylen, "unexpected '%s'", shown);
            return -1;
        }
    } else if (ntok > 2) {
        snprintf(why, whylen, "too many fields");
        return -1;
    }
    char err[128];
    if (hostlist_add(l, name, nlen, slots, err, sizeof err) != 0) {
        snprintf(why, whylen, "%s", err);
        return -1;
    }
    return 0;
}

int hostlist_read_file(hostlist_t *l, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot open hostfile '%s': %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, rc = 0, hosts = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            snprintf(err, errlen, "hostfile '%s', line %d: contains a NUL byte", path, lineno);
            rc = -1;
            break;
        }
        line[strcspn(line, "#\n")] = '\0';
        char why[400];
        int r = file_line(l, line, why, sizeof why);
        if (r < 0) {
            snprintf(err, errlen, "hostfile '%s', line %d: %s (expected NAME, NAME slots=N or "
                     "NAME:N, N from 1 to %d)", path, lineno, why, MPIRUN_MAX_RANKS);
            rc = -1;
            break;
        }
        hosts += r == 0;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "cannot read hostfile '%s': %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && hosts == 0) {
        snprintf(err, errlen, "hostfile '%s' names no host", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}

long hostlist_slots(const hostlist_t *l)
{
    long s = 0;
    for (int i = 0; i < l->n; i++)
        s += l->h[i].slots;  /* at most HOSTLIST_MAX_HOSTS * MPIRUN_MAX_RANKS */
    return s;
}

void hostlist_free(hostlist_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->h[i].name);
    free(l->h);
    l->h = NULL;
    l->n = 0;
}
