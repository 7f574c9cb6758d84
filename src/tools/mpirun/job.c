#include "job.h"

#include "binding.h"
#include "evloop.h"
#include "jobenv.h"
#include "node.h"
#include "spawn.h"
#include "teardown.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct job {
    ev_loop_t loop;
    node_t node;
    int sigfd;
    char kvsname[64];
    int condemned;            /* the job is being torn down */
    int status;               /* exit status, fixed by the first cause */
    long long t_condemned;
    int kill_sent;
    binding_t *binding;       /* NULL: hwloc not consulted or unavailable */
    node_binding_t bind;      /* the ranks' sets when bind.mask != NULL */
} job_t;

/* Records the first cause and starts the teardown by sending sig to every rank. */
static void condemn(job_t *j, int sig, int status)
{
    if (j->condemned)
        return;
    j->condemned = 1;
    j->status = status;
    j->t_condemned = util_now_ms();
    node_close_stdin(&j->node);
    node_signal(&j->node, sig);
}

static void on_exited(void *ctx, int rank, pid_t pid, int status, int inited, int finalized)
{
    job_t *j = ctx;
    const char *host = util_hostname();
    if (j->condemned)
        return;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        util_msg("rank %d (pid %d) on host %s was killed by signal %d (%s)", rank, (int)pid,
                 host, sig, strsignal(sig));
        condemn(j, SIGTERM, 128 + sig);
        return;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (inited && !finalized) {
        util_msg("rank %d (pid %d) on host %s exited with code %d without calling MPI_Finalize",
                 rank, (int)pid, host, code);
        condemn(j, SIGTERM, code ? code : 1);
    } else if (code != 0) {
        util_msg("rank %d (pid %d) on host %s exited with code %d", rank, (int)pid, host, code);
        condemn(j, SIGTERM, code);
    }
}

static void on_aborted(void *ctx, int rank, pid_t pid, int exitcode, const char *msg)
{
    job_t *j = ctx;
    if (j->condemned)
        return;
    util_msg("rank %d (pid %d) on host %s aborted the job with exit code %d%s%s", rank, (int)pid,
             util_hostname(), exitcode, msg ? ": " : "", msg ? msg : "");
    condemn(j, SIGTERM, exitcode & 0xff);
}

static void on_pmi_failed(void *ctx, int rank, pid_t pid, enum pmi_fail_kind kind,
                          const char *detail)
{
    job_t *j = ctx;
    if (j->condemned)
        return;
    if (kind == PMI_FAIL_ABSENT)
        util_msg("rank %d (pid %d) on host %s exited without calling MPI_Init or MPI_Finalize "
                 "while the other ranks wait for it", rank, (int)pid, util_hostname());
    else if (kind == PMI_FAIL_VERSION)
        util_msg("rank %d (pid %d) on host %s requested unsupported PMI version %s "
                 "(only PMI-1 is supported)", rank, (int)pid, util_hostname(), detail);
    else
        util_msg("rank %d on host %s sent an invalid PMI command: %s", rank, util_hostname(),
                 detail);
    condemn(j, SIGTERM, 1);
}

/* Only when the default policy chose to bind: the binding was a preference, not an order. */
static void on_bind_refused(void *ctx, int rank, pid_t pid, int err)
{
    job_t *j = ctx;
    (void)pid;
    char *where = binding_describe(j->binding, rank, 0);
    util_msg("warning: cannot bind rank %d to %s: %s; the job runs unbound", rank, where,
             strerror(err));
    free(where);
    node_drop_binding(&j->node);
    for (int r = 0; r < rank; r++)
        binding_release(j->binding, j->node.rank[r].pid);  /* best effort */
}

/* Decides where the ranks run (policy in job.h). Returns 0, or -1 after printing why the job
 * cannot start. */
