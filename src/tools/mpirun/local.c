/*
 * A job whose ranks all run on this host (no --host / --hostfile): mpirun itself is the
 * node (spawn, PMI, I/O); no helper, no agent.
 */
#include "job.h"

#include "evloop.h"
#include "hostpolicy.h"
#include "jobenv.h"
#include "node.h"
#include "report.h"
#include "spawn.h"
#include "spawned.h"
#include "teardown.h"
#include "util.h"
#include "net/auth.h"
#include "net/clock.h"
#include "runtime/rank_key.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

typedef struct local {
    job_t job;
    ev_loop_t loop;
    node_t node;
    spawned_t spawned;        /* the parts started by MPI_Comm_spawn */
    int sigfd;
    char kvsname[64];
    hostpolicy_t hp;
} local_t;

static void terminate(void *ctx, int sig)
{
    local_t *l = ctx;
    node_close_stdin(&l->node);
    node_signal(&l->node, sig);
    spawned_signal(&l->spawned, sig);
}

static void on_other_exited(void *ctx, pid_t pid, int status)
{
    local_t *l = ctx;
    spawned_take_exit(&l->spawned, pid, status);
}

static void on_spawn(void *ctx, int rank, pmi_spawn_req_t *req)
{
    local_t *l = ctx;
    spawned_request(&l->spawned, &l->node, rank, req);
}

static const char *on_lookup(void *ctx, const char *kvsname, const char *key)
{
    local_t *l = ctx;
    return spawned_lookup(&l->spawned, kvsname, key);
}

static int on_shared(void *ctx, const pmi_msg_t *m, char *reply, size_t cap)
{
    local_t *l = ctx;
    return spawned_shared(&l->spawned, m, reply, cap);
}

/* MPI_UNIVERSE_SIZE: the CPUs mpirun may use, or the ranks when there are more. */
static int universe_size(int np)
{
    cpu_set_t set;
    int n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n > np ? n : np;
}

static void on_exited(void *ctx, int rank, pid_t pid, int status, int inited, int finalized)
{
    local_t *l = ctx;
    job_rank_exited(&l->job, rank, util_hostname(), pid, status, inited, finalized);
}

static void on_aborted(void *ctx, int rank, pid_t pid, int exitcode, const char *msg)
{
    local_t *l = ctx;
    job_rank_aborted(&l->job, rank, util_hostname(), pid, exitcode, msg);
}

static void on_pmi_failed(void *ctx, int rank, pid_t pid, enum pmi_fail_kind kind,
                          const char *detail)
{
    local_t *l = ctx;
    job_pmi_failed(&l->job, rank, util_hostname(), pid, kind, detail);
}

static void on_bind_refused(void *ctx, int rank, pid_t pid, int err)
{
    local_t *l = ctx;
    (void)pid;
    hostpolicy_bind_refused(&l->hp, &l->node, rank, err);
}

static void on_signal(void *arg, int fd, short revents)
{
    local_t *l = arg;
    (void)revents;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD)
            node_reap(&l->node);
        else
            job_signal(&l->job, sig);
    }
}

