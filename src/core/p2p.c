#include "core/p2p.h"

#include "core/bsend.h"
#include "core/errors.h"
#include "core/p2p_packed.h"
#include "core/progress.h"
#include "core/traffic.h"
#include "core/wan_stats.h"
#include "datatype/dtype.h"
#include "runtime/hosts.h"
#include "runtime/job.h"
#include "runtime/job_spawn.h"
#include "runtime/peer_arch.h"
#include "runtime/procs.h"
#include "runtime/rank_key.h"
#include "runtime/sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int recv_typemap(proto_op_t *op, const dt_layout_t **l, uintptr_t *base,
                        size_t *count);

/* Context of the internal barrier in MPI_Finalize: never used by a communicator. */
#define CONTEXT_FINALIZE 0xfffffff0u

static int *host_of, *site_of;
/* Earlier host_of/site_of arrays, which transports opened with them still read (transport.h,
 * "Growing"): freed at MPI_Finalize. */
static int **retired;
static int nretired, known;   /* known: ranks host_of and site_of cover */

int p2p_open(char *err, int errlen)
{
    host_of = malloc((size_t)job.size * sizeof *host_of);
    if (!host_of) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    if (hosts_map(host_of, job.size, err, errlen) != 0 ||
        sites_init(host_of, err, errlen) != 0 || wan_stats_open(err, errlen) != 0)
        return -1;
    site_of = malloc((size_t)job.size * sizeof *site_of);
    if (!site_of) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < job.size; r++)
        site_of[r] = sites_of(r);
    if (traffic_open(host_of, site_of, job.rank, job.size, err, errlen) != 0)
        return -1;
    int local_ranks = 0, spans = 0;
    for (int r = 0; r < job.size; r++) {
        local_ranks += host_of[r] == host_of[job.rank];
        spans |= host_of[r] != host_of[0];
    }
    progress_configure(local_ranks, progress_usable_cpus());
    /* machine and architecture of every rank: read in p2p_connect, after the barrier */
    if (peer_arch_open(job.size, err, (size_t)errlen) != 0 ||
        (job.size > 1 && hosts_publish_machine(err, errlen) != 0))
        return -1;
    /* the transports' view of the job: they call nothing of the runtime themselves; in a job
     * of several sites this part's base (the gateways' numbers: docs/dynproc.md) */
    if (sites_count() > 1 && job_can_spawn() && procs_init(err, errlen) != 0)
        return -1;
    auth_key_t ranks_key;
    int have_key = rank_key_get(&ranks_key);
    tr_boot_t boot = { .rank = job.rank, .size = job.size, .job_id = job.id,
                       .hostname = job.hostname, .host_of = host_of, .site_of = site_of,
                       .nsites = sites_count(), .site_name = sites_name, .kv_put = job_put,
                       .kv_get = job_get, .ranks_key = have_key ? &ranks_key : NULL,
                       .id_base = sites_count() > 1 && job_can_spawn() ? procs_id(0) : 0 };
    proto_upcalls_t up = { match_incoming, match_withdraw, recv_typemap };
    int rc = proto_open(&boot, &up, err, errlen);
    auth_key_wipe(&ranks_key);
    return rc;
}

int p2p_host_of(int world_rank)
{
    return host_of[world_rank];
}

int p2p_site_of(int world_rank)
{
    return world_rank < job.size ? sites_of(world_rank) : site_of[world_rank];
}

int p2p_other_part(int world_rank)
{
    return world_rank >= job.size;
}

static int peer_id(int r)
{
    return procs_id(r);
}

static int kv_get_peer(int r, const char *prefix, char *value, int vallen, char *err,
                       int errlen)
{
    char key[64];
    snprintf(key, sizeof key, "%s.%d", prefix, procs_part_rank(r));
    return r < job.size ? job_get(key, value, vallen, err, errlen)
                        : job_get_in(procs_kvsname(r), key, value, vallen, err, errlen);
}

