/*
 * The frames a helper sends to mpirun (ctl.h), one handler per type. Before any handler:
 * the first frame must be HELLO, a type the helper may not send is a protocol error, and a
 * frame about a rank must name a rank that runs on that host. A protocol error fails the job
 * and stops the helper (mh_protocol_error). The global PMI barrier lives here: the helpers
 * send their ranks' new puts (KVS*, BARRIER_IN); when every host is in, each gets the union
 * (KVS*, BARRIER_OUT); a barrier that waits for a rank that exited without finalizing fails
 * the job (a helper sees only its own ranks).
 */
#include "mh_int.h"
#include "mh_spawn.h"

#include "ctl.h"
#include "report.h"
#include "runtime/pmi_wire.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void mh_kv_clear(mh_t *m)
{
    for (size_t i = 0; i < m->nkv; i++)
        free(m->kv[i]);
    m->nkv = 0;
}

static void barrier_release(mh_t *m)
{
    for (int k = 0; k < m->nfirst; k++) {
        mhost_t *h = &m->host[k];
        h->in_barrier = 0;
        if (!mh_live(h))
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
    mh_kv_clear(m);
}

/* Every rank has exited, first and spawned: the gateways have nothing left to carry, the
 * helpers started for spawned ranks nothing left to start. Once. In a federated job, only
 * once no other site's ranks may spawn here either (mh_spawn_hold). */
static void all_departed(mh_t *m)
{
    if (m->ndeparted != m->plan->np || mh_spawn_running(m->spawn) != 0 || m->gateways_ended ||
        mh_spawn_hold(m->spawn))
        return;
    m->gateways_ended = 1;
    mh_late_end(m);
    for (int k = 0; k < m->nhost; k++) {
        mhost_t *h = &m->host[k];
        if (h->ngw_args && mh_live(h)) {
            ctl_begin(chan_out(&h->ch), CTL_END);
            ctl_end(chan_out(&h->ch));
            chan_send(&h->ch);
        }
    }
}

void mh_check_departed(mh_t *m)
{
    all_departed(m);
}

/* ---- the frames ---------------------------------------------------------------------- */

static int rank_here(const mhost_t *h, uint32_t rank)
{
    mh_t *m = h->mh;
    uint32_t i = rank - (uint32_t)m->plan->first;  /* wraps below first */
    if (rank >= (uint32_t)m->plan->size)   /* a spawned rank (a federated part's first > 0) */
        return mh_spawn_rank_here(m->spawn, h, rank);
    return i < (uint32_t)m->plan->np && &m->host[m->host_of[i]] == h;
}

/* The rank a frame is about (rank_frame handlers only). */
static uint32_t rank_of(const ctl_frame_t *f)
{
    switch (f->type) {
    case CTL_OUTPUT: return f->u.output.rank;
    case CTL_EXITED: return f->u.exited.rank;
    case CTL_ABORTED: return f->u.aborted.rank;
    case CTL_PMI_FAILED: return f->u.pmi_failed.rank;
    default: return 0;
    }
}

static void on_hello(mhost_t *h, const ctl_frame_t *f)
{
    (void)f;
    if (h->hello) {
        mh_protocol_error(h, "a second HELLO frame");
        return;
    }
    h->hello = 1;
    h->errtext[0] = '\0';
}

static void on_output(mhost_t *h, const ctl_frame_t *f)
{
    mh_t *m = h->mh;
    iofwd_sink_write(f->u.output.stream == 1 ? &m->out_sink : &m->err_sink,
                     (int)f->u.output.rank, (const char *)f->u.output.p, f->u.output.len,
                     f->u.output.add_newline);
}

static void on_exited(mhost_t *h, const ctl_frame_t *f)
{
    mh_t *m = h->mh;
    uint32_t rank = f->u.exited.rank;
    int i = (int)rank - m->plan->first;
    if (i >= m->plan->np) {
        mh_spawn_exited(m->spawn, h, f);
        all_departed(m);
        return;
    }
    if (m->departed[i]) {
        char why[96];
        snprintf(why, sizeof why, "a second EXITED frame for rank %u", rank);
        mh_protocol_error(h, why);
        return;
    }
    m->departed[i] = 1;
    m->finalized[i] = f->u.exited.finalized;
    m->pid[i] = (pid_t)f->u.exited.pid;
    if (rank == 0)
        mh_stdin_stop(m);
    job_rank_exited(&m->job, (int)rank, h->name, (pid_t)f->u.exited.pid, f->u.exited.status,
                    f->u.exited.inited, f->u.exited.finalized);
    check_barrier_reachable(m);
    ++m->ndeparted;
    all_departed(m);
}

static void on_aborted(mhost_t *h, const ctl_frame_t *f)
{
    job_rank_aborted(&h->mh->job, (int)f->u.aborted.rank, h->name, (pid_t)f->u.aborted.pid,
                     f->u.aborted.exitcode, f->u.aborted.has_msg ? f->u.aborted.msg : NULL);
}

static void on_pmi_failed(mhost_t *h, const ctl_frame_t *f)
{
    job_pmi_failed(&h->mh->job, (int)f->u.pmi_failed.rank, h->name,
                   (pid_t)f->u.pmi_failed.pid, (enum pmi_fail_kind)f->u.pmi_failed.kind,
                   f->u.pmi_failed.detail);
}

static void on_fail(mhost_t *h, const ctl_frame_t *f)
{
    job_fail(&h->mh->job, (int)f->u.fail.status, 0, "host %s: %s", h->name, f->u.fail.text);
}

static void on_note(mhost_t *h, const ctl_frame_t *f)
{
    util_msg("host %s: %s", h->name, f->u.text);
}

static void on_report(mhost_t *h, const ctl_frame_t *f)
{
    (void)h;
    util_write_all(STDERR_FILENO, f->u.text, strlen(f->u.text));
}

static void on_stats(mhost_t *h, const ctl_frame_t *f)
{
    (void)h;
    report_gateway(f->u.text);
}

static void on_kvs(mhost_t *h, const ctl_frame_t *f)
{
    mh_t *m = h->mh;
    if (h->in_barrier) {
        mh_protocol_error(h, "key-value pairs after BARRIER_IN");
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
            mh_protocol_error(h, "an invalid key or value in a KVS frame");
            return;
        }
        m->kv[m->nkv++] = util_xstrdup(s);
        /* the ranks' traffic reports are mpirun's alone: kept here, not sent back to
         * every host with the barrier's union (with many ranks, megabytes per host) */
        if (i % 2 && report_kv(m->kv[m->nkv - 2], s)) {
            free(m->kv[--m->nkv]);
            free(m->kv[--m->nkv]);
        }
    }
}