static int choose_binding(job_t *j, const mpirun_opts_t *opts)
{
    mpirun_bind_t policy = opts->bind;
    if (policy == MPIRUN_BIND_NONE)
        return 0;
    int err;
    j->binding = binding_open(&err);
    if (!j->binding) {
        if (policy == MPIRUN_BIND_DEFAULT) {
            util_msg("warning: cannot discover the CPU topology (%s); the job runs unbound",
                     strerror(err));
            return 0;
        }
        util_msg("--bind-to %s: cannot discover the CPU topology: %s",
                 binding_policy_name(policy), strerror(err));
        return -1;
    }
    int required = 1;
    if (policy == MPIRUN_BIND_DEFAULT) {
        if (opts->np > binding_slots(j->binding, MPIRUN_BIND_CORE))
            return 0;
        policy = MPIRUN_BIND_CORE;
        required = 0;
    } else {
        int slots = binding_slots(j->binding, policy);
        if (opts->np > slots && !opts->oversubscribe) {
            const char *unit = policy == MPIRUN_BIND_HWTHREAD ? "hardware thread" : "core";
            util_msg("--bind-to %s: %d ranks but only %d %s%s available (use --bind-to none, or "
                     "--oversubscribe to bind the ranks round-robin)", binding_policy_name(policy),
                     opts->np, slots, unit, slots == 1 ? "" : "s");
            return -1;
        }
    }
    binding_place(j->binding, policy, opts->np);
    j->bind = (node_binding_t){ .policy = binding_policy_name(policy),
                                .mask = binding_masks(j->binding),
                                .mask_size = binding_mask_size(j->binding),
                                .required = required };
    return 0;
}

/* --report-bindings: "[host:pid] rank R bound to <binding_describe>" or "... not bound". */
static void report_bindings(const job_t *j, int nranks)
{
    for (int r = 0; r < nranks; r++) {
        char *where = j->bind.mask ? binding_describe(j->binding, r, 1) : NULL;
        size_t cap = strlen(util_hostname()) + (where ? strlen(where) : 0) + 64;
        char *line = util_xmalloc(cap);
        int n = snprintf(line, cap, "[%s:%d] rank %d %s%s\n", util_hostname(), (int)getpid(), r,
                         where ? "bound to " : "not bound", where ? where : "");
        util_write_all(STDERR_FILENO, line, (size_t)n);
        free(line);
        free(where);
    }
}

static void on_signal(void *arg, int fd, short revents)
{
    job_t *j = arg;
    (void)revents;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            node_reap(&j->node);
        } else if (!j->condemned) {
            util_msg("received signal %d (%s); terminating the job", sig, strsignal(sig));
            condemn(j, sig, 128 + sig);
        } else if (!j->kill_sent) {
            /* impatient user: a second signal skips the grace period */
            node_signal(&j->node, SIGKILL);
            j->kill_sent = 1;
        }
    }
}

static int setup_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
        return -1;
    signal(SIGPIPE, SIG_IGN);   /* write errors are handled where they happen */
    signal(SIGTTIN, SIG_IGN);   /* reading a terminal in the background fails with EIO */
    signal(SIGTTOU, SIG_IGN);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

