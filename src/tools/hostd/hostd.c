#include "hostd.h"
#include "hostd_parts.h"

#include "channel.h"
#include "ctl.h"
#include "evloop.h"
#include "gwgrow.h"
#include "gwproc.h"
#include "heartbeat.h"
#include "hostpolicy.h"
#include "jobenv.h"
#include "node.h"
#include "spawn.h"
#include "teardown.h"
#include "universe.h"
#include "util.h"
#include "net/fdlimit.h"

#include "net/auth.h"
#include "runtime/rank_key.h"
#include "net/clock.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct hostd {
    ev_loop_t loop;
    chan_t ch;
    int sigfd;
    const char *host_arg;
    char key[CTL_KEY_HEX + 1];   /* empty until KEY */
    int have_job;
    int started;                 /* node initialised (ranks spawned or tried) */
    int failed;                  /* setup failed: no rank runs here */
    int mpirun_gone;             /* the channel's input ended */
    int protocol_error;          /* mpirun broke the protocol: exit 1 */
    int done_sent;
    int ended;                   /* END came: every rank of the job has exited */
    /* the job */
    char *host, *kvsname, *mapping, *path, *prog;
    char **argv;
    int argc;
    int *global;
    int nranks;
    char *env_extra[2];
    jobenv_t env;
    hostpolicy_t hp;
    node_t node;
    int barrier_wait;            /* our ranks are in a barrier, waiting for BARRIER_OUT */
    gwproc_t gw;                 /* the site gateway, when this host runs it */
    gwgrow_t gwgrow;             /* ... and what it learns of spawned ranks (gwgrow.h) */
    hostd_parts_t parts;         /* ranks started by MPI_Comm_spawn (hostd_parts.h) */
    hb_t hb;                     /* heartbeats with mpirun, from JOB on */
    /* teardown */
    int condemned, kill_sent;
    long long t_condemned, t_drain;
} hostd_t;

static hostd_t *the_hostd;   /* for the util_msg hook */

/* ---- frames to mpirun ------------------------------------------------------------- */

static void send_text(hostd_t *h, uint8_t type, const char *text)
{
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, type);
    ctl_put_str(b, text);
    ctl_end(b);
    chan_send(&h->ch);
}

static void send_empty(hostd_t *h, uint8_t type)
{
    ctl_begin(chan_out(&h->ch), type);
    ctl_end(chan_out(&h->ch));
    chan_send(&h->ch);
}

/* util_msg in the shared code (binding warnings): a NOTE for mpirun to print. */
static void msg_hook(const char *text)
{
    send_text(the_hostd, CTL_NOTE, text);
}

static void send_fail(hostd_t *h, int status, const char *text)
{
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_FAIL);
    ctl_put_u32(b, (uint32_t)status);
    ctl_put_str(b, text);
    ctl_end(b);
    chan_send(&h->ch);
}

/* ---- teardown ----------------------------------------------------------------------- */

static void condemn(hostd_t *h, int sig)
{
    if (h->started)
        node_close_stdin(&h->node);
    if (!h->condemned) {
        h->condemned = 1;
        h->t_condemned = net_now_ms();
    } else if (sig != SIGKILL) {
        return;
    }
    if (sig == SIGKILL)
        h->kill_sent = 1;
    if (h->started)
        node_signal(&h->node, sig);
    hostd_parts_signal(&h->parts, sig);
    /* A failed job's gateway is killed, not ended (SIGTERM would say BYE on its links): the
     * other sites' gateways must see a lost link, not an end on purpose. In a federated job
     * (mpirun --rendezvous) that is how the other sites' parts learn that this one failed;
     * they would otherwise wait for ever for its ranks. */
    gwproc_signal(&h->gw, SIGKILL);
}

