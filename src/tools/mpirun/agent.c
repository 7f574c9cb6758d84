#include "agent.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int agent_is_local(const char *host)
{
    return strcmp(host, "localhost") == 0 || strcmp(host, util_hostname()) == 0;
}

static void push(char ***v, int *n, const char *s)
{
    *v = util_xrealloc(*v, (size_t)(*n + 2) * sizeof **v);
    (*v)[(*n)++] = util_xstrdup(s);
    (*v)[*n] = NULL;
}

char **agent_argv(const char *agent_cmd, const char *host, const char *hostd_path, int local)
{
    char **v = NULL;
    int n = 0, has_host = 0;
    if (!local) {
        const char *p = agent_cmd;
        for (;;) {
            p += strspn(p, " \t");
            if (!*p)
                break;
            size_t len = strcspn(p, " \t");
            char *tok = util_xmalloc(len + 1);
            memcpy(tok, p, len);
            tok[len] = '\0';
            if (strcmp(tok, "{host}") == 0) {
                push(&v, &n, host);
                has_host = 1;
            } else {
                push(&v, &n, tok);
            }
            free(tok);
            p += len;
        }
        if (!has_host)
            push(&v, &n, host);
    }
    push(&v, &n, hostd_path);
    push(&v, &n, host);
    return v;
}

void agent_argv_free(char **argv)
{
    for (char **p = argv; p && *p; p++)
        free(*p);
    free(argv);
}

char *agent_describe(char *const *argv, int local)
{
    if (local)
        return util_xstrdup("fork/exec");
    size_t len = 0;
    int n = 0;
    while (argv[n + 2])  /* the last two are the helper and its argument */
        len += strlen(argv[n++]) + 1;
    char *s = util_xmalloc(len + 1);
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strcat(s, " ");
        strcat(s, argv[i]);
    }
    return s;
}

int agent_start(agent_t *a, char *const *argv, spawn_err_t *why)
{
    int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
    memset(a, 0, sizeof *a);
    a->to_fd = a->from_fd = a->err_fd = -1;
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        *why = (spawn_err_t){ SPAWN_STAGE_SETUP, errno };
        int fds[6] = { in[0], in[1], out[0], out[1], err[0], err[1] };
        for (int i = 0; i < 6; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        return -1;
    }
    char *path = NULL;
    int e = spawn_resolve(argv[0], &path);
    if (e)
        *why = (spawn_err_t){ SPAWN_STAGE_EXEC, e };
    spawn_req_t req = { .path = path ? path : argv[0], .argv = argv, .envp = environ,
                        .stdin_fd = in[0], .stdout_fd = out[1], .stderr_fd = err[1],
                        .pmi_fd = -1, .keep_on_parent_death = 1 };
    int refused;
    pid_t pid = e ? -1 : spawn_rank(&req, why, &refused);
    free(path);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        close(err[0]);
        return -1;
    }
    a->pid = pid;
    a->to_fd = in[1];
    a->from_fd = out[0];
    a->err_fd = err[0];
    return 0;
}

char *agent_hostd_path(int *err)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        *err = n < 0 ? errno : ENOENT;
        return util_xstrdup("metampi-hostd");
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    slash[1] = '\0';  /* the kernel's path is absolute */
    char *path = util_xmalloc(strlen(self) + sizeof "metampi-hostd");
    sprintf(path, "%smetampi-hostd", self);
    *err = access(path, X_OK) == 0 ? 0 : errno;
    return path;
}
