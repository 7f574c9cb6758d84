#include "app_resolve.h"

#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int resolve_as_launcher(const char *execname, const char *pathdir, char **path)
{
    if (pathdir && *pathdir && !strchr(execname, '/')) {
        char *cand = util_xmalloc(strlen(pathdir) + strlen(execname) + 2);
        sprintf(cand, "%s/%s", pathdir, execname);
        int e = spawn_resolve(cand, path);
        free(cand);
        if (e == 0)
            return 0;
    }
    return spawn_resolve(execname, path);
}

int app_resolve(const char *execname, const char *pathdir, char **path)
{
    int e = resolve_as_launcher(execname, pathdir, path);
    if (e || **path == '/')
        return e;
    char *abs = realpath(*path, NULL);
    if (!abs) {
        e = errno;
        free(*path);
        *path = NULL;
        return e;
    }
    free(*path);
    *path = abs;
    return 0;
}
