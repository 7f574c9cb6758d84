/*
 * A job on several hosts (--host / --hostfile): one metampi-hostd per host that runs ranks,
 * started through the launch agent (agent.h), driven over its control channel (ctl.h).
 * The policy is job.c's; this file relays events and runs the global parts:
 *   - the PMI barrier: the helpers send their new puts (KVS*, BARRIER_IN); when every host
 *     is in, each gets the union (KVS*, BARRIER_OUT);
 *   - a barrier that waits for a rank that exited without finalizing fails the job (the
 *     helpers only see their own ranks);
 *   - rank output arrives in frames and is written here, with --tag-output prefixes;
 *   - mpirun's stdin goes to rank 0's helper, at most CTL_STDIN_WINDOW bytes unacknowledged;
 *   - a helper whose channel ends before DONE is lost: its agent's exit status, when it comes
 *     within HELPER_STATUS_WAIT_MS, says why; so is one silent for half the peer timeout
 *     (heartbeat.h: its host vanished, or it was stopped);
 *   - the end: every host DONE (or lost, or given up on at the teardown deadline), then the
 *     channels are closed and the helpers exit (they sweep /dev/shm only then, so that no
 *     host sweeps while another host's ranks still run).
 * Invariant: a host's frames are handled in order, and a rank's output precedes its exit.
 */
#include "job.h"

#include "agent.h"
#include "channel.h"
#include "ctl.h"
#include "gateways.h"
#include "evloop.h"
#include "heartbeat.h"
#include "iofwd.h"
#include "placement.h"
#include "runtime/auth.h"
#include "runtime/liveness.h"
#include "runtime/pmi_wire.h"
#include "runtime/sitemap.h"
#include "runtime/tunables.h"
#include "teardown.h"
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
#define AGENT_ERR_KEEP 1024         /* agent stderr kept before HELLO, for the report */

typedef struct mh mh_t;

typedef struct mhost {
    mh_t *mh;
    int index;                /* position in the host list (PMI_process_mapping) */
    const char *name;
    int *ranks;               /* global ranks, ascending */
    int nranks;
    int local;                /* started without agent */
    char **argv;
    char *agent_text;         /* the agent command, for messages */
    agent_t agent;
    int started;              /* the agent runs (pipes valid) */
    chan_t ch;
    iofwd_sink_t errsink;     /* the agent's stderr */
    ostream_t errs;
    char errtext[AGENT_ERR_KEEP];
    int hello, done, lost, in_barrier;
    int chan_ended;
    long long t_ended;        /* the channel ended before DONE */
    char **gw_args;           /* it runs its site's gateway with these arguments */
    int ngw_args;
} mhost_t;

struct mh {
    job_t job;
    ev_loop_t loop;
    int sigfd;
    const mpirun_opts_t *opts;
    const mh_plan_t *plan;
    mhost_t *host;            /* the hosts that run ranks */
    int nhost;
    int *host_of;             /* our rank (global rank - plan->first) -> index into host[] */
    pid_t *pid;               /* per our rank, once it exited */
    unsigned char *departed, *finalized;
    int nbarrier;             /* hosts in the current barrier */
    int ndeparted;
    char **kv;                /* the barrier's union: key, value, ... */
    size_t nkv, capkv;        /* strings */
    iofwd_sink_t out_sink, err_sink;
    mhost_t *stdin_host;      /* rank 0's host */
    int stdin_watched, stdin_done;
    size_t credit;            /* stdin bytes rank 0's helper can still take */
    char kvsname[64];
    char key[AUTH_KEY_HEX + 1];
    int peer_timeout;         /* METAMPI_PEER_TIMEOUT, seconds */
    hb_t hb;
};

/* ---- helpers ------------------------------------------------------------------------- */

static void send_frame_u32(mhost_t *h, uint8_t type, int with_value, uint32_t v)
{
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, type);
    if (with_value)
        ctl_put_u32(b, v);
    ctl_end(b);
    chan_send(&h->ch);
}

static int live(const mhost_t *h)
{
    return h->started && !h->lost && !h->chan_ended;
}