/* mpirun is silent (its host vanished, or it was stopped) or does not read: as on EOF. */
static void mpirun_lost(hostd_t *h, const char *why)
{
    char line[600];
    int n = snprintf(line, sizeof line, "metampi-hostd (host %s): %s; ending this host's part "
                     "of the job\n", h->host ? h->host : h->host_arg, why);
    util_write_all(STDERR_FILENO, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
    h->mpirun_gone = 1;
    chan_close(&h->ch);
    condemn(h, SIGTERM);
}

/* mpirun broke the protocol: nothing it says can be trusted any more. */
static void protocol_error(hostd_t *h, const char *why)
{
    char line[600];
    int n = snprintf(line, sizeof line, "metampi-hostd (host %s): %s; ending this host's part "
                     "of the job\n", h->host ? h->host : h->host_arg, why);
    util_write_all(STDERR_FILENO, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
    h->protocol_error = 1;
    h->mpirun_gone = 1;
    chan_close(&h->ch);
    condemn(h, SIGKILL);
}

/* ---- node events -> frames ---------------------------------------------------------- */

/* The send_* take a job-wide rank (node 0's ranks and the parts' alike). */
static void send_exited(void *ctx, int rank, pid_t pid, int status, int inited, int finalized)
{
    hostd_t *h = ctx;
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_EXITED);
    ctl_put_u32(b, (uint32_t)rank);
    ctl_put_u32(b, (uint32_t)pid);
    ctl_put_u32(b, (uint32_t)status);
    ctl_put_u8(b, (uint8_t)!!inited);
    ctl_put_u8(b, (uint8_t)!!finalized);
    ctl_end(b);
    chan_send(&h->ch);
}

static void send_aborted(void *ctx, int rank, pid_t pid, int exitcode, const char *msg)
{
    hostd_t *h = ctx;
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_ABORTED);
    ctl_put_u32(b, (uint32_t)rank);
    ctl_put_u32(b, (uint32_t)pid);
    ctl_put_u32(b, (uint32_t)exitcode);
    ctl_put_u8(b, msg != NULL);
    ctl_put_str(b, msg ? msg : "");
    ctl_end(b);
    chan_send(&h->ch);
}

static void send_pmi_failed(void *ctx, int rank, pid_t pid, enum pmi_fail_kind kind,
                            const char *detail)
{
    hostd_t *h = ctx;
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_PMI_FAILED);
    ctl_put_u32(b, (uint32_t)rank);
    ctl_put_u32(b, (uint32_t)pid);
    ctl_put_u8(b, (uint8_t)kind);
    ctl_put_str(b, detail);
    ctl_end(b);
    chan_send(&h->ch);
}

static void on_exited(void *ctx, int i, pid_t pid, int status, int inited, int finalized)
{
    send_exited(ctx, ((hostd_t *)ctx)->global[i], pid, status, inited, finalized);
}

static void on_aborted(void *ctx, int i, pid_t pid, int exitcode, const char *msg)
{
    send_aborted(ctx, ((hostd_t *)ctx)->global[i], pid, exitcode, msg);
}

static void on_pmi_failed(void *ctx, int i, pid_t pid, enum pmi_fail_kind kind,
                          const char *detail)
{
    send_pmi_failed(ctx, ((hostd_t *)ctx)->global[i], pid, kind, detail);
}

static void on_bind_refused(void *ctx, int i, pid_t pid, int err)
{
    hostd_t *h = ctx;
    (void)pid;
    hostpolicy_bind_refused(&h->hp, &h->node, i, err);
}

/* All local ranks are in the barrier: our new puts go to mpirun in chunks, then BARRIER_IN. */
static void on_barrier(void *ctx, const char *const *kv, size_t nkv)
{
    hostd_t *h = ctx;
    size_t i = 0;
    while (i < nkv) {
        size_t bytes = 0, n = 0;
        while (i + n < nkv && (n == 0 || bytes < CTL_KVS_CHUNK)) {
            bytes += strlen(kv[2 * (i + n)]) + strlen(kv[2 * (i + n) + 1]) + 10;
            n++;
        }
        ctl_buf_t *b = chan_out(&h->ch);
        ctl_begin(b, CTL_KVS);
        ctl_put_strs(b, kv + 2 * i, (uint32_t)(2 * n));
        ctl_end(b);
        i += n;
    }
    ctl_begin(chan_out(&h->ch), CTL_BARRIER_IN);
    ctl_end(chan_out(&h->ch));
    chan_send(&h->ch);
    h->barrier_wait = 1;
}

/* The site gateway ended: a failure before END or the teardown is reported like a rank's. */
static void on_other_exited(void *ctx, pid_t pid, int status)
{
    hostd_t *h = ctx;
    if (hostd_parts_take_exit(&h->parts, pid, status))
        return;
    if (pid != h->gw.pid || h->gw.reaped)
        return;
    char text[1100], *stats;
    gwgrow_stop(&h->gwgrow);
    if (gwproc_exited(&h->gw, status, h->host, text, sizeof text, &stats) && !h->condemned)
        send_fail(h, 1, text);
    if (stats && !h->mpirun_gone)
        send_text(h, CTL_STATS, stats); /* before DONE: ranks_over waits for the gateway */
    free(stats);
}