int local_run(const mpirun_opts_t *opts)
{
    const char *prog = opts->prog_argv[0];
    char *path = NULL;
    int e = spawn_resolve(prog, &path);
    if (e) {
        util_msg("cannot execute '%s': %s", prog, strerror(e));
        return 127;
    }

    local_t l;
    memset(&l, 0, sizeof l);
    char err[512];
    if (hostpolicy_bind(&l.hp, opts->bind, opts->np, opts->oversubscribe, err, sizeof err)) {
        util_msg("%s", err);
        hostpolicy_close(&l.hp);
        free(path);
        return 1;
    }
    if (opts->report_bindings) {
        char *report = hostpolicy_report(&l.hp, opts->np, NULL, util_hostname(), getpid());
        util_write_all(STDERR_FILENO, report, strlen(report));
        free(report);
    }
    teardown_become_subreaper();
    teardown_sweep_stale_shm();
    job_make_kvsname(l.kvsname, sizeof l.kvsname);
    job_init(&l.job, terminate, &l);
    ev_init(&l.loop);
    l.sigfd = job_setup_signals();
    if (l.sigfd < 0) {
        util_msg("cannot set up signal handling: %s", strerror(errno));
        hostpolicy_close(&l.hp);
        free(path);
        return 1;
    }
    ev_watch(&l.loop, l.sigfd, POLLIN, on_signal, &l);

    jobenv_t env;
    jobenv_init(&env, 1);
    for (int i = 0; i < opts->nx; i++)
        jobenv_add(&env, opts->xvars[i]);

    /* One ranks' key for every part of the job (spawned ones too), so their TCP transports
     * prove the same key (docs/dynproc.md); no process started after MPI_Init gets it. */
    auth_key_t ranks_key;
    char key_env[sizeof RANK_KEY_ENV + AUTH_KEY_HEX + 1] = "";
    const char *env_extra[1] = { key_env };
    if (auth_key_generate(&ranks_key) == 0) {
        char hex[AUTH_KEY_HEX + 1];
        auth_key_to_hex(&ranks_key, hex);
        snprintf(key_env, sizeof key_env, RANK_KEY_ENV "=%s", hex);
        auth_key_wipe(&ranks_key);
    }
    node_spec_t spec = { .nranks = opts->np, .path = path, .argv = opts->prog_argv,
                         .env = &env, .env_extra = env_extra, .nenv_extra = *key_env != 0,
                         .kvsname = l.kvsname, .tag_output = opts->tag_output,
                         .stdin_fd = STDIN_FILENO, .stdout_fd = STDOUT_FILENO,
                         .stderr_fd = STDERR_FILENO,
                         .binding = hostpolicy_node_binding(&l.hp) };
    node_events_t ev = { .ctx = &l, .exited = on_exited, .aborted = on_aborted,
                         .pmi_failed = on_pmi_failed, .bind_refused = on_bind_refused,
                         .other_exited = on_other_exited, .spawn = on_spawn,
                         .lookup = on_lookup, .shared = on_shared };
    node_init(&l.node, &l.loop, &spec, &ev);
    node_kvs_put(&l.node, "metampi.spawn", "1");   /* the library may spawn and use ports */
    int universe = universe_size(opts->np);
    pmi_server_set_universe(&l.node.pmi, universe);
    spawned_init(&l.spawned, &l.loop, &l.job, &l.node, &env, opts->tag_output, universe);

    int bad_rank;
    spawn_err_t why;
    if (node_spawn(&l.node, &bad_rank, &why) != 0) {
        char text[1024];
        int status = hostpolicy_spawn_error(&l.hp, prog, bad_rank, bad_rank, &why, text,
                                            sizeof text);
        job_fail(&l.job, status, 1, "%s", text);
    }

    long long t_drain = 0;
    for (;;) {
        long long now = net_now_ms();
        int timeout = -1;
        if (l.job.condemned && !l.job.kill_sent) {
            if (now >= l.job.t_condemned + TEARDOWN_KILL_AFTER_MS) {
                node_signal(&l.node, SIGKILL);
                spawned_signal(&l.spawned, SIGKILL);
                l.job.kill_sent = 1;
            } else {
                job_fold_deadline(&timeout, l.job.t_condemned + TEARDOWN_KILL_AFTER_MS, now);
            }
        }
        if (node_live(&l.node) + spawned_live(&l.spawned) == 0) {
            if (!t_drain) {
                node_close_stdin(&l.node);
                teardown_kill_orphans();  /* descendants could hold output pipes open */
                t_drain = now;
            }
            if (node_io_open(&l.node) + spawned_io_open(&l.spawned) == 0 ||
                now >= t_drain + TEARDOWN_DRAIN_MS)
                break;
            job_fold_deadline(&timeout, t_drain + TEARDOWN_DRAIN_MS, now);
        } else if (l.job.condemned) {
            if (now >= l.job.t_condemned + TEARDOWN_GIVE_UP_MS) {
                util_msg("%d rank(s) did not exit after SIGKILL; giving up on them",
                         node_live(&l.node) + spawned_live(&l.spawned));
                break;
            }
            job_fold_deadline(&timeout, l.job.t_condemned + TEARDOWN_GIVE_UP_MS, now);
        }
        ev_run_once(&l.loop, timeout);
    }

    report_kvs_from(&l.node.pmi.kvs);
    spawned_free(&l.spawned);
    node_free(&l.node);
    teardown_kill_orphans();
    teardown_remove_shm(l.kvsname);
    ev_unwatch(&l.loop, l.sigfd);
    close(l.sigfd);
    ev_free(&l.loop);
    jobenv_free(&env);
    hostpolicy_close(&l.hp);
    free(path);
    return l.job.status;
}
