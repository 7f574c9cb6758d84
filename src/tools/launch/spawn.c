#include "spawn.h"

#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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
static void child_report(int errpipe, enum spawn_stage stage, int err)
{
    spawn_err_t rec = { .stage = stage, .err = err };
    ssize_t r = write(errpipe, &rec, sizeof rec);  /* < PIPE_BUF: one record per read */
    (void)r;
}

static void child_fail(int errpipe, enum spawn_stage stage, int err)
{
    child_report(errpipe, stage, err);
    _exit(127);
}

/* Points the entry of entry's name at entry. The envp array is this child's copy. */
static void replace_env(char *const *envp, const char *entry)
{
    size_t nl = strcspn(entry, "=");
    for (char **p = (char **)envp; *p; p++)
        if (strncmp(*p, entry, nl) == 0 && (*p)[nl] == '=')
            *p = (char *)entry;
}

static void child(const spawn_req_t *req, pid_t parent, int errpipe)
{
    setpgid(0, 0);
    if (!req->keep_on_parent_death &&
        (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent))
        _exit(127);

    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);

    if (req->cpus && sched_setaffinity(0, req->cpus_size, req->cpus) != 0) {
        if (req->bind_required)
            child_fail(errpipe, SPAWN_STAGE_BIND, errno);
        child_report(errpipe, SPAWN_STAGE_BIND, errno);  /* and run with mpirun's affinity */
        if (req->unbound_env)
            replace_env(req->envp, req->unbound_env);
    }

    /* Move the fds we keep above 9 first so that the dup2 calls below cannot clobber them. */
    int nkeep = req->pmi_fd >= 0 ? 4 : 3;
    int fds[5] = { req->stdin_fd, req->stdout_fd, req->stderr_fd, req->pmi_fd, errpipe };
    for (int i = 0; i < 5; i++) {
        if (i == 3 && nkeep == 3)
            continue;
        fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 10);
        if (fds[i] < 0)
            child_fail(errpipe, SPAWN_STAGE_SETUP, errno);
    }
    errpipe = fds[4];
    for (int i = 0; i < nkeep; i++)
        if (dup2(fds[i], i) < 0)  /* dup2 clears FD_CLOEXEC on the new fd */
            child_fail(errpipe, SPAWN_STAGE_SETUP, errno);
    /* Everything else closes on exec; the error pipe therefore reports exec success by EOF. */
    if (close_range((unsigned)nkeep, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        struct rlimit rl;
        long max = (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
                       ? (long)rl.rlim_cur : 65536;
        for (long fd = nkeep; fd < max; fd++)
            fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    }
    if (req->wdir && chdir(req->wdir) != 0)
        child_fail(errpipe, SPAWN_STAGE_WDIR, errno);
    execve(req->path, req->argv, req->envp);
    child_fail(errpipe, SPAWN_STAGE_EXEC, errno);
}

pid_t spawn_rank(const spawn_req_t *req, spawn_err_t *why, int *bind_refused)
{
    *bind_refused = 0;
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
        *why = (spawn_err_t){ SPAWN_STAGE_SETUP, errno };
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        *why = (spawn_err_t){ SPAWN_STAGE_SETUP, errno };
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

    /* The child writes at most one refused-binding record (it goes on) and at most one
     * failure record (it exits); EOF means the exec succeeded. */
    int failed = 0;
    for (;;) {
        spawn_err_t rec;
        ssize_t n = read(ep[0], &rec, sizeof rec);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof rec)
            break;
        if (rec.stage == SPAWN_STAGE_BIND && !req->bind_required) {
            *bind_refused = rec.err;
        } else {
            *why = rec;
            failed = 1;
            break;
        }
    }
    close(ep[0]);
    if (failed) {
        /* the child exits right away; reap it so nothing is left behind */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return -1;
    }
    return pid;
}