static void on_stdin_consumed(void *ctx, size_t n)
{
    hostd_t *h = ctx;
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_STDIN_ACK);
    ctl_put_u32(b, (uint32_t)n);
    ctl_end(b);
    chan_send(&h->ch);
}

static void on_stdin_closed(void *ctx)
{
    send_empty(ctx, CTL_STDIN_CLOSED);
}

static void emit_output(void *ctx, const iofwd_sink_t *sink, int rank, const char *data,
                        size_t len, int add_newline)
{
    hostd_t *h = ctx;
    ctl_buf_t *b = chan_out(&h->ch);
    ctl_begin(b, CTL_OUTPUT);
    ctl_put_u8(b, strcmp(sink->name, "stdout") == 0 ? 1 : 2);
    ctl_put_u8(b, (uint8_t)!!add_newline);
    ctl_put_u32(b, (uint32_t)rank);
    ctl_put_data(b, data, len);
    ctl_end(b);
    chan_send(&h->ch);
}

/* Node 0's spawn requests, questions and puts go to mpirun (hostd_parts.h). */
static void on_spawn(void *ctx, int rank, pmi_spawn_req_t *req)
{
    hostd_parts_spawn(&((hostd_t *)ctx)->parts, 0, rank, req);
}

static void on_ask(void *ctx, int rank, const char *line)
{
    hostd_parts_ask(&((hostd_t *)ctx)->parts, 0, rank, line);
}

static void on_put(void *ctx, const char *key, const char *value)
{
    hostd_parts_put(&((hostd_t *)ctx)->parts, 0, key, value);
}

/* ---- the job ------------------------------------------------------------------------ */

static char *copy_strs(ctl_strs_t s, uint32_t i)
{
    const char *v = "";
    for (uint32_t k = 0; k <= i; k++)
        v = ctl_strs_next(&s);
    return util_xstrdup(v);
}

/* mpirun lets the job spawn (and so answers PARTS frames): metampi.spawn in its pairs. */
static int may_spawn(const ctl_job_t *j)
{
    ctl_strs_t kv = j->kvs;
    for (uint32_t i = 0; i < j->kvs.n; i += 2) {
        const char *k = ctl_strs_next(&kv);
        ctl_strs_next(&kv);
        if (strcmp(k, "metampi.spawn") == 0)
            return 1;
    }
    return 0;
}

