#include "spawn.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int check_exec(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return EACCES;
    return 0;
}

int spawn_resolve(const char *prog, char **path)
{
    if (!*prog)
        return ENOENT;
    if (strchr(prog, '/')) {
        int e = check_exec(prog);
        if (!e)
            *path = util_xstrdup(prog);
        return e;
    }
    const char *p = getenv("PATH");
    if (!p)
        p = "/usr/local/bin:/usr/bin:/bin";
    int best = ENOENT;
    while (1) {
        const char *end = strchr(p, ':');
        size_t dl = end ? (size_t)(end - p) : strlen(p);
        char *cand = util_xmalloc(dl + strlen(prog) + 3);
        if (dl == 0)
            strcpy(cand, "./");
        else {
            memcpy(cand, p, dl);
            cand[dl] = '/';
            cand[dl + 1] = '\0';
        }
        strcat(cand, prog);
        int e = check_exec(cand);
        if (!e) {
            *path = cand;
            return 0;
        }
        if (e != ENOENT && e != ENOTDIR)
            best = e;  /* found but unusable: remember the more specific error */
        free(cand);
        if (!end)
            break;
        p = end + 1;
    }
    return best;
}

/* Only async-signal-safe calls from here on: we are a fresh fork. */
static void child_fail(int errpipe, int err)
{
    ssize_t r = write(errpipe, &err, sizeof err);
    (void)r;
    _exit(127);
}

static void child(const spawn_req_t *req, pid_t parent, int errpipe)
{
    setpgid(0, 0);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);

    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);

    /* Move the fds we keep above 9 first so that the dup2 calls below cannot clobber them. */
    int fds[5] = { req->stdin_fd, req->stdout_fd, req->stderr_fd, req->pmi_fd, errpipe };
    for (int i = 0; i < 5; i++) {
        fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
        if (fds[i] < 0)
            child_fail(errpipe, errno);
    }
    errpipe = fds[4];
    for (int i = 0; i < 4; i++)
        if (dup2(fds[i], i) < 0)  /* dup2 clears FD_CLOEXEC on the new fd */
            child_fail(errpipe, errno);
    /* Everything else closes on exec; the error pipe therefore reports exec success by EOF. */
    if (close_range(4, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        struct rlimit rl;
        long max = (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
                       ? (long)rl.rlim_cur : 65536;
        for (long fd = 4; fd < max; fd++)
            fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    }
    execve(req->path, req->argv, req->envp);
    child_fail(errpipe, errno);
}

pid_t spawn_rank(const spawn_req_t *req, int *err)
{
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
        *err = errno;
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        *err = errno;
        close(ep[0]);
        close(ep[1]);
        return -1;
    }
    if (pid == 0) {
        close(ep[0]);
        child(req, parent, ep[1]);
    }
    close(ep[1]);
    setpgid(pid, pid);  /* may fail with EACCES once the child exec'd: harmless */

    int childerr = 0;
    ssize_t n;
    do
        n = read(ep[0], &childerr, sizeof childerr);
    while (n < 0 && errno == EINTR);
    close(ep[0]);
    if (n == (ssize_t)sizeof childerr) {
        /* exec failed: the child exits right away; reap it so nothing is left behind */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        *err = childerr;
        return -1;
    }
    return pid;
}
