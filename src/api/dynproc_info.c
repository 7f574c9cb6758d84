#include "api/dynproc_info.h"

#include "core/info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const KEYS[SPAWN_INFO_KEYS] = { "host", "wdir", "path" };

static int key_index(const char *key)
{
    for (int k = 0; k < SPAWN_INFO_KEYS; k++)
        if (strcmp(KEYS[k], key) == 0)
            return k;
    return -1;
}

/* The values of the file's lines into owned[]: 0, or -1 with why. */
static int read_file(const char *path, char **owned, char *why, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, cap, "info key file: cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    char line[MPI_MAX_INFO_VAL + MPI_MAX_INFO_KEY + 8];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            snprintf(why, cap, "info key file: '%s' line %d is too long", path, lineno);
            rc = -1;
            break;
        }
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
                       line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        char *key = line + strspn(line, " \t");
        if (!*key || *key == '#')
            continue;
        char *sep = key + strcspn(key, " \t=");
        char *value = sep + strspn(sep, " \t");
        if (*value == '=')
            value += 1 + strspn(value + 1, " \t");
        *sep = '\0';
        int k = key_index(key);
        if (k < 0 || !*value) {
            snprintf(why, cap, "info key file: '%s' line %d: %s (expected host, wdir or path "
                     "and a value)", path, lineno, k < 0 ? "unknown key" : "no value");
            rc = -1;
            break;
        }
        free(owned[k]);
        owned[k] = strdup(value);
        if (!owned[k]) {
            snprintf(why, cap, "out of memory");
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(why, cap, "info key file: cannot read '%s': %s", path, strerror(errno));
        rc = -1;
    }
    fclose(f);
    return rc;
}

int spawn_info_read(MPI_Info info, spawn_info_t *si, char *why, size_t cap)
{
    memset(si, 0, sizeof *si);
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    const info_t *i = info_lookup(info);
    if (!i)
        return MPI_SUCCESS;   /* checked by the caller */
    const char *file = info_get(i, "file");
    if (file && read_file(file, si->owned, why, cap) != 0) {
        spawn_info_free(si);
        return MPI_ERR_SPAWN;
    }
    for (int k = 0; k < SPAWN_INFO_KEYS; k++) {
        const char *v = info_get(i, KEYS[k]);
        if (!v)
            v = si->owned[k];
        if (v) {
            si->kv[2 * si->n] = KEYS[k];
            si->kv[2 * si->n + 1] = v;
            si->n++;
        }
    }
    return MPI_SUCCESS;
}

void spawn_info_free(spawn_info_t *si)
{
    for (int k = 0; k < SPAWN_INFO_KEYS; k++) {
        free(si->owned[k]);
        si->owned[k] = NULL;
    }
    si->n = 0;
}