/* Sets up and starts this host's ranks; a failure becomes one FAIL frame. */
static void start_job(hostd_t *h, const ctl_job_t *j)
{
    h->have_job = 1;
    h->host = copy_strs(j->hosts, j->host);
    h->kvsname = util_xstrdup(j->kvsname);
    h->mapping = util_xstrdup(j->mapping);
    h->prog = util_xstrdup(j->prog);
    h->argc = (int)j->argv.n;
    h->argv = util_xmalloc((size_t)(h->argc + 1) * sizeof *h->argv);
    ctl_strs_t a = j->argv;
    for (int i = 0; i < h->argc; i++)
        h->argv[i] = util_xstrdup(ctl_strs_next(&a));
    h->argv[h->argc] = NULL;
    h->nranks = (int)j->ranks.n;
    h->global = util_xmalloc((size_t)h->nranks * sizeof *h->global);
    for (int i = 0; i < h->nranks; i++)
        h->global[i] = (int)ctl_u32s_at(&j->ranks, (uint32_t)i);
    jobenv_init(&h->env, 1);
    ctl_strs_t e = j->env;
    for (uint32_t i = 0; i < j->env.n; i++)
        jobenv_add(&h->env, ctl_strs_next(&e));
    /* the ranks get only their own key, derived from the job key (net/auth.h) */
    auth_key_t job_key, ranks = { { 0 } };
    char ranks_hex[AUTH_KEY_HEX + 1];
    int derived = auth_key_from_hex(h->key, &job_key) == 0 &&
                  auth_derive(&job_key, AUTH_RANKS, &ranks) == 0;
    auth_key_to_hex(&ranks, ranks_hex);
    size_t kl = strlen(RANK_KEY_ENV "=") + AUTH_KEY_HEX + 1;
    h->env_extra[0] = util_xmalloc(kl);
    snprintf(h->env_extra[0], kl, RANK_KEY_ENV "=%s", ranks_hex);
    h->env_extra[1] = util_xmalloc(strlen(h->host) + 32);
    sprintf(h->env_extra[1], "METAMPI_HOSTNAME=%s", h->host);

    char text[1024];
    if (!derived) {
        send_fail(h, 1, "cannot derive the ranks' key from the job key (libcrypto)");
        h->failed = 1;
        return;
    }
    if (chdir(j->cwd) != 0) {
        snprintf(text, sizeof text, "cannot change to mpirun's working directory '%s': %s",
                 j->cwd, strerror(errno));
        send_fail(h, 1, text);
        h->failed = 1;
        return;
    }
    /* a helper for spawned ranks only does not run the job's program */
    int e2 = h->nranks ? spawn_resolve(h->prog, &h->path) : 0;
    if (!h->path)
        h->path = util_xstrdup(h->prog);
    if (e2) {
        snprintf(text, sizeof text, "cannot execute '%s': %s", h->prog, strerror(e2));
        send_fail(h, 127, text);
        h->failed = 1;
        return;
    }
    if (hostpolicy_bind(&h->hp, (mpirun_bind_t)j->bind, h->nranks, j->oversubscribe, text,
                        sizeof text) != 0) {
        send_fail(h, 1, text);
        h->failed = 1;
        return;
    }
    if (j->report_bindings) {
        char *report = hostpolicy_report(&h->hp, h->nranks, h->global, h->host, getpid());
        send_text(h, CTL_REPORT, report);
        free(report);
    }
    node_spec_t spec = { .nranks = h->nranks, .size = (int)j->size, .global = h->global,
                         .path = h->path, .argv = h->argv, .env = &h->env,
                         .env_extra = (const char *const *)h->env_extra, .nenv_extra = 2,
                         .kvsname = h->kvsname, .mapping = h->mapping,
                         .stdin_fd = NODE_STDIN_PUSHED, .stdout_fd = -1, .stderr_fd = -1,
                         .emit = emit_output, .emit_ctx = h,
                         .binding = hostpolicy_node_binding(&h->hp) };
    node_events_t ev = { .ctx = h, .exited = on_exited, .aborted = on_aborted,
                         .pmi_failed = on_pmi_failed, .bind_refused = on_bind_refused,
                         .barrier = on_barrier, .stdin_consumed = on_stdin_consumed,
                         .stdin_closed = on_stdin_closed, .other_exited = on_other_exited };
    if (may_spawn(j)) {   /* mpirun answers what the node cannot (hostd_parts.h) */
        ev.spawn = on_spawn;
        ev.ask = on_ask;
        ev.put = on_put;
    }
    node_init(&h->node, &h->loop, &spec, &ev);
    h->started = 1;
    h->parts = (hostd_parts_t){ .loop = &h->loop, .ch = &h->ch, .first = &h->node,
                                .env = &h->env, .env_extra = (const char *const *)h->env_extra,
                                .nenv_extra = 2, .host = h->host, .emit = emit_output,
                                .emit_ctx = h, .exited = send_exited, .aborted = send_aborted,
                                .pmi_failed = send_pmi_failed, .ctx = h };
    if (j->gateway.n && gwproc_start(&h->gw, j->gateway, h->key, text, sizeof text) != 0) {
        send_fail(h, 1, text);
        condemn(h, SIGKILL);
        return;
    }
    if (j->gateway.n)
        gwgrow_start(&h->gwgrow, &h->loop, &h->ch, &h->gw);
    /* mpirun's own pairs (the site layout): there before any rank can ask. The puts cannot
     * fail: the space is empty and a frame (CTL_MAX_FRAME) is far below KVS_MAX_BYTES. */
    ctl_strs_t kv = j->kvs;
    for (uint32_t i = 0; i < j->kvs.n; i += 2) {
        const char *k = ctl_strs_next(&kv), *v = ctl_strs_next(&kv);
        node_kvs_put(&h->node, k, v);
        if (universe_of_pair(k, v))
            pmi_server_set_universe(&h->node.pmi, universe_of_pair(k, v));
    }
    int bad;
    spawn_err_t why;
    if (node_spawn(&h->node, &bad, &why) != 0) {
        int status = hostpolicy_spawn_error(&h->hp, h->prog, bad, h->global[bad], &why, text,
                                            sizeof text);
        send_fail(h, status, text);
        condemn(h, SIGKILL);
    }
}

/* ---- frames from mpirun ------------------------------------------------------------- */