/* A copy of a covering known entries, with room for total; NULL when out of memory. */
static int *widened(const int *a, int total)
{
    int *w = malloc((size_t)total * sizeof *w);
    if (w)
        memcpy(w, a, (size_t)known * sizeof *w);
    return w;
}

int p2p_grow(char *err, int errlen)
{
    if (!known) {   /* the first grow */
        if (procs_init(err, errlen) != 0)
            return -1;
        known = job.size;
    }
    int total = procs_total();
    int *h = widened(host_of, total), *s = widened(site_of, total);
    int **r = realloc(retired, (size_t)(nretired + 2) * sizeof *r);
    if (r)
        retired = r;
    if (!h || !s || !r || traffic_grow(total) != 0) {
        free(h);
        free(s);
        snprintf(err, (size_t)errlen, "out of memory for %d processes", total);
        return -1;
    }
    /* processes of other parts: each on a "host" of its own (never shared memory), at the
     * site their part's layout names (docs/dynproc.md, "Several sites") */
    for (int q = known; q < total; q++) {
        h[q] = -1 - q;
        s[q] = sites_of_part(procs_kvsname(q), procs_part_rank(q), err, errlen);
        if (s[q] < 0) {
            free(h);
            free(s);
            return -1;
        }
        if (s[q] != site_of[job.rank])
            traffic_mark_wan(q);
    }
    retired[nretired++] = host_of;
    retired[nretired++] = site_of;
    host_of = h;
    site_of = s;
    known = total;
    wan_stats_grow(site_of);
    auth_key_t ranks_key;
    int have_key = rank_key_get(&ranks_key);
    tr_boot_t boot = { .rank = job.rank, .size = total, .job_id = job.id,
                       .hostname = job.hostname, .host_of = host_of, .site_of = site_of,
                       .nsites = sites_count(), .site_name = sites_name, .kv_put = job_put,
                       .kv_get = job_get, .ranks_key = have_key ? &ranks_key : NULL,
                       .peer_id = peer_id, .peer_of_id = procs_of_id,
                       .kv_get_peer = kv_get_peer, .id_base = procs_id(0) };
    int rc = proto_grow(&boot, err, errlen);
    auth_key_wipe(&ranks_key);
    return rc;
}

int p2p_bundles(int world_rank)
{
    return proto_bundles(world_rank);
}

int p2p_num_sites(void)
{
    return sites_count();
}

void p2p_wake(int world_rank)
{
    proto_wake(world_rank);
}

int p2p_read(int world_rank, void *local, const void *remote, size_t bytes)
{
    char err[256];
    int r = bytes ? proto_rma_read(world_rank, local, remote, bytes, err, sizeof err) : 0;
    if (r < 0)
        err_fatal(MPI_ERR_OTHER, "remote read", "%s", err);
    return r;
}

int p2p_readv(int world_rank, void *local, const struct iovec *remote, int nremote)
{
    char err[256];
    int r = nremote ? proto_rma_readv(world_rank, local, remote, nremote, err, sizeof err) : 0;
    if (r < 0)
        err_fatal(MPI_ERR_OTHER, "remote read", "%s", err);
    return r;
}

int p2p_writev(int world_rank, const void *local, const struct iovec *remote, int nremote)
{
    char err[256];
    int r = nremote ? proto_rma_writev(world_rank, local, remote, nremote, err, sizeof err) : 0;
    if (r < 0)
        err_fatal(MPI_ERR_OTHER, "remote write", "%s", err);
    return r;
}

int p2p_write(int world_rank, const void *local, void *remote, size_t bytes)
{
    char err[256];
    int r = bytes ? proto_rma_write(world_rank, local, remote, bytes, err, sizeof err) : 0;
    if (r < 0)
        err_fatal(MPI_ERR_OTHER, "remote write", "%s", err);
    return r;
}

