/*
 * A job on several hosts (--host / --hostfile): one metampi-hostd per host that runs ranks,
 * started through the launch agent (agent.h), driven over its control channel (ctl.h).
 * The policy is job.c's; this file runs a plan: the hosts and their ranks, the loop, the end.
 * The helpers are mh_helpers.c's, their frames mh_frames.c's (mh_int.h):
 *   - rank output arrives in frames and is written here, with --tag-output prefixes;
 *   - the end: every host DONE (or lost, or given up on at the teardown deadline), then the
 *     channels are closed and the helpers exit (they sweep /dev/shm only then, so that no
 *     host sweeps while another host's ranks still run).
 * Invariant: a host's frames are handled in order, and a rank's output precedes its exit.
 */
#include "mh_int.h"
#include "mh_spawn.h"
#include "report.h"

#include "ctl.h"
#include "gateways.h"
#include "net/clock.h"
#include "net/liveness.h"
#include "runtime/peer_timeout.h"
#include "placement.h"
#include "runtime/pmi_wire.h"
#include "runtime/sitemap.h"
#include "runtime/tunables.h"
#include "teardown.h"
#include "universe.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define HELPER_STATUS_WAIT_MS 500   /* channel ended: how long to wait for the agent's status */
#define HELPER_EXIT_WAIT_MS 1000    /* after closing the channels: for the helpers to exit */

/* ---- the job ------------------------------------------------------------------------- */

static void terminate(void *ctx, int sig)
{
    mh_t *m = ctx;
    mh_stdin_stop(m);
    for (int k = 0; k < m->nhost; k++)
        if (mh_live(&m->host[k]) && !m->host[k].done)
            mh_send_frame_u32(&m->host[k], CTL_KILL, 1, (uint32_t)sig);
}

static void reap(mh_t *m)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        for (int k = 0; k < m->nhost; k++) {
            mhost_t *h = &m->host[k];
            if (!h->started || h->agent.pid != pid || h->agent.reaped)
                continue;
            h->agent.reaped = 1;
            h->agent.status = status;
            kill(-pid, SIGKILL);  /* whatever the agent left in its group */
            if (!h->chan_ended)
                chan_drain(&h->ch);  /* its last frames come before its end */
            if (!h->done && !h->lost) {
                if (!h->chan_ended)
                    h->t_ended = net_now_ms();  /* someone else holds the pipe */
                else
                    mh_report_lost(h);
            }
        }
    }
}

static void on_signal(void *arg, int fd, short revents)
{
    mh_t *m = arg;
    (void)revents;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD)
            reap(m);
        else
            job_signal(&m->job, (int)si.ssi_signo);
    }
}

/* -x settings as the helpers apply them: "NAME=value", mpirun's value for a bare "NAME"
 * (a bare NAME that mpirun does not have is left out). */
static char **env_settings(const mpirun_opts_t *o, int *n)
{
    char **v = util_xmalloc((size_t)(o->nx + 2) * sizeof *v);
    *n = 0;
    /* the ranks on every host judge silent peers as mpirun and the helpers do; -x wins */
    const char *t = tun_string(TUN_PEER_TIMEOUT); /* valid: multihost_exec checked it */
    if (t) {
        v[*n] = util_xmalloc(strlen(LIVENESS_ENV) + strlen(t) + 2);
        sprintf(v[(*n)++], "%s=%s", LIVENESS_ENV, t);
    }
    for (int i = 0; i < o->nx; i++) {
        const char *s = o->xvars[i];
        if (strchr(s, '=')) {
            v[(*n)++] = util_xstrdup(s);
        } else if (getenv(s)) {
            const char *val = getenv(s);
            v[*n] = util_xmalloc(strlen(s) + strlen(val) + 2);
            sprintf(v[(*n)++], "%s=%s", s, val);
        }
    }
    return v;
}

/* The key-value pairs of the site layout (runtime/sitemap.h) for a job described with
 * --metacomputer: the site of every rank and the site names. Returns the number of pairs (0
 * without a description: the job is one site), or -1. */
static int site_layout(const mpirun_opts_t *o, const int *where, char ***kv)
{
    *kv = NULL;
    if (!o->mc.nsites)
        return 0;
    int *site_of = util_xmalloc((size_t)o->np * sizeof *site_of);
    const char **names = util_xmalloc((size_t)o->mc.nsites * sizeof *names);
    for (int r = 0; r < o->np; r++)
        site_of[r] = o->mc.host_site[where[r]];
    for (int s = 0; s < o->mc.nsites; s++)
        names[s] = o->mc.site[s].name;
    int n = sitemap_encode(o->mc.nsites, names, site_of, o->np, PMI_WIRE_VALLEN_MAX - 1, kv);
    free(site_of);
    free(names);
    return n;
}