static void make_kvsname(char *buf, size_t cap)
{
    unsigned int rnd = 0;
    if (getrandom(&rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
        rnd = (unsigned int)(util_now_ms() * 2654435761u) ^ (unsigned int)getpid();
    snprintf(buf, cap, "kvs_%d_%08x", (int)getpid(), rnd);
}

/* Milliseconds until deadline (at least 0), folded into the running minimum *t. */
static void fold_deadline(int *t, long long deadline, long long now)
{
    long long d = deadline - now;
    if (d < 0)
        d = 0;
    if (*t < 0 || d < *t)
        *t = (int)d;
}

int job_run(const mpirun_opts_t *opts)
{
    const char *prog = opts->prog_argv[0];
    char *path = NULL;
    int e = spawn_resolve(prog, &path);
    if (e) {
        util_msg("cannot execute '%s': %s", prog, strerror(e));
        return 127;
    }

    job_t j;
    memset(&j, 0, sizeof j);
    if (choose_binding(&j, opts) != 0) {
        binding_close(j.binding);
        free(path);
        return 1;
    }
    if (opts->report_bindings)
        report_bindings(&j, opts->np);
    teardown_become_subreaper();
    make_kvsname(j.kvsname, sizeof j.kvsname);
    ev_init(&j.loop);
    j.sigfd = setup_signals();
    if (j.sigfd < 0) {
        util_msg("cannot set up signal handling: %s", strerror(errno));
        binding_close(j.binding);
        free(path);
        return 1;
    }
    ev_watch(&j.loop, j.sigfd, POLLIN, on_signal, &j);

    jobenv_t env;
    jobenv_init(&env, 1);
    for (int i = 0; i < opts->nx; i++)
        jobenv_add(&env, opts->xvars[i]);

    node_spec_t spec = { .nranks = opts->np, .path = path, .argv = opts->prog_argv,
                         .env = &env, .kvsname = j.kvsname, .tag_output = opts->tag_output,
                         .stdin_fd = STDIN_FILENO, .stdout_fd = STDOUT_FILENO,
                         .stderr_fd = STDERR_FILENO,
                         .binding = j.bind.mask ? &j.bind : NULL };
    node_events_t ev = { .ctx = &j, .exited = on_exited, .aborted = on_aborted,
                         .pmi_failed = on_pmi_failed, .bind_refused = on_bind_refused };
    node_init(&j.node, &j.loop, &spec, &ev);

    int bad_rank;
    spawn_err_t why;
    if (node_spawn(&j.node, &bad_rank, &why) != 0) {
        int err = why.err;
        if (why.stage == SPAWN_STAGE_BIND) {
            char *where = binding_describe(j.binding, bad_rank, 0);
            util_msg("cannot bind rank %d to %s: %s", bad_rank, where, strerror(err));
            free(where);
            condemn(&j, SIGKILL, 1);
        } else if (err == ENOENT || err == EACCES || err == ENOEXEC || err == EISDIR ||
                   err == ENOTDIR || err == ELOOP || err == ENAMETOOLONG || err == ETXTBSY) {
            util_msg("cannot execute '%s': %s", prog, strerror(err));
            condemn(&j, SIGKILL, 127);
        } else {
            util_msg("cannot start rank %d: %s", bad_rank, strerror(err));
            condemn(&j, SIGKILL, 1);
        }
    }

    long long t_drain = 0;
    for (;;) {
        long long now = util_now_ms();
        int timeout = -1;
        if (j.condemned && !j.kill_sent) {
            if (now >= j.t_condemned + TEARDOWN_KILL_AFTER_MS) {
                node_signal(&j.node, SIGKILL);
                j.kill_sent = 1;
            } else {
                fold_deadline(&timeout, j.t_condemned + TEARDOWN_KILL_AFTER_MS, now);
            }
        }
        if (node_live(&j.node) == 0) {
            if (!t_drain) {
                node_close_stdin(&j.node);
                teardown_kill_orphans();  /* descendants could hold output pipes open */
                t_drain = now;
            }
            if (node_io_open(&j.node) == 0 || now >= t_drain + TEARDOWN_DRAIN_MS)
                break;
            fold_deadline(&timeout, t_drain + TEARDOWN_DRAIN_MS, now);
        } else if (j.condemned) {
            if (now >= j.t_condemned + TEARDOWN_GIVE_UP_MS) {
                util_msg("%d rank(s) did not exit after SIGKILL; giving up on them",
                         node_live(&j.node));
                break;
            }
            fold_deadline(&timeout, j.t_condemned + TEARDOWN_GIVE_UP_MS, now);
        }
        ev_run_once(&j.loop, timeout);
    }

    node_free(&j.node);
    teardown_kill_orphans();
    teardown_remove_shm(j.kvsname);
    ev_unwatch(&j.loop, j.sigfd);
    close(j.sigfd);
    ev_free(&j.loop);
    jobenv_free(&env);
    binding_close(j.binding);
    free(path);
    return j.status;
}