int p2p_connect(char *err, int errlen)
{
    int spans = 0;
    for (int r = 0; r < job.size; r++)
        spans |= host_of[r] != host_of[0];
    if (job.size > 1) {
        int n = hosts_read_machines(host_of, job.size, spans, err, errlen);
        if (n < 0 || peer_arch_check_hosts(host_of, job.size, job.rank, job.hostname, err,
                                           (size_t)errlen) != 0)
            return -1;
        if (spans) /* hosts that share this machine share its CPUs too (emulated clusters) */
            progress_configure(n, progress_usable_cpus());
    }
    return proto_connect(err, errlen);
}

int p2p_ready(char *err, int errlen)
{
    return proto_ready(err, errlen);
}

static int queue_empty(void *arg)
{
    (void)arg;
    return !proto_has_queued();
}

void p2p_finalize(void)
{
    progress_wait_until(queue_empty, NULL);
    wan_stats_close(); /* the report covers everything up to the closing barrier */
    traffic_close();
    /* Dissemination barrier: when it completes here, every rank has drained its queues, so
     * no frame to or from us is still needed by anyone. */
    comm_t fin = *comm_lookup(MPI_COMM_WORLD);
    fin.recv_ctx = fin.send_ctx = CONTEXT_FINALIZE;
    for (int k = 1; k < fin.size; k <<= 1) {
        request_t r;
        request_init_local(&r, REQ_RECV, &fin);
        r.peer = (fin.rank - k + fin.size) % fin.size;
        r.tag = k;
        match_post_recv(&r);
        p2p_data_t none = { 0 };
        p2p_send_data(&fin, &none, (fin.rank + k) % fin.size, k, MODE_STANDARD, "MPI_Finalize");
        p2p_wait(&r);
    }
    progress_wait_until(queue_empty, NULL); /* our last barrier frames have left */
    proto_close();
    char err[256];
    if (traffic_report_send(err, sizeof err) != 0) /* mpirun --report; blocks in a barrier */
        err_fatal(MPI_ERR_OTHER, "MPI_Finalize", "%s", err);
    match_close();
    free(host_of);
    free(site_of);
    host_of = site_of = NULL;
    for (int i = 0; i < nretired; i++)
        free(retired[i]);
    free(retired);
    retired = NULL;
    nretired = known = 0;
    procs_finalize();
    sites_parts_finalize();
    sites_finalize();
    peer_arch_close();
}

void p2p_wait(request_t *r)
{
    progress_wait(&r->complete);
}

/* Every message handed to the protocol counts once, here (core/traffic.h, core/wan_stats.h). */
static inline void count_sent(int world_rank, size_t bytes)
{
    wan_stats_count(world_rank, bytes);
    traffic_count(world_rank, bytes);
}