/* Checks what the helpers need before anything starts. 0, or -1 after the report. */
static int preflight(const mpirun_opts_t *o, const char *hostd_path, int hostd_err)
{
    if (hostd_err) {
        util_msg("cannot execute the helper '%s': %s", hostd_path, strerror(hostd_err));
        return -1;
    }
    int remote = 0;
    for (int i = 0; i < o->hosts.n; i++)
        remote |= !agent_is_local(o->hosts.h[i].name);
    if (!remote)
        return 0;
    char **argv = agent_argv(o->launch_agent, "x", hostd_path, 0);
    char *path = NULL;
    int e = spawn_resolve(argv[0], &path);
    if (e)
        util_msg("cannot execute the launch agent '%s' (from --launch-agent '%s'): %s", argv[0],
                 o->launch_agent, strerror(e));
    free(path);
    agent_argv_free(argv);
    return e ? -1 : 0;
}

static int all_settled(const mh_t *m)
{
    for (int k = 0; k < m->nhost; k++)
        if (!m->host[k].done && !m->host[k].lost)
            return 0;
    return 1;
}

static int all_exited(const mh_t *m)
{
    for (int k = 0; k < m->nhost; k++) {
        const mhost_t *h = &m->host[k];
        if (h->started && (!h->agent.reaped || !h->chan_ended || ostream_is_open(&h->errs)))
            return 0;
    }
    return 1;
}

int multihost_run(const mpirun_opts_t *opts)
{
    mh_plan_t plan = { .size = opts->np, .first = 0, .np = opts->np };
    auth_key_t key;
    if (auth_key_generate(&key) != 0) {
        util_msg("cannot generate the job key: the system has no randomness to give");
        return 1;
    }
    auth_key_to_hex(&key, plan.key);
    /* Placement: which host runs which ranks. */
    plan.where = util_xmalloc((size_t)opts->np * sizeof *plan.where);
    if (opts->mc.nsites)
        placement_place_sites(&opts->hosts, opts->mc.host_site, opts->np, opts->map_by_node,
                              plan.where);
    else
        placement_place(&opts->hosts, opts->np, opts->map_by_node, plan.where);
    plan.mapping = placement_mapping(plan.where, opts->np, PMI_WIRE_VALLEN_MAX - 1);
    plan.nkv = site_layout(opts, plan.where, &plan.kv);
    int status = 1;
    if (plan.nkv < 0)
        util_msg("cannot encode the site layout of the job");  /* not reached: checked input */
    else if (!gateways_wanted(opts) ||
             gateways_plan(opts, plan.where, &plan.gw, &plan.kv, &plan.nkv) == 0)
        status = multihost_exec(opts, &plan);
    gateways_free(opts, &plan.gw);
    if (plan.nkv > 0)
        sitemap_free_kv(plan.kv, plan.nkv);
    free(plan.where);
    free(plan.mapping);
    return status;
}

/* The hosts that run ranks, in host-list order, each with its ranks and its gateway's
 * arguments; and the per-rank tables. */
