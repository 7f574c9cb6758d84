#include "teardown.h"

#include "util.h"
#include "net/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int teardown_remove_shm(const char *kvsname)
{
    char prefix[512];
    snprintf(prefix, sizeof prefix, "metampi.%s.", kvsname);
    size_t pl = strlen(prefix);
    int dfd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, pl) != 0)
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0 || unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

/* Whether any process maps /dev/shm/name (its /proc/<pid>/maps names it). */
static int mapped_by_anyone(const char *name)
{
    char needle[300];
    snprintf(needle, sizeof needle, "/dev/shm/%s", name);
    DIR *d = opendir("/proc");
    if (!d)
        return 1; /* cannot tell: keep it */
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], line[4096];
        snprintf(path, sizeof path, "/proc/%s/maps", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f)
            continue;
        while (!found && fgets(line, sizeof line, f))
            found = strstr(line, needle) != NULL;
        fclose(f);
    }
    closedir(d);
    return found;
}

int teardown_sweep_stale_shm(void)
{
    int dfd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid = 0, n = 0;
        if (sscanf(e->d_name, "metampi.kvs_%d_%*x.%n", &pid, &n) != 1 || n == 0 || pid <= 0)
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH || mapped_by_anyone(e->d_name))
            continue;
        if (unlinkat(dfd, e->d_name, 0) == 0 || unlinkat(dfd, e->d_name, AT_REMOVEDIR) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}

void teardown_become_subreaper(void)
{
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Children of this process according to /proc (running or zombie). */
static int list_children(pid_t *out, int max)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t self = getpid();
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0)
            continue;
        buf[len] = '\0';
        char *rp = strrchr(buf, ')');  /* the command name may contain anything */
        int ppid;
        char state;
        if (rp && sscanf(rp + 1, " %c %d", &state, &ppid) == 2 && ppid == self)
            out[n++] = (pid_t)atoi(e->d_name);
    }
    closedir(d);
    return n;
}

void teardown_kill_orphans(void)
{
    pid_t kids[256];
    long long deadline = net_now_ms() + TEARDOWN_KILL_AFTER_MS;
    for (;;) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        int n = list_children(kids, 256);
        if (n == 0 || net_now_ms() >= deadline)
            return;
        for (int i = 0; i < n; i++)
            kill(kids[i], SIGKILL);
        usleep(10000);
    }
}