static void on_barrier_in(mhost_t *h, const ctl_frame_t *f)
{
    (void)f;
    mh_t *m = h->mh;
    if (h->in_barrier || h - m->host >= m->nfirst) {
        mh_protocol_error(h, h->in_barrier ? "a second BARRIER_IN before BARRIER_OUT"
                                           : "a BARRIER_IN from a helper without first ranks");
        return;
    }
    h->in_barrier = 1;
    if (++m->nbarrier == m->nfirst)
        barrier_release(m);
    else
        check_barrier_reachable(m);
}

static void on_stdin_ack(mhost_t *h, const ctl_frame_t *f)
{
    mh_t *m = h->mh;
    if (m->stdin_host != h || m->credit + f->u.n > CTL_STDIN_WINDOW) {
        mh_protocol_error(h, "acknowledged stdin it was not sent");
        return;
    }
    m->credit += f->u.n;
    mh_stdin_update(m);
}

static void on_stdin_closed(mhost_t *h, const ctl_frame_t *f)
{
    (void)f;
    if (h->mh->stdin_host == h)
        mh_stdin_stop(h->mh);
}

static void on_done(mhost_t *h, const ctl_frame_t *f)
{
    (void)f;
    h->done = 1;
    h->in_barrier = 0;
}

static void on_parts(mhost_t *h, const ctl_frame_t *f)
{
    mh_spawn_frame(h->mh->spawn, h, f);
}

static void on_beat(mhost_t *h, const ctl_frame_t *f)
{
    (void)h;
    (void)f; /* its arrival is what counts (the channel's t_in) */
}

/* What a helper may send, by type; rank_frame: the frame names a rank, which must run on
 * that host. Any other type is a protocol error. */
static const struct {
    void (*fn)(mhost_t *h, const ctl_frame_t *f);
    int rank_frame;
} handlers[CTL_STATS + 1] = {
    [CTL_HELLO] = { on_hello, 0 },          [CTL_OUTPUT] = { on_output, 1 },
    [CTL_EXITED] = { on_exited, 1 },        [CTL_ABORTED] = { on_aborted, 1 },
    [CTL_PMI_FAILED] = { on_pmi_failed, 1 }, [CTL_FAIL] = { on_fail, 0 },
    [CTL_NOTE] = { on_note, 0 },            [CTL_REPORT] = { on_report, 0 },
    [CTL_KVS] = { on_kvs, 0 },              [CTL_BARRIER_IN] = { on_barrier_in, 0 },
    [CTL_STDIN_ACK] = { on_stdin_ack, 0 },  [CTL_STDIN_CLOSED] = { on_stdin_closed, 0 },
    [CTL_DONE] = { on_done, 0 },            [CTL_BEAT] = { on_beat, 0 },
    [CTL_STATS] = { on_stats, 0 },          [CTL_PARTS] = { on_parts, 0 },
};

void mh_on_frame(void *ctx, const ctl_frame_t *f)
{
    mhost_t *h = ctx;
    char tmp[32], why[200];
    if (!h->hello && f->type != CTL_HELLO) {
        snprintf(why, sizeof why, "the helper's first frame is %s, not HELLO",
                 ctl_type_name(f->type, tmp, sizeof tmp));
        mh_protocol_error(h, why);
        return;
    }
    int known = f->type < sizeof handlers / sizeof handlers[0] && handlers[f->type].fn;
    if (!known) {
        snprintf(why, sizeof why, "unexpected %s frame from the helper",
                 ctl_type_name(f->type, tmp, sizeof tmp));
        mh_protocol_error(h, why);
        return;
    }
    if (handlers[f->type].rank_frame && !rank_here(h, rank_of(f))) {
        snprintf(why, sizeof why, "%s frame for rank %u, which does not run there",
                 ctl_type_name(f->type, tmp, sizeof tmp), rank_of(f));
        mh_protocol_error(h, why);
        return;
    }
    handlers[f->type].fn(h, f);
}
