#include "gwproc.h"

#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *gateway_path(void)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return util_xstrdup("metampi-gateway");
    self[n] = '\0';
    strrchr(self, '/')[1] = '\0';
    char *path = util_xmalloc(strlen(self) + sizeof "metampi-gateway");
    sprintf(path, "%smetampi-gateway", self);
    return path;
}

int gwproc_start(gwproc_t *g, ctl_strs_t args, const char *key_hex, char *err, size_t errlen)
{
    memset(g, 0, sizeof *g);
    g->report_fd = -1;
    g->control_fd = -1;
    char *path = gateway_path();
    char **argv = util_xmalloc((args.n + 6) * sizeof *argv);
    int ac = 0;
    argv[ac++] = path;
    for (uint32_t i = 0; i < args.n; i++)
        argv[ac++] = (char *)ctl_strs_next(&args);
    argv[ac++] = "--report-fd";
    argv[ac++] = "3";
    argv[ac++] = "--control-fd";   /* its stdin: a socket to us */
    argv[ac++] = "0";
    argv[ac] = NULL;
    size_t ne = 0;
    while (environ[ne])
        ne++;
    char **envp = util_xmalloc((ne + 2) * sizeof *envp);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "METAMPI_JOB_KEY=", 16) != 0)
            envp[k++] = environ[i];
    char *keyvar = util_xmalloc(strlen(key_hex) + 20);
    sprintf(keyvar, "METAMPI_JOB_KEY=%s", key_hex);
    envp[k++] = keyvar;
    envp[k] = NULL;
    int p[2] = { -1, -1 }, rc = -1, sp[2] = { -1, -1 };   /* sp[1]: the gateway's stdin */
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0 || pipe2(p, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot start the site gateway: %s", strerror(errno));
        goto out;
    }
    spawn_req_t req = { .path = path, .argv = argv, .envp = envp, .stdin_fd = sp[1],
                        .stdout_fd = STDERR_FILENO, .stderr_fd = STDERR_FILENO,
                        .pmi_fd = p[1] };
    spawn_err_t why;
    int refused;
    g->pid = spawn_rank(&req, &why, &refused);
    if (g->pid < 0) {
        g->pid = 0;
        snprintf(err, errlen, "cannot start the site gateway '%s': %s", path,
                 strerror(why.err));
        goto out;
    }
    g->report_fd = p[0];
    p[0] = -1;
    fcntl(g->report_fd, F_SETFL, O_NONBLOCK);
    g->control_fd = sp[0];
    sp[0] = -1;
    fcntl(g->control_fd, F_SETFL, O_NONBLOCK);
    rc = 0;
out:
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
    if (sp[1] >= 0)
        close(sp[1]);
    if (sp[0] >= 0)
        close(sp[0]);
    free(keyvar);
    free(envp);
    free(argv);
    free(path);
    return rc;
}

void gwproc_signal(gwproc_t *g, int sig)
{
    if (g->pid > 0 && !g->reaped) {
        if (sig == SIGTERM)
            g->stopping = 1;
        kill(-g->pid, sig);
    }
}

/* Everything the gateway wrote on its report pipe (it has exited: the pipe ends). */
static char *read_reports(int fd)
{
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    while (fd >= 0 && len + 1 < GWPROC_REPORT_MAX) {
        if (len + 1 == cap) {
            char *p = realloc(text, cap * 2);
            if (!p)
                break;
            text = p;
            cap *= 2;
        }
        ssize_t n = read(fd, text + len, cap - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    text[len] = '\0';
    return text;
}

int gwproc_exited(gwproc_t *g, int status, const char *host, char *text, size_t cap,
                  char **stats)
{
    g->reaped = 1;
    g->status = status;
    kill(-g->pid, SIGKILL); /* whatever it left in its group */
    *stats = NULL;
    char *all = read_reports(g->report_fd);
    /* its counters (--stats on) are lines of their own; any other line is the report */
    const char *tag = "metampi-gateway-stats ";
    char report[1024] = "";
    size_t slen = 0;
    for (char *line = all; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (strncmp(line, tag, strlen(tag)) == 0) {
            memmove(all + slen, line, strlen(line));
            slen += strlen(line);
            all[slen++] = '\n';
        } else if (!report[0]) {
            snprintf(report, sizeof report, "%s", line);
        }
        line = nl ? nl + 1 : line + strlen(line);
    }
    if (all && slen) {
        all[slen] = '\0';
        *stats = all;
    } else {
        free(all);
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (g->stopping && WIFSIGNALED(status))
        return 0;
    if (report[0])
        snprintf(text, cap, "%s", report);
    else if (WIFSIGNALED(status))
        snprintf(text, cap, "the site gateway (pid %d) on host %s was killed by signal %d (%s)",
                 (int)g->pid, host, WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(text, cap, "the site gateway (pid %d) on host %s exited with code %d",
                 (int)g->pid, host, WEXITSTATUS(status));
    return 1;
}

void gwproc_close(gwproc_t *g)
{
    if (g->pid <= 0)   /* never started (a zeroed record's descriptors are not its) */
        return;
    if (g->report_fd >= 0)
        close(g->report_fd);
    g->report_fd = -1;
    if (g->control_fd >= 0)
        close(g->control_fd);
    g->control_fd = -1;
}