static void kill_agent(mhost_t *h)
{
    if (h->started && !h->agent.reaped)
        kill(-h->agent.pid, SIGKILL);
}

/* "2", "2-3", "0,2,4" */
static void rank_list(const mhost_t *h, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < h->nranks && len + 24 < cap;) {
        int j = i;
        while (j + 1 < h->nranks && h->ranks[j + 1] == h->ranks[j] + 1)
            j++;
        len += (size_t)snprintf(buf + len, cap - len, i ? ",%d" : "%d", h->ranks[i]);
        if (j > i)
            len += (size_t)snprintf(buf + len, cap - len, "-%d", h->ranks[j]);
        i = j + 1;
    }
}

static void describe_status(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, cap, "exit code %d", WEXITSTATUS(status));
}

/* ---- stdin to rank 0's helper -------------------------------------------------------- */

static void stdin_update(mh_t *m);

static void stdin_stop(mh_t *m)
{
    m->stdin_done = 1;
    stdin_update(m);
}

static void on_stdin(void *arg, int fd, short revents)
{
    mh_t *m = arg;
    (void)revents;
    char buf[CTL_STDIN_WINDOW];
    size_t want = m->credit < sizeof buf ? m->credit : sizeof buf;
    ssize_t n = read(fd, buf, want);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    mhost_t *h = m->stdin_host;
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_STDIN);
    if (n > 0)
        ctl_put_data(b, buf, (size_t)n);
    ctl_end(b);
    chan_send(&h->ch);
    if (n > 0) {
        m->credit -= (size_t)n;
        stdin_update(m);
    } else {
        stdin_stop(m);  /* EOF (sent as empty data), or an error such as EIO */
    }
}

static void stdin_update(mh_t *m)
{
    int want = !m->stdin_done && m->stdin_host && live(m->stdin_host) && m->credit > 0;
    if (want && !m->stdin_watched)
        ev_watch(&m->loop, STDIN_FILENO, POLLIN, on_stdin, m);
    else if (!want && m->stdin_watched)
        ev_unwatch(&m->loop, STDIN_FILENO);
    m->stdin_watched = want;
}

/* ---- the PMI barrier across hosts ---------------------------------------------------- */

/* Ranks wait in a barrier that a departed, unfinalized rank can never enter. */
static void check_barrier_reachable(mh_t *m)
{
    if (m->nbarrier == 0)
        return;
    for (int i = 0; i < m->plan->np; i++) {
        if (m->departed[i] && !m->finalized[i]) {
            job_pmi_failed(&m->job, m->plan->first + i, m->host[m->host_of[i]].name, m->pid[i],
                           PMI_FAIL_ABSENT, "");
            return;
        }
    }
}

static void kv_clear(mh_t *m)
{
    for (size_t i = 0; i < m->nkv; i++)
        free(m->kv[i]);
    m->nkv = 0;
}

static void barrier_release(mh_t *m)
{
    for (int k = 0; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        h->in_barrier = 0;
        if (!live(h))
            continue;
        size_t i = 0;
        while (i < m->nkv) {
            size_t bytes = 0, n = 0;
            while (i + n < m->nkv && (n == 0 || bytes < CTL_KVS_CHUNK)) {
                bytes += strlen(m->kv[i + n]) + strlen(m->kv[i + n + 1]) + 10;
                n += 2;
            }
            ctl_buf_t *b = chan_out(&h->ch);
            ctl_begin(b, CTL_KVS);
            ctl_put_strs(b, (const char *const *)m->kv + i, (uint32_t)n);
            ctl_end(b);
            i += n;
        }
        ctl_begin(chan_out(&h->ch), CTL_BARRIER_OUT);
        ctl_end(chan_out(&h->ch));
        chan_send(&h->ch);
    }
    m->nbarrier = 0;
    kv_clear(m);
}

/* Every rank has exited: the gateways have nothing left to carry. */
static void end_gateways(mh_t *m)
{
    for (int k = 0; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        if (h->ngw_args && live(h)) {
            ctl_begin(chan_out(&h->ch), CTL_END);
            ctl_end(chan_out(&h->ch));
            chan_send(&h->ch);
        }
    }
}

