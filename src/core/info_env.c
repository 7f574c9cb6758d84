/* MPI_Info_create_env's object (core/info.h): MPI_INFO_ENV's contents, or before MPI_Init
 * what the process knows about itself. */
#include "core/info.h"

#include "core/state.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* command = argv[0], argv = the others joined by spaces (whole arguments only, as many as fit
 * MPI_MAX_INFO_VAL). 0, or -1 when out of memory. */
static int set_command_line(info_t *i, int argc, char *argv[])
{
    if (argc < 1 || !argv[0] || !argv[0][0])
        return 0;
    char cmd[MPI_MAX_INFO_VAL + 1], args[MPI_MAX_INFO_VAL + 1] = "";
    snprintf(cmd, sizeof cmd, "%s", argv[0]);
    if (info_set(i, "command", cmd) != 0)
        return -1;
    size_t len = 0;
    for (int a = 1; a < argc && argv[a]; a++) {
        int w = snprintf(args + len, sizeof args - len, "%s%s", len ? " " : "", argv[a]);
        if (w < 0 || (size_t)w >= sizeof args - len)
            break;
        len += (size_t)w;
    }
    if (len)
        return info_set(i, "argv", args);
    info_delete(i, "argv");
    return 0;
}

static int set_self(info_t *i)
{
    char v[MPI_MAX_INFO_VAL + 1];
    struct utsname u;
    int rc = 0;
    if (uname(&u) == 0)
        rc |= info_set(i, "arch", u.machine);
    if (getcwd(v, sizeof v))
        rc |= info_set(i, "wdir", v);
    if (gethostname(v, sizeof v) == 0 && v[0])
        rc |= info_set(i, "host", v);
    return rc;
}

info_t *info_env_create(int argc, char *argv[])
{
    int initialized = state.phase == STATE_INITIALIZED;
    info_t *i = info_copy(initialized ? info_lookup(MPI_INFO_ENV) : NULL);
    if (!i)
        return NULL;
    if ((!initialized && set_self(i) != 0) || set_command_line(i, argc, argv) != 0) {
        info_destroy(i);
        return NULL;
    }
    return i;
}