static void on_frame(void *ctx, const ctl_frame_t *f)
{
    hostd_t *h = ctx;
    char tmp[32], why[160];
    if (!h->key[0] && f->type != CTL_KEY) {
        snprintf(why, sizeof why, "expected the job key first, got a %s frame",
                 ctl_type_name(f->type, tmp, sizeof tmp));
        protocol_error(h, why);
        return;
    }
    if (h->key[0] && !h->have_job && f->type != CTL_JOB) {
        snprintf(why, sizeof why, "expected the job description after the key, got a %s frame",
                 ctl_type_name(f->type, tmp, sizeof tmp));
        protocol_error(h, why);
        return;
    }
    switch (f->type) {
    case CTL_KEY:
        if (h->key[0]) {
            protocol_error(h, "a second job key");
            return;
        }
        snprintf(h->key, sizeof h->key, "%s", f->u.key);
        return;
    case CTL_JOB:
        if (h->have_job) {
            protocol_error(h, "a second job description");
            return;
        }
        hb_init(&h->hb, (int)f->u.job.peer_timeout);
        hb_allow_silence(&h->hb, (int)f->u.job.silence);
        h->ch.stall_ms = h->hb.timeout_ms;
        start_job(h, &f->u.job);
        return;
    case CTL_STDIN:
        /* dropped when rank 0's stdin is closed (STDIN_CLOSED went out) */
        if (h->started && f->u.data.len)
            node_stdin_push(&h->node, f->u.data.p, f->u.data.len);
        else if (h->started)
            node_stdin_eof(&h->node);
        return;
    case CTL_KILL:
        condemn(h, (int)f->u.sig);
        return;
    case CTL_END:
        h->ended = 1;
        gwproc_signal(&h->gw, SIGTERM);
        return;
    case CTL_BEAT:
        return;
    case CTL_PARTS:
        if (h->started && !h->failed && f->u.parts.op == CTL_PARTS_GW_RANKS) {
            if (gwgrow_frame(&h->gwgrow, f, h->host, why, sizeof why) != 0)
                protocol_error(h, why);
            return;
        }
        if (!h->started || h->failed || hostd_parts_frame(&h->parts, f, why, sizeof why) != 0)
            protocol_error(h, h->started ? why : "a PARTS frame before the ranks started");
        return;
    case CTL_KVS: {
        if (!h->barrier_wait) {
            protocol_error(h, "key-value pairs outside a barrier");
            return;
        }
        ctl_strs_t kv = f->u.kv;
        for (uint32_t i = 0; i < f->u.kv.n; i += 2) {
            const char *k = ctl_strs_next(&kv);
            const char *v = ctl_strs_next(&kv);
            node_kvs_put(&h->node, k, v);  /* a full space fails the ranks' own gets */
        }
        return;
    }
    case CTL_BARRIER_OUT:
        if (!h->barrier_wait) {
            protocol_error(h, "barrier release outside a barrier");
            return;
        }
        h->barrier_wait = 0;
        node_barrier_release(&h->node);
        return;
    default:
        snprintf(why, sizeof why, "unexpected %s frame from mpirun",
                 ctl_type_name(f->type, tmp, sizeof tmp));
        protocol_error(h, why);
    }
}

static void on_closed(void *ctx, const char *why)
{
    hostd_t *h = ctx;
    if (why) {
        protocol_error(h, why);
        return;
    }
    h->mpirun_gone = 1;
    condemn(h, SIGTERM);
}

static void on_signal(void *arg, int fd, short revents)
{
    hostd_t *h = arg;
    (void)revents;
    struct signalfd_siginfo si;
    while (read(fd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGCHLD) {
            if (h->started)
                node_reap(&h->node);
        } else {
            condemn(h, h->condemned ? SIGKILL : (int)si.ssi_signo);
        }
    }
}

/* All ranks gone and their output sent (or none could start). */
static int ranks_over(hostd_t *h, long long now)
{
    if (!h->have_job || h->failed)
        return h->have_job || h->mpirun_gone;
    /* started for spawned ranks only: more may come until END (ctl.h) */
    if (h->nranks == 0 && !h->ended && !h->condemned && !h->mpirun_gone)
        return 0;
    if (node_live(&h->node) + hostd_parts_live(&h->parts) > 0 || (h->gw.pid && !h->gw.reaped))
        return 0;
    if (!h->t_drain) {
        node_close_stdin(&h->node);
        teardown_kill_orphans();  /* descendants could hold output pipes open */
        h->t_drain = now;
    }
    return node_io_open(&h->node) + hostd_parts_io_open(&h->parts) == 0 ||
           now >= h->t_drain + TEARDOWN_DRAIN_MS;
}