/* ---- a helper that broke the protocol or is gone ------------------------------------- */

static void host_gone(mhost_t *h)
{
    h->lost = 1;
    h->in_barrier = 0;
    if (h->mh->stdin_host == h)
        stdin_stop(h->mh);
}

static void protocol_error(mhost_t *h, const char *why)
{
    job_fail(&h->mh->job, 1, 0, "host %s: %s; the helper is stopped", h->name, why);
    host_gone(h);
    chan_close(&h->ch);
    h->chan_ended = 1;
    kill_agent(h);
}

/* Nothing came from the helper for the timeout: its host vanished (power, network) or the
 * helper is stopped. */
static void host_silent(mhost_t *h)
{
    mh_t *m = h->mh;
    char ranks[256];
    rank_list(h, ranks, sizeof ranks);
    job_fail(&m->job, 1, 0, "host %s: no word from its helper for %lld s (the host is down or "
             "unreachable, or the helper was stopped; %s); rank%s %s lost", h->name,
             m->hb.timeout_ms / 1000, LIVENESS_ENV, h->nranks == 1 ? "" : "s", ranks);
    host_gone(h);
    chan_close(&h->ch);
    h->chan_ended = 1;
    kill_agent(h);
}

/* The channel ended before DONE: reported once the agent's status is known (or late). */
static void report_lost(mhost_t *h)
{
    mh_t *m = h->mh;
    char why[128];
    if (h->agent.reaped)
        describe_status(h->agent.status, why, sizeof why);
    else
        snprintf(why, sizeof why, "its channel closed");
    if (h->started)
        ostream_drain(&h->errs);
    if (!h->hello) {
        char *nl;
        while ((nl = strrchr(h->errtext, '\n')) && nl[1] == '\0')
            *nl = '\0';
        const char *last = strrchr(h->errtext, '\n');
        last = last ? last + 1 : h->errtext;
        job_fail(&m->job, 1, 0, "host %s: cannot start the helper with '%s' (%s)%s%s", h->name,
                 h->agent_text, why, *last ? ": " : "", last);
    } else {
        char ranks[256];
        rank_list(h, ranks, sizeof ranks);
        job_fail(&m->job, 1, 0, "host %s: helper lost (%s); rank%s %s lost", h->name, why,
                 h->nranks == 1 ? "" : "s", ranks);
    }
    host_gone(h);
}

/* ---- frames from a helper ------------------------------------------------------------ */

static int rank_here(const mhost_t *h, uint32_t rank)
{
    mh_t *m = h->mh;
    uint32_t i = rank - (uint32_t)m->plan->first;  /* wraps below first */
    return i < (uint32_t)m->plan->np && &m->host[m->host_of[i]] == h;
}