static void plan_hosts(mh_t *m)
{
    const mpirun_opts_t *opts = m->opts;
    const mh_plan_t *plan = m->plan;
    int np = plan->np;
    const int *where = plan->where;
    int *slot = util_xmalloc((size_t)opts->hosts.n * sizeof *slot);
    /* room for a helper on every host of the list: spawned ranks may start where no rank
     * runs yet (mh_late.c) */
    m->host = util_xmalloc((size_t)opts->hosts.n * sizeof *m->host);
    memset(m->host, 0, (size_t)opts->hosts.n * sizeof *m->host);
    for (int i = 0; i < opts->hosts.n; i++) {
        slot[i] = -1;
        for (int r = 0; r < np && slot[i] < 0; r++)
            if (where[r] == i) {
                slot[i] = m->nhost++;
                mhost_t *h = &m->host[slot[i]];
                h->mh = m;
                h->index = i;
                h->name = opts->hosts.h[i].name;
                h->ranks = util_xmalloc((size_t)np * sizeof *h->ranks);
                if (plan->gw.args) {
                    h->gw_args = plan->gw.args[i];
                    h->ngw_args = plan->gw.nargs[i];
                }
            }
    }
    m->nfirst = m->nhost;
    m->helper_of = slot;   /* host-list entry -> helper, -1: none yet */
    m->host_of = util_xmalloc((size_t)np * sizeof *m->host_of);
    for (int r = 0; r < np; r++) {
        mhost_t *h = &m->host[slot[where[r]]];
        m->host_of[r] = slot[where[r]];
        h->ranks[h->nranks++] = plan->first + r;
    }
    m->pid = calloc((size_t)np, sizeof *m->pid);
    m->departed = calloc((size_t)np, 1);
    m->finalized = calloc((size_t)np, 1);
    if (!m->pid || !m->departed || !m->finalized)
        util_xmalloc((size_t)-1);
    m->out_sink = (iofwd_sink_t){ .fd = STDOUT_FILENO, .tag_output = opts->tag_output,
                                  .name = "stdout" };
    m->err_sink = (iofwd_sink_t){ .fd = STDERR_FILENO, .tag_output = opts->tag_output,
                                  .name = "stderr" };
    /* the job's rank 0 takes mpirun's stdin; a part of a federated job may not have it */
    m->stdin_host = plan->first == 0 ? &m->host[m->host_of[0]] : NULL;
    m->credit = CTL_STDIN_WINDOW;
}

/* Every helper, until the first failure condemns the job. */
static void start_hosts(mh_t *m, const char *hostd_path, const char *cwd)
{
    int nenv;
    char **env = env_settings(m->opts, &nenv);
    /* MPI_UNIVERSE_SIZE: the slots of the host list, at least the job's ranks */
    long slots = hostlist_slots(&m->opts->hosts);
    int universe = slots > m->plan->size ? (slots > MPIRUN_MAX_RANKS ? MPIRUN_MAX_RANKS
                                                                       : (int)slots)
                                         : m->plan->size;
    m->universe = universe;
    int nkv0, nkv;
    char **kv0 = universe_kv(m->plan->kv, m->plan->nkv, universe, &nkv0);
    char **kv = mh_spawn_kv(m->spawn, kv0, nkv0, &nkv);
    universe_kv_free(kv0, nkv0);
    for (int k = 0; k < m->nhost && !m->job.condemned; k++)
        mh_start_host(m, &m->host[k], hostd_path, cwd, m->plan->mapping, env, nenv, kv, nkv);
    if (m->spawn)
        mh_late_keep(m, hostd_path, cwd, env, nenv, kv, nkv);
    universe_kv_free(kv, nkv);
    for (int i = 0; i < nenv; i++)
        free(env[i]);
    free(env);
    for (int k = 0; k < m->nhost; k++)  /* not started because an earlier one failed */
        if (!m->host[k].started)
            m->host[k].lost = 1;
    mh_stdin_update(m);
}

/* Heartbeats, silent helpers, and helpers whose channel ended before DONE. */
static void watch_helpers(mh_t *m, long long now, int *timeout)
{
    int away = hb_round(&m->hb, now); /* mpirun was not running: the silence was its own */
    for (int k = 0; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        if (!mh_live(h))
            continue;
        if (away)
            h->ch.t_in = now;
        hb_beat(&m->hb, &h->ch, now);
        if (h->hello && !h->done && hb_silent(&m->hb, &h->ch, now))
            mh_host_silent(h);
        else
            hb_fold(&m->hb, &h->ch, now, timeout);
    }
    for (int k = 0; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        if (h->t_ended && !h->done && !h->lost) {
            if (now >= h->t_ended + HELPER_STATUS_WAIT_MS)
                mh_report_lost(h);
            else
                job_fold_deadline(timeout, h->t_ended + HELPER_STATUS_WAIT_MS, now);
        }
    }
}

/* A condemned job: the helpers escalate to SIGKILL themselves and give up at the same
 * deadline; one that has not finished its teardown by then is killed. */
static void watch_teardown(mh_t *m, long long now, int *timeout)
{
    if (!m->job.condemned || all_settled(m))
        return;
    long long give_up = m->job.t_condemned + TEARDOWN_GIVE_UP_MS + HELPER_STATUS_WAIT_MS;
    if (now < give_up) {
        job_fold_deadline(timeout, give_up, now);
        return;
    }
    for (int k = 0; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        if (!h->done && !h->lost) {
            util_msg("host %s: the helper did not finish the teardown; killing it", h->name);
            mh_kill_agent(h);
            h->lost = 1;
        }
    }
}

