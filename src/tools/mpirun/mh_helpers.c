/*
 * The helpers of a job on several hosts, as mpirun sees them: each started through the launch
 * agent (agent.h) with its JOB frame; its channel (channel.h) and its agent's stderr (kept for
 * the report until HELLO, then passed through); stdin to rank 0's helper, at most
 * CTL_STDIN_WINDOW bytes unacknowledged; and the ways a helper is lost: a protocol error, a
 * channel that ends before DONE (its agent's exit status, when it comes within
 * HELPER_STATUS_WAIT_MS, says why), or silence for half the peer timeout (heartbeat.h: its host
 * vanished, or it was stopped).
 */
#include "mh_int.h"

#include "exec_prefix.h"

#include "ctl.h"
#include "net/clock.h"
#include "net/liveness.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void mh_send_frame_u32(mhost_t *h, uint8_t type, int with_value, uint32_t v)
{
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, type);
    if (with_value)
        ctl_put_u32(b, v);
    ctl_end(b);
    chan_send(&h->ch);
}

int mh_live(const mhost_t *h)
{
    return h->started && !h->lost && !h->chan_ended;
}

void mh_kill_agent(mhost_t *h)
{
    if (h->started && !h->agent.reaped)
        kill(-h->agent.pid, SIGKILL);
}

/* "2", "2-3", "0,2,4" */
void mh_rank_list(const mhost_t *h, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    if (h->nranks == 0)   /* a helper started for spawned ranks (mh_late.c) */
        snprintf(buf, cap, "spawned by MPI_Comm_spawn");
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


void mh_stdin_stop(mh_t *m)
{
    m->stdin_done = 1;
    mh_stdin_update(m);
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
        mh_stdin_update(m);
    } else {
        mh_stdin_stop(m);  /* EOF (sent as empty data), or an error such as EIO */
    }
}

void mh_stdin_update(mh_t *m)
{
    int want = !m->stdin_done && m->stdin_host && mh_live(m->stdin_host) && m->credit > 0;
    if (want && !m->stdin_watched)
        ev_watch(&m->loop, STDIN_FILENO, POLLIN, on_stdin, m);
    else if (!want && m->stdin_watched)
        ev_unwatch(&m->loop, STDIN_FILENO);
    m->stdin_watched = want;
}

/* ---- a helper that broke the protocol or is gone ------------------------------------- */

static void host_gone(mhost_t *h)
{
    h->lost = 1;
    h->in_barrier = 0;
    if (h->mh->stdin_host == h)
        mh_stdin_stop(h->mh);
}

void mh_protocol_error(mhost_t *h, const char *why)
{
    job_fail(&h->mh->job, 1, 0, "host %s: %s; the helper is stopped", h->name, why);
    host_gone(h);
    chan_close(&h->ch);
    h->chan_ended = 1;
    mh_kill_agent(h);
}

/* Nothing came from the helper for the timeout: its host vanished (power, network) or the
 * helper is stopped. */
void mh_host_silent(mhost_t *h)
{
    mh_t *m = h->mh;
    char ranks[256];
    mh_rank_list(h, ranks, sizeof ranks);
    job_fail(&m->job, 1, 0, "host %s: no word from its helper for %lld s (the host is down or "
             "unreachable, or the helper was stopped; %s); rank%s %s lost", h->name,
             m->hb.timeout_ms / 1000, LIVENESS_ENV, h->nranks == 1 ? "" : "s", ranks);
    host_gone(h);
    chan_close(&h->ch);
    h->chan_ended = 1;
    mh_kill_agent(h);
}

/* The channel ended before DONE: reported once the agent's status is known (or late). */
void mh_report_lost(mhost_t *h)
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
        mh_rank_list(h, ranks, sizeof ranks);
        job_fail(&m->job, 1, 0, "host %s: helper lost (%s); rank%s %s lost", h->name, why,
                 h->nranks == 1 ? "" : "s", ranks);
    }
    host_gone(h);
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
        mh_kill_agent(h);
        return;
    }
    h->t_ended = net_now_ms();
    if (h->agent.reaped)
        mh_report_lost(h);
    if (h->mh->stdin_host == h)
        mh_stdin_stop(h->mh);
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

/* ---- starting a helper ----------------------------------------------------------------- */

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
    /* a site's exec_prefix replaces mpirun's for the ranks of its hosts */
    const char *site_prefix = NULL;
    if (o->mc.nsites && o->rendezvous)
        site_prefix = o->mc.site[o->site].exec_prefix;
    else if (o->mc.nsites && h->index < o->hosts.n)
        site_prefix = o->mc.site[o->mc.host_site[h->index]].exec_prefix;
    char **argv = site_prefix ? exec_prefix_argv(site_prefix, o->user_argv) : o->prog_argv;
    ctl_put_str(b, argv[0]);
    uint32_t argc = 0;
    while (argv[argc])
        argc++;
    ctl_put_strs(b, (const char *const *)argv, argc);
    if (argv != o->prog_argv)
        free(argv);
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
    ctl_put_u32(b, (uint32_t)m->silence);
    if (ctl_end(b) != 0) {
        job_fail(&m->job, 1, 1, "host %s: the job description exceeds %u bytes (too many "
                 "arguments or -x settings)", h->name, CTL_MAX_FRAME);
        return;
    }
    chan_send(&h->ch);
}

/* Starts host h's helper; a failure condemns the job. */
void mh_start_host(mh_t *m, mhost_t *h, const char *hostd_path, const char *cwd,
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
    chan_ops_t ops = { .frame = mh_on_frame, .closed = on_chan_closed };
    chan_open(&h->ch, &m->loop, h->agent.from_fd, h->agent.to_fd, 0, &ops, h);
    h->errsink = (iofwd_sink_t){ .fd = -1, .name = "agent", .emit = on_agent_err,
                                 .emit_ctx = h };
    ostream_open(&h->errs, &m->loop, &h->errsink, h->index, h->agent.err_fd);
    send_job(m, h, cwd, mapping, env, nenv, kv, nkv);
}

