#include "exec_prefix.h"

#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int exec_prefix_check(const char *text, char *err, size_t errlen)
{
    size_t len = strlen(text), words = 0;
    if (len > EXEC_PREFIX_MAX) {
        snprintf(err, errlen, "longer than %d characters", EXEC_PREFIX_MAX);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\'' || c == '\\') {
            snprintf(err, errlen, "contains a quote or backslash (%c): words are separated by "
                     "blanks, nothing is quoted", c);
            return -1;
        }
        if (c < 0x20 && c != '\t') {
            snprintf(err, errlen, "contains a control character (code %u)", c);
            return -1;
        }
        words += !is_blank((char)c) && (i == 0 || is_blank(text[i - 1]));
    }
    if (!words) {
        snprintf(err, errlen, "names no command");
        return -1;
    }
    return 0;
}

char **exec_prefix_argv(const char *prefix, char *const *prog_argv)
{
    size_t nprog = 0, nwords = 0, plen = prefix ? strlen(prefix) : 0;
    while (prog_argv[nprog])
        nprog++;
    for (size_t i = 0; i < plen; i++)
        nwords += !is_blank(prefix[i]) && (i == 0 || is_blank(prefix[i - 1]));
    size_t slots = nwords + nprog + 1;
    char **argv = util_xmalloc(slots * sizeof *argv + plen + 1);
    char *words = (char *)(argv + slots);
    if (plen)
        memcpy(words, prefix, plen + 1);
    size_t n = 0;
    for (size_t i = 0; i < plen; i++) {
        if (is_blank(words[i]))
            words[i] = '\0';
        else if (i == 0 || words[i - 1] == '\0')
            argv[n++] = &words[i];
    }
    for (size_t i = 0; i < nprog; i++)
        argv[n++] = prog_argv[i];
    argv[n] = NULL;
    return argv;
}