static void start_send(request_t *r, const char *func)
{
    proto_op_t *op = &r->op;
    op->env = (proto_env_t){ r->comm->send_ctx, r->comm->rank, r->tag };
    op->peer = comm_peer_world_rank(r->comm, r->peer);
    op->sync = r->mode == MODE_SYNC;
    op->buf = r->buf;
    op->bytes = r->bytes;
    p2p_packed_bare(r->type, op->env.ctx, r->layout, &op->buf, &op->bytes);
    op->layout = r->layout;
    op->count = r->count;
    count_sent(op->peer, op->bytes);
    char err[256];
    if (proto_send_start(op, err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, func, "cannot send to rank %d: %s", r->peer, err);
}

void p2p_group_begin(void)
{
    proto_group_begin();
}

void p2p_group_end(void)
{
    char err[256];
    if (proto_group_end(err, sizeof err) != 0)
        err_fatal(MPI_ERR_OTHER, "internal collective", "%s", err);
}

int p2p_start(request_t *r, const char *func)
{
    r->complete = 0;
    r->active = 1;
    r->error = MPI_SUCCESS;
    if (r->peer == MPI_PROC_NULL) {
        request_complete_empty(r, MPI_PROC_NULL);
        return MPI_SUCCESS;
    }
    if (r->kind == REQ_RECV) {
        r->op.buf = r->buf;
        r->op.bytes = r->bytes;
        r->op.layout = r->layout;
        r->op.count = r->count;
        match_post_recv(r);
        return MPI_SUCCESS;
    }
    if (r->mode == MODE_BUFFERED) {
        int rc = bsend_start(r, func);
        if (rc == MPI_SUCCESS)
            request_complete_empty(r, MPI_ANY_SOURCE);
        else
            r->active = 0;
        return rc;
    }
    start_send(r, func);
    return MPI_SUCCESS;
}

/* The fused path of MPI_Isend and MPI_Irsend (docs/p2p.md, "The small-message fast path"): a
 * standard send of contiguous bytes that fits the peer's eager limit, with nothing queued to
 * it and room in its transport, leaves in one frame now (proto_send_now, as a blocking send's)
 * and r completes at once, without an operation for the protocol; anything else takes
 * p2p_start. */
int p2p_start_eager(request_t *r, const char *func)
{
    comm_t *c = r->comm;
    if (r->peer != MPI_PROC_NULL && !r->layout) {
        int peer = comm_peer_world_rank(c, r->peer);
        void *buf = r->buf;
        size_t bytes = r->bytes;
        p2p_packed_bare(r->type, c->send_ctx, NULL, &buf, &bytes);
        proto_env_t env = { c->send_ctx, c->rank, r->tag };
        char err[256];
        int rc = proto_send_now(&env, peer, buf, bytes, err, sizeof err);
        if (rc == 1) {
            count_sent(peer, bytes);
            r->active = 1;
            request_complete_empty(r, MPI_ANY_SOURCE); /* a send's status (request_op_done) */
            return MPI_SUCCESS;
        }
        if (rc < 0)
            err_fatal(MPI_ERR_OTHER, func, "cannot send to rank %d: %s", r->peer, err);
    }
    return p2p_start(r, func);
}

/* The receive's typed view for converting data from a peer of another architecture
 * (proto_upcalls_t.typemap): contiguous data was handed down as bytes at buf + true_lb. */
static int recv_typemap(proto_op_t *op, const dt_layout_t **l, uintptr_t *base, size_t *count)
{
    request_t *r = (request_t *)op;
    if (p2p_user_packed(r->type, op->env.ctx))
        return 1; /* MPI_Unpack converts it later: the header goes first */
    /* the request's reference when it holds one (the user may have freed the handle) */
    dtype_t *t = r->dtype ? r->dtype : r->type ? dtype_lookup(r->type) : NULL;
    if (!t || !t->layout)
        return -1;
    *l = t->layout;
    if (r->layout) {
        *base = (uintptr_t)r->buf;
        *count = r->count;
    } else {
        size_t size = dt_layout_size(t->layout);
        *base = (uintptr_t)r->buf - (uintptr_t)dt_layout_true_lb(t->layout);
        *count = size ? r->bytes / size : 0;
    }
    return 0;
}

void p2p_set_data(request_t *r, const p2p_data_t *d)
{
    request_set_data(r, d->buf, d->bytes, d->layout, d->count, d->dtype);
    r->type = d->type;
}

/* Blocking calls: the eager fast path needs no request; otherwise a stack request, which
 * needs no datatype reference (the call returns only once the data is no longer used). */
int p2p_send_data(comm_t *c, const p2p_data_t *d, int dest, int tag, send_mode_t mode,
                  const char *func)
{
    p2p_data_t bare = *d;
    p2p_packed_bare(d->type, c->send_ctx, d->layout, &bare.buf, &bare.bytes);
    d = &bare;
    if (mode == MODE_STANDARD || mode == MODE_READY) {
        proto_env_t env = { c->send_ctx, c->rank, tag };
        int peer = comm_peer_world_rank(c, dest);
        char err[256];
        int rc = d->layout ? proto_send_now_typed(&env, peer, d->buf, d->layout, d->count,
                                                  d->bytes, err, sizeof err)
                           : proto_send_now(&env, peer, d->buf, d->bytes, err, sizeof err);
        if (rc == 1) {
            count_sent(peer, d->bytes); /* otherwise start_send counts it */
            return MPI_SUCCESS;
        }
        if (rc < 0)
            err_fatal(MPI_ERR_OTHER, func, "cannot send to rank %d: %s", dest, err);
    }
    request_t r;
    request_init_local(&r, REQ_SEND, c);
    request_set_data(&r, d->buf, d->bytes, d->layout, d->count, NULL);
    r.peer = dest;
    r.tag = tag;
    r.mode = mode;
    int rc = p2p_start(&r, func);
    if (rc != MPI_SUCCESS)
        return rc;
    p2p_wait(&r);
    return r.error;
}

int p2p_recv_data(comm_t *c, const p2p_data_t *d, int source, int tag, MPI_Status *status,
                  size_t *msg_bytes)
{
    request_t r;
    request_init_local(&r, REQ_RECV, c);
    request_set_data(&r, d->buf, d->bytes, d->layout, d->count, NULL);
    r.type = d->type;
    r.peer = source;
    r.tag = tag;
    p2p_start(&r, "MPI_Recv");
    p2p_wait(&r);
    status_report(status, &r.status);
    *msg_bytes = r.op.msg_bytes;
    return r.error;
}

static int cancel_decided(void *arg)
{
    return !((const proto_op_t *)arg)->cancel_pending;
}

void p2p_cancel(request_t *r)
{
    if (r->complete || !r->active)
        return;
    if (r->kind == REQ_RECV) {
        if (match_unpost(r)) {
            request_complete_empty(r, MPI_ANY_SOURCE);
            r->status.metampi_cancelled = 1;
            if (r->user_freed)
                request_free(r);
        }
        return;
    }
    proto_cancel_send(&r->op);
    /* A send to ourselves is withdrawn (or found matched) by our own progress only: decide it
     * now, so that MPI_Cancel followed by MPI_Request_get_status/MPI_Test tells the program
     * whether it must still receive the message (MPI-3.1 §3.8.4: cancel is local, and the
     * answer here needs no other process). */
    if (r->op.peer == job.rank)
        progress_wait_until(cancel_decided, &r->op);
}

static void status_of_message(MPI_Status *st, const unexpected_t *u)
{
    if (!st)
        return;
    st->MPI_SOURCE = u->m.env.src;
    st->MPI_TAG = u->m.env.tag;
    st->metampi_count = (long long)u->m.size;
    st->metampi_cancelled = 0;
    /* a size in the bytes of a sender of another architecture: Get_count and Get_elements
     * count it with that architecture's sizes (api/status.c) */
    if (__builtin_expect(!peer_arch_all_same(), 0) &&
        !arch_same(peer_arch(u->m.peer), arch_local()))
        st->metampi_cancelled = STATUS_FOREIGN(u->m.peer);
}

void p2p_iprobe(comm_t *c, int source, int tag, int *flag, MPI_Status *status)
{
    const unexpected_t *u = match_peek(c, source, tag);
    if (!u) {
        progress_poll();
        u = match_peek(c, source, tag);
    }
    *flag = u != NULL;
    if (u)
        status_of_message(status, u);
}

typedef struct probe_arg {
    const comm_t *c;
    int source, tag;
} probe_arg_t;

static int message_waiting(void *arg)
{
    const probe_arg_t *p = arg;
    return match_peek(p->c, p->source, p->tag) != NULL;
}

void p2p_probe(comm_t *c, int source, int tag, MPI_Status *status)
{
    probe_arg_t a = { c, source, tag };
    progress_wait_until(message_waiting, &a);
    status_of_message(status, match_peek(c, source, tag));
}

unexpected_t *p2p_improbe(comm_t *c, int source, int tag, MPI_Status *status)
{
    unexpected_t *u = match_take(c, source, tag);
    if (!u) {
        progress_poll();
        u = match_take(c, source, tag);
    }
    if (u)
        status_of_message(status, u);
    return u;
}

unexpected_t *p2p_mprobe(comm_t *c, int source, int tag, MPI_Status *status)
{
    probe_arg_t a = { c, source, tag };
    progress_wait_until(message_waiting, &a);
    unexpected_t *u = match_take(c, source, tag);
    status_of_message(status, u);
    return u;
}