static void on_frame(void *ctx, const ctl_frame_t *f)
{
    mhost_t *h = ctx;
    mh_t *m = h->mh;
    char tmp[32], why[200];
    if (!h->hello && f->type != CTL_HELLO) {
        snprintf(why, sizeof why, "the helper's first frame is %s, not HELLO",
                 ctl_type_name(f->type, tmp, sizeof tmp));
        protocol_error(h, why);
        return;
    }
    uint32_t rank = 0;
    switch (f->type) {
    case CTL_OUTPUT: rank = f->u.output.rank; break;
    case CTL_EXITED: rank = f->u.exited.rank; break;
    case CTL_ABORTED: rank = f->u.aborted.rank; break;
    case CTL_PMI_FAILED: rank = f->u.pmi_failed.rank; break;
    default: break;
    }
    if ((f->type == CTL_OUTPUT || f->type == CTL_EXITED || f->type == CTL_ABORTED ||
         f->type == CTL_PMI_FAILED) && !rank_here(h, rank)) {
        snprintf(why, sizeof why, "%s frame for rank %u, which does not run there",
                 ctl_type_name(f->type, tmp, sizeof tmp), rank);
        protocol_error(h, why);
        return;
    }
    switch (f->type) {
    case CTL_HELLO:
        if (h->hello) {
            protocol_error(h, "a second HELLO frame");
            return;
        }
        h->hello = 1;
        h->errtext[0] = '\0';
        return;
    case CTL_OUTPUT:
        iofwd_sink_write(f->u.output.stream == 1 ? &m->out_sink : &m->err_sink, (int)rank,
                         (const char *)f->u.output.p, f->u.output.len, f->u.output.add_newline);
        return;
    case CTL_EXITED: {
        int i = (int)rank - m->plan->first;
        if (m->departed[i]) {
            snprintf(why, sizeof why, "a second EXITED frame for rank %u", rank);
            protocol_error(h, why);
            return;
        }
        m->departed[i] = 1;
        m->finalized[i] = f->u.exited.finalized;
        m->pid[i] = (pid_t)f->u.exited.pid;
        if (rank == 0)
            stdin_stop(m);
        job_rank_exited(&m->job, (int)rank, h->name, (pid_t)f->u.exited.pid,
                        f->u.exited.status, f->u.exited.inited, f->u.exited.finalized);
        check_barrier_reachable(m);
        if (++m->ndeparted == m->plan->np)
            end_gateways(m);
        return;
    }
    case CTL_ABORTED:
        job_rank_aborted(&m->job, (int)rank, h->name, (pid_t)f->u.aborted.pid,
                         f->u.aborted.exitcode, f->u.aborted.has_msg ? f->u.aborted.msg : NULL);
        return;
    case CTL_PMI_FAILED:
        job_pmi_failed(&m->job, (int)rank, h->name, (pid_t)f->u.pmi_failed.pid,
                       (enum pmi_fail_kind)f->u.pmi_failed.kind, f->u.pmi_failed.detail);
        return;
    case CTL_FAIL:
        job_fail(&m->job, (int)f->u.fail.status, 0, "host %s: %s", h->name, f->u.fail.text);
        return;
    case CTL_NOTE:
        util_msg("host %s: %s", h->name, f->u.text);
        return;
    case CTL_REPORT:
        util_write_all(STDERR_FILENO, f->u.text, strlen(f->u.text));
        return;
    case CTL_KVS: {
        if (h->in_barrier) {
            protocol_error(h, "key-value pairs after BARRIER_IN");
            return;
        }
        ctl_strs_t kv = f->u.kv;
        if (m->nkv + kv.n > m->capkv) {
            m->capkv = 2 * (m->nkv + kv.n) + 64;
            m->kv = util_xrealloc(m->kv, m->capkv * sizeof *m->kv);
        }
        for (uint32_t i = 0; i < f->u.kv.n; i++) {
            const char *s = ctl_strs_next(&kv);
            if ((i % 2 == 0 && !pmi_wire_valid_key(s)) || (i % 2 && !pmi_wire_valid_value(s))) {
                protocol_error(h, "an invalid key or value in a KVS frame");
                return;
            }
            m->kv[m->nkv++] = util_xstrdup(s);
        }
        return;
    }
    case CTL_BARRIER_IN:
        if (h->in_barrier) {
            protocol_error(h, "a second BARRIER_IN before BARRIER_OUT");
            return;
        }
        h->in_barrier = 1;
        if (++m->nbarrier == m->nhost)
            barrier_release(m);
        else
            check_barrier_reachable(m);
        return;
    case CTL_STDIN_ACK:
        if (m->stdin_host != h || m->credit + f->u.n > CTL_STDIN_WINDOW) {
            protocol_error(h, "acknowledged stdin it was not sent");
            return;
        }
        m->credit += f->u.n;
        stdin_update(m);
        return;
    case CTL_STDIN_CLOSED:
        if (m->stdin_host == h)
            stdin_stop(m);
        return;
    case CTL_DONE:
        h->done = 1;
        h->in_barrier = 0;
        return;
    case CTL_BEAT:
        return;
    default:
        snprintf(why, sizeof why, "unexpected %s frame from the helper",
                 ctl_type_name(f->type, tmp, sizeof tmp));
        protocol_error(h, why);
    }
}