int hostd_run(int ctl_in, int ctl_out, const char *host_arg)
{
    hostd_t h;
    memset(&h, 0, sizeof h);
    h.host_arg = host_arg;
    the_hostd = &h;
    fdlimit_raise(-1); /* its ranks inherit it, as from mpirun on one host */
    teardown_become_subreaper();
    ev_init(&h.loop);
    h.sigfd = util_signalfd();
    if (h.sigfd < 0) {
        fprintf(stderr, "metampi-hostd %s: cannot set up signal handling: %s\n", host_arg,
                strerror(errno));
        return 1;
    }
    ev_watch(&h.loop, h.sigfd, POLLIN, on_signal, &h);
    chan_ops_t ops = { .frame = on_frame, .closed = on_closed };
    chan_open(&h.ch, &h.loop, ctl_in, ctl_out, 1, &ops, &h);
    util_set_msg_hook(msg_hook);
    ctl_buf_t *b = chan_out(&h.ch);
    ctl_begin(b, CTL_HELLO);
    ctl_put_u32(b, CTL_HELLO_MAGIC);
    ctl_put_u32(b, CTL_VERSION);
    ctl_put_u32(b, (uint32_t)getpid());
    ctl_end(b);
    chan_send(&h.ch);

    for (;;) {
        long long now = net_now_ms();
        int timeout = -1;
        if (h.condemned && !h.kill_sent) {
            if (now >= h.t_condemned + TEARDOWN_KILL_AFTER_MS)
                condemn(&h, SIGKILL);
            else
                timeout = (int)(h.t_condemned + TEARDOWN_KILL_AFTER_MS - now);
        }
        int over = ranks_over(&h, now);
        if (!over && h.started && h.t_drain) {
            long long d = h.t_drain + TEARDOWN_DRAIN_MS - now;
            if (timeout < 0 || d < timeout)
                timeout = d < 0 ? 0 : (int)d;
        }
        int live = h.started ? node_live(&h.node) + hostd_parts_live(&h.parts) : 0;
        if (!over && h.condemned && live > 0) {
            if (now >= h.t_condemned + TEARDOWN_GIVE_UP_MS) {
                util_msg("%d rank(s) did not exit after SIGKILL; giving up on them", live);
                over = 1;
            } else {
                long long d = h.t_condemned + TEARDOWN_GIVE_UP_MS - now;
                if (timeout < 0 || d < timeout)
                    timeout = (int)d;
            }
        }
        if (over && !h.done_sent && !h.mpirun_gone) {
            send_empty(&h, CTL_DONE);
            h.done_sent = 1;
        }
        if (over && h.mpirun_gone)
            break;
        if (hb_round(&h.hb, now))
            h.ch.t_in = now; /* this helper was not running: mpirun's silence was its own */
        if (h.have_job && !h.mpirun_gone) {
            char why[160];
            if (h.ch.wbroken) {
                mpirun_lost(&h, "mpirun does not read what this helper sends");
                continue;
            }
            if (hb_silent(&h.hb, &h.ch, now)) {
                snprintf(why, sizeof why, "no word from mpirun for %lld s (its host is down "
                         "or unreachable, or it was stopped; %s)", h.hb.timeout_ms / 1000,
                         "METAMPI_PEER_TIMEOUT");
                mpirun_lost(&h, why);
                continue;
            }
            if (!h.done_sent) /* DONE: nothing follows */
                hb_beat(&h.hb, &h.ch, now);
            hb_fold(&h.hb, &h.ch, now, &timeout);
        }
        ev_run_once(&h.loop, timeout);
    }

    util_set_msg_hook(NULL);
    if (h.gw.pid && !h.gw.reaped) { /* mpirun is gone: so is the job */
        gwproc_signal(&h.gw, SIGKILL);
        waitpid(h.gw.pid, NULL, 0);
    }
    gwproc_close(&h.gw);
    hostd_parts_free(&h.parts);
    if (h.started)
        node_free(&h.node);
    teardown_kill_orphans();
    if (h.kvsname)
        teardown_remove_shm(h.kvsname);
    chan_close(&h.ch);
    ev_unwatch(&h.loop, h.sigfd);
    close(h.sigfd);
    ev_free(&h.loop);
    hostpolicy_close(&h.hp);
    if (h.have_job)
        jobenv_free(&h.env);
    for (int i = 0; i < h.argc; i++)
        free(h.argv[i]);
    free(h.argv);
    free(h.global);
    free(h.env_extra[0]);
    free(h.env_extra[1]);
    free(h.host);
    free(h.kvsname);
    free(h.mapping);
    free(h.path);
    free(h.prog);
    return h.protocol_error ? 1 : 0;
}