/* Every host settled: the channels are closed, the helpers exit (killed after
 * HELPER_EXIT_WAIT_MS). 1 when the loop is over. */
static int wind_up(mh_t *m, long long now, long long *t_close, int *timeout)
{
    if (!all_settled(m))
        return 0;
    if (!*t_close) {
        *t_close = now;
        mh_stdin_stop(m);
        for (int k = 0; k < m->nhost; k++)
            if (m->host[k].started && !m->host[k].chan_ended)
                chan_close_write(&m->host[k].ch);
    }
    if (all_exited(m))
        return 1;
    if (now >= *t_close + HELPER_EXIT_WAIT_MS) {
        for (int k = 0; k < m->nhost; k++)
            mh_kill_agent(&m->host[k]);
        if (now >= *t_close + 2 * HELPER_EXIT_WAIT_MS)
            return 1;
        job_fold_deadline(timeout, *t_close + 2 * HELPER_EXIT_WAIT_MS, now);
    } else {
        job_fold_deadline(timeout, *t_close + HELPER_EXIT_WAIT_MS, now);
    }
    return 0;
}

static void free_job(mh_t *m)
{
    for (int k = 0; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        if (h->started) {
            chan_close(&h->ch);
            if (ostream_is_open(&h->errs) || h->errs.buf)
                ostream_close(&h->errs);
        }
        agent_argv_free(h->argv);
        free(h->agent_text);
        free(h->ranks);
    }
    teardown_kill_orphans();
    teardown_remove_shm(m->kvsname);
    if (m->stdin_watched)
        ev_unwatch(&m->loop, STDIN_FILENO);
    ev_unwatch(&m->loop, m->sigfd);
    close(m->sigfd);
    ev_free(&m->loop);
    mh_kv_clear(m);
    free(m->kv);
    free(m->host);
    free(m->host_of);
    free(m->helper_of);
    mh_late_free(m);
    free(m->pid);
    free(m->departed);
    free(m->finalized);
}

int multihost_exec(const mpirun_opts_t *opts, const mh_plan_t *plan)
{
    int hostd_err;
    char *hostd_path = agent_hostd_path(&hostd_err);
    if (preflight(opts, hostd_path, hostd_err) != 0) {
        free(hostd_path);
        return 1;
    }
    report_set_ranks(plan->size, plan->first, plan->np);
    mh_t m;
    memset(&m, 0, sizeof m);
    char terr[160];
    if (peer_timeout_read(&m.peer_timeout, terr, sizeof terr) != 0) {
        util_msg("%s", terr);
        free(hostd_path);
        return 1;
    }
    hb_init(&m.hb, m.peer_timeout);
    /* Across sites the control channels to the other sites' helpers cross the WAN: a cut the
     * gateways survive ([wan] outage) must not end the job here first. One limit for every
     * helper: which site mpirun itself is at is not known. */
    if (plan->gw.args) {
        m.silence = mc_outage(&opts->mc);
        hb_allow_silence(&m.hb, m.silence);
    }
    m.opts = opts;
    m.plan = plan;
    snprintf(m.key, sizeof m.key, "%s", plan->key);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) {
        util_msg("cannot determine the working directory: %s", strerror(errno));
        free(hostd_path);
        return 1;
    }
    plan_hosts(&m);

    teardown_become_subreaper();
    teardown_sweep_stale_shm();
    job_make_kvsname(m.kvsname, sizeof m.kvsname);
    job_init(&m.job, terminate, &m);
    ev_init(&m.loop);
    m.sigfd = job_setup_signals();
    if (m.sigfd < 0) {
        util_msg("cannot set up signal handling: %s", strerror(errno));
        return 1;
    }
    ev_watch(&m.loop, m.sigfd, POLLIN, on_signal, &m);
    m.t_start = net_now_ms();
    m.spawn = mh_spawn_new(&m);
    start_hosts(&m, hostd_path, cwd);

    long long t_close = 0;
    for (;;) {
        long long now = net_now_ms();
        int timeout = -1;
        watch_helpers(&m, now, &timeout);
        mh_watch_start(&m, now, &timeout);
        mh_spawn_timers(m.spawn, now, &timeout);
        watch_teardown(&m, now, &timeout);
        if (wind_up(&m, now, &t_close, &timeout))
            break;
        ev_run_once(&m.loop, timeout);
    }
    mh_spawn_free(m.spawn);   /* first: a federated part's link leaves the loop */
    free_job(&m);
    free(hostd_path);
    return m.job.status;
}