static void on_chan_closed(void *ctx, const char *why)
{
    mhost_t *h = ctx;
    h->chan_ended = 1;
    if (h->done || h->lost)
        return;
    if (why) {
        job_fail(&h->mh->job, 1, 0, "host %s: %s; the helper is stopped", h->name, why);
        host_gone(h);
        kill_agent(h);
        return;
    }
    h->t_ended = util_now_ms();
    if (h->agent.reaped)
        report_lost(h);
    if (h->mh->stdin_host == h)
        stdin_stop(h->mh);
}

/* Agent stderr: kept for the report until the helper said HELLO, then passed through. */
static void on_agent_err(void *ctx, const iofwd_sink_t *sink, int rank, const char *data,
                         size_t len, int add_newline)
{
    mhost_t *h = ctx;
    (void)sink;
    (void)rank;
    if (h->hello) {
        util_write_all(STDERR_FILENO, data, len);
        if (add_newline)
            util_write_all(STDERR_FILENO, "\n", 1);
        return;
    }
    size_t have = strlen(h->errtext);
    if (have + len + 2 > sizeof h->errtext) {  /* keep the latest text */
        have = 0;
        if (len > sizeof h->errtext - 2) {
            data += len - (sizeof h->errtext - 2);
            len = sizeof h->errtext - 2;
        }
    }
    memcpy(h->errtext + have, data, len);
    h->errtext[have + len] = '\0';
}

/* ---- the job ------------------------------------------------------------------------- */

static void terminate(void *ctx, int sig)
{
    mh_t *m = ctx;
    stdin_stop(m);
    for (int k = 0; k < m->nhost; k++)
        if (live(&m->host[k]) && !m->host[k].done)
            send_frame_u32(&m->host[k], CTL_KILL, 1, (uint32_t)sig);
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
                    h->t_ended = util_now_ms();  /* someone else holds the pipe */
                else
                    report_lost(h);
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

/* The JOB frame of host h. */
static void send_job(mh_t *m, mhost_t *h, const char *prog_cwd, const char *mapping,
                     char **env, int nenv, char **kv, int nkv)
{
    const mpirun_opts_t *o = m->opts;
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_KEY);
    ctl_put_str(b, m->key);
    ctl_end(b);
    ctl_begin(b, CTL_JOB);
    ctl_put_str(b, prog_cwd);
    ctl_put_str(b, o->prog_argv[0]);
    uint32_t argc = 0;
    while (o->prog_argv[argc])
        argc++;
    ctl_put_strs(b, (const char *const *)o->prog_argv, argc);
    ctl_put_strs(b, (const char *const *)env, (uint32_t)nenv);
    ctl_put_u32(b, (uint32_t)m->plan->size);
    ctl_put_u32(b, (uint32_t)h->index);
    ctl_put_u32(b, (uint32_t)o->hosts.n);
    for (int i = 0; i < o->hosts.n; i++)
        ctl_put_str(b, o->hosts.h[i].name);
    ctl_put_u32(b, (uint32_t)h->nranks);
    for (int i = 0; i < h->nranks; i++)
        ctl_put_u32(b, (uint32_t)h->ranks[i]);
    ctl_put_str(b, m->kvsname);
    ctl_put_str(b, mapping);
    ctl_put_strs(b, (const char *const *)kv, (uint32_t)(2 * nkv));
    ctl_put_strs(b, (const char *const *)h->gw_args, (uint32_t)h->ngw_args);
    ctl_put_u8(b, (uint8_t)o->bind);
    ctl_put_u8(b, (uint8_t)!!o->oversubscribe);
    ctl_put_u8(b, (uint8_t)!!o->report_bindings);
    ctl_put_u32(b, (uint32_t)m->peer_timeout);
    if (ctl_end(b) != 0) {
        job_fail(&m->job, 1, 1, "host %s: the job description exceeds %u bytes (too many "
                 "arguments or -x settings)", h->name, CTL_MAX_FRAME);
        return;
    }
    chan_send(&h->ch);
}

