#include "slurm_alloc.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int slurm_alloc_present(void)
{
    const char *l = getenv("SLURM_JOB_NODELIST");
    return l && *l;
}

int slurm_parse_counts(const char *s, int *counts, int max)
{
    int n = 0;
    const char *p = s;
    for (;;) {
        char *end;
        long c = strtol(p, &end, 10), rep = 1;
        if (end == p || c < 1 || c > MPIRUN_MAX_RANKS)
            return -1;
        p = end;
        if (strncmp(p, "(x", 2) == 0) {
            rep = strtol(p + 2, &end, 10);
            if (end == p + 2 || *end != ')' || rep < 1 || rep > max)
                return -1;
            p = end + 1;
        }
        for (long i = 0; i < rep; i++) {
            if (n == max)
                return -1;
            counts[n++] = (int)c;
        }
        if (!*p)
            return n;
        if (*p++ != ',')
            return -1;
    }
}

/* Runs `scontrol show hostnames LIST` and returns its output (malloc'ed), or NULL with err. */
static char *expand_nodelist(const char *list, char *err, size_t errlen)
{
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot run scontrol: %s", strerror(errno));
        return NULL;
    }
    char *argv[] = { (char *)"scontrol", (char *)"show", (char *)"hostnames", (char *)list, NULL };
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    if (pid < 0) {
        close(out[0]);
        snprintf(err, errlen, "cannot run 'scontrol show hostnames': %s", strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 4096;
    char *text = util_xmalloc(cap);
    for (;;) {
        if (len + 1 == cap)
            text = util_xrealloc(text, cap *= 2);
        ssize_t r = read(out[0], text + len, cap - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    text[len] = '\0';
    close(out[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || len == 0) {
        free(text);
        snprintf(err, errlen, "'scontrol show hostnames %s' failed (%s %d%s)", list,
                 WIFEXITED(status) ? "exit status" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                 WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": is Slurm's scontrol in PATH?"
                                                                  : "");
        return NULL;
    }
    return text;
}

int slurm_alloc_hosts(hostlist_t *l, char *err, size_t errlen)
{
    const char *list = getenv("SLURM_JOB_NODELIST");
    const char *per = getenv("SLURM_TASKS_PER_NODE"), *which = "SLURM_TASKS_PER_NODE";
    if (!per || !*per) {
        per = getenv("SLURM_JOB_CPUS_PER_NODE");
        which = "SLURM_JOB_CPUS_PER_NODE";
    }
    if (!per || !*per) {
        snprintf(err, errlen, "in a Slurm allocation (SLURM_JOB_NODELIST='%s') without "
                 "SLURM_TASKS_PER_NODE or SLURM_JOB_CPUS_PER_NODE: give the hosts with --host",
                 list);
        return -1;
    }
    int *counts = util_xmalloc(HOSTLIST_MAX_HOSTS * sizeof *counts);
    int ncounts = slurm_parse_counts(per, counts, HOSTLIST_MAX_HOSTS);
    if (ncounts < 0) {
        snprintf(err, errlen, "malformed %s='%s' (expected counts like 2(x3),1)", which, per);
        free(counts);
        return -1;
    }
    char *names = expand_nodelist(list, err, errlen);
    if (!names) {
        free(counts);
        return -1;
    }
    int h = 0, rc = 0;
    for (char *save = NULL, *name = strtok_r(names, " \t\r\n", &save); name;
         name = strtok_r(NULL, " \t\r\n", &save)) {
        const char *nm;
        size_t nlen;
        int ignored;
        if (h == ncounts) {
            snprintf(err, errlen, "SLURM_JOB_NODELIST='%s' names more hosts than %s='%s' counts",
                     list, which, per);
            rc = -1;
            break;
        }
        if (hostlist_parse_entry(name, strlen(name), &nm, &nlen, &ignored) != 0 ||
            nlen != strlen(name)) {
            snprintf(err, errlen, "host name '%s' from SLURM_JOB_NODELIST='%s' cannot be used",
                     name, list);
            rc = -1;
            break;
        }
        if (hostlist_add(l, name, nlen, counts[h], err, errlen) != 0) {
            rc = -1;
            break;
        }
        h++;
    }
    if (rc == 0 && h != ncounts) {
        snprintf(err, errlen, "SLURM_JOB_NODELIST='%s' names %d host%s but %s='%s' counts %d",
                 list, h, h == 1 ? "" : "s", which, per, ncounts);
        rc = -1;
    }
    free(names);
    free(counts);
    return rc;
}