/* Starts host h's helper; a failure condemns the job. */
static void start_host(mh_t *m, mhost_t *h, const char *hostd_path, const char *cwd,
                       const char *mapping, char **env, int nenv, char **kv, int nkv)
{
    h->local = agent_is_local(h->name);
    h->argv = agent_argv(m->opts->launch_agent, h->name, hostd_path, h->local);
    h->agent_text = agent_describe(h->argv, h->local);
    spawn_err_t why;
    if (agent_start(&h->agent, h->argv, &why) != 0) {
        if (h->local)
            job_fail(&m->job, 1, 1, "host %s: cannot start the helper '%s': %s", h->name,
                     hostd_path, strerror(why.err));
        else
            job_fail(&m->job, 1, 1, "host %s: cannot start the launch agent '%s': %s", h->name,
                     h->agent_text, strerror(why.err));
        h->lost = 1;
        return;
    }
    h->started = 1;
    chan_ops_t ops = { .frame = on_frame, .closed = on_chan_closed };
    chan_open(&h->ch, &m->loop, h->agent.from_fd, h->agent.to_fd, 0, &ops, h);
    h->errsink = (iofwd_sink_t){ .fd = -1, .name = "agent", .emit = on_agent_err,
                                 .emit_ctx = h };
    ostream_open(&h->errs, &m->loop, &h->errsink, h->index, h->agent.err_fd);
    send_job(m, h, cwd, mapping, env, nenv, kv, nkv);
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

int multihost_exec(const mpirun_opts_t *opts, const mh_plan_t *plan)
{
    int hostd_err;
    char *hostd_path = agent_hostd_path(&hostd_err);
    if (preflight(opts, hostd_path, hostd_err) != 0) {
        free(hostd_path);
        return 1;
    }
    mh_t m;
    memset(&m, 0, sizeof m);
    char terr[160];
    if (liveness_timeout(&m.peer_timeout, terr, sizeof terr) != 0) {
        util_msg("%s", terr);
        free(hostd_path);
        return 1;
    }
    hb_init(&m.hb, m.peer_timeout);
    m.opts = opts;
    m.plan = plan;
    snprintf(m.key, sizeof m.key, "%s", plan->key);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) {
        util_msg("cannot determine the working directory: %s", strerror(errno));
        free(hostd_path);
        return 1;
    }
    int np = plan->np;
    const int *where = plan->where;
    int *slot = util_xmalloc((size_t)opts->hosts.n * sizeof *slot);
    m.host = util_xmalloc((size_t)opts->hosts.n * sizeof *m.host);
    memset(m.host, 0, (size_t)opts->hosts.n * sizeof *m.host);
    for (int i = 0; i < opts->hosts.n; i++) {
        slot[i] = -1;
        for (int r = 0; r < np && slot[i] < 0; r++)
            if (where[r] == i) {
                slot[i] = m.nhost++;
                mhost_t *h = &m.host[slot[i]];
                h->mh = &m;
                h->index = i;
                h->name = opts->hosts.h[i].name;
                h->ranks = util_xmalloc((size_t)np * sizeof *h->ranks);
                if (plan->gw.args) {
                    h->gw_args = plan->gw.args[i];
                    h->ngw_args = plan->gw.nargs[i];
                }
            }
    }
    m.host_of = util_xmalloc((size_t)np * sizeof *m.host_of);
    for (int r = 0; r < np; r++) {
        mhost_t *h = &m.host[slot[where[r]]];
        m.host_of[r] = slot[where[r]];
        h->ranks[h->nranks++] = plan->first + r;
    }
    free(slot);
    m.pid = calloc((size_t)np, sizeof *m.pid);
    m.departed = calloc((size_t)np, 1);
    m.finalized = calloc((size_t)np, 1);
    if (!m.pid || !m.departed || !m.finalized)
        util_xmalloc((size_t)-1);
    m.out_sink = (iofwd_sink_t){ .fd = STDOUT_FILENO, .tag_output = opts->tag_output,
                                 .name = "stdout" };
    m.err_sink = (iofwd_sink_t){ .fd = STDERR_FILENO, .tag_output = opts->tag_output,
                                 .name = "stderr" };
    /* the job's rank 0 takes mpirun's stdin; a part of a federated job may not have it */
    m.stdin_host = plan->first == 0 ? &m.host[m.host_of[0]] : NULL;
    m.credit = CTL_STDIN_WINDOW;

    teardown_become_subreaper();
    job_make_kvsname(m.kvsname, sizeof m.kvsname);
    job_init(&m.job, terminate, &m);
    ev_init(&m.loop);
    m.sigfd = job_setup_signals();
    if (m.sigfd < 0) {
        util_msg("cannot set up signal handling: %s", strerror(errno));
        return 1;
    }
    ev_watch(&m.loop, m.sigfd, POLLIN, on_signal, &m);

    int nenv;
    char **env = env_settings(opts, &nenv);
    for (int k = 0; k < m.nhost && !m.job.condemned; k++)
        start_host(&m, &m.host[k], hostd_path, cwd, plan->mapping, env, nenv, plan->kv,
                   plan->nkv);
    for (int i = 0; i < nenv; i++)
        free(env[i]);
    free(env);
    for (int k = 0; k < m.nhost; k++)  /* not started because an earlier one failed */
        if (!m.host[k].started)
            m.host[k].lost = 1;
    stdin_update(&m);

    long long t_close = 0;
    for (;;) {
        long long now = util_now_ms();
        int timeout = -1;
        int away = hb_round(&m.hb, now); /* mpirun was not running: the silence was its own */
        for (int k = 0; k < m.nhost; k++) {
            mhost_t *h = &m.host[k];
            if (!live(h))
                continue;
            if (away)
                h->ch.t_in = now;
            hb_beat(&m.hb, &h->ch, now);
            if (h->hello && !h->done && hb_silent(&m.hb, &h->ch, now))
                host_silent(h);
            else
                hb_fold(&m.hb, &h->ch, now, &timeout);
        }
        for (int k = 0; k < m.nhost; k++) {
            mhost_t *h = &m.host[k];
            if (h->t_ended && !h->done && !h->lost) {
                if (now >= h->t_ended + HELPER_STATUS_WAIT_MS)
                    report_lost(h);
                else
                    job_fold_deadline(&timeout, h->t_ended + HELPER_STATUS_WAIT_MS, now);
            }
        }
        if (m.job.condemned && !all_settled(&m)) {
            /* the helpers escalate to SIGKILL themselves and give up at the same deadline */
            long long give_up = m.job.t_condemned + TEARDOWN_GIVE_UP_MS + HELPER_STATUS_WAIT_MS;
            if (now >= give_up) {
                for (int k = 0; k < m.nhost; k++) {
                    mhost_t *h = &m.host[k];
                    if (!h->done && !h->lost) {
                        util_msg("host %s: the helper did not finish the teardown; killing it",
                                 h->name);
                        kill_agent(h);
                        h->lost = 1;
                    }
                }
            } else {
                job_fold_deadline(&timeout, give_up, now);
            }
        }
        if (all_settled(&m)) {
            if (!t_close) {
                t_close = now;
                stdin_stop(&m);
                for (int k = 0; k < m.nhost; k++)
                    if (m.host[k].started && !m.host[k].chan_ended)
                        chan_close_write(&m.host[k].ch);
            }
            if (all_exited(&m))
                break;
            if (now >= t_close + HELPER_EXIT_WAIT_MS) {
                for (int k = 0; k < m.nhost; k++)
                    kill_agent(&m.host[k]);
                if (now >= t_close + 2 * HELPER_EXIT_WAIT_MS)
                    break;
                job_fold_deadline(&timeout, t_close + 2 * HELPER_EXIT_WAIT_MS, now);
            } else {
                job_fold_deadline(&timeout, t_close + HELPER_EXIT_WAIT_MS, now);
            }
        }
        ev_run_once(&m.loop, timeout);
    }

    for (int k = 0; k < m.nhost; k++) {
        mhost_t *h = &m.host[k];
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
    teardown_remove_shm(m.kvsname);
    if (m.stdin_watched)
        ev_unwatch(&m.loop, STDIN_FILENO);
    ev_unwatch(&m.loop, m.sigfd);
    close(m.sigfd);
    ev_free(&m.loop);
    kv_clear(&m);
    free(m.kv);
    free(m.host);
    free(m.host_of);
    free(m.pid);
    free(m.departed);
    free(m.finalized);
    free(hostd_path);
    return m.job.status;
}
