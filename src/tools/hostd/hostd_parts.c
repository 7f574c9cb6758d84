#include "hostd_parts.h"

#include "app_resolve.h"
#include "parts_ctl.h"
#include "universe.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hostd_part {
    hostd_parts_t *owner;
    uint32_t id;
    parts_def_t def;
    char **path;              /* per app: resolved here */
    char ***argv;             /* per app: NULL-terminated, argv[0] = the command */
    node_prog_t *prog;        /* per local index */
    node_t node;
    int waiting_go;           /* READY went out, GO not yet in */
    int started;              /* node_init done */
};

/* The traffic reports (mpirun/report.h) reach mpirun with their barrier's KVS frames. */
#define REPORT_KEY_PREFIX "metampi-report."

static hostd_part_t *find(hostd_parts_t *p, uint32_t id)
{
    for (int i = 0; i < p->nparts; i++)
        if (p->part[i]->id == id)
            return p->part[i];
    return NULL;
}

/* The node of a frame: 0 is the first one; a part only once it runs. */
static node_t *node_of(hostd_parts_t *p, uint32_t id)
{
    if (id == 0)
        return p->first;
    hostd_part_t *t = find(p, id);
    return t && t->started ? &t->node : NULL;
}

static void send_fields(hostd_parts_t *p, uint8_t op, uint32_t node, uint32_t rank,
                        strv_t *f)
{
    if (parts_ctl_send(p->ch, op, node, rank, (const char *const *)f->v, f->n) != 0)
        util_msg("a PARTS frame exceeds %u bytes and was dropped", CTL_MAX_FRAME);
    strv_free(f);
}

/* ---- forwarding (node 0 and the parts) ---------------------------------------------- */

void hostd_parts_spawn(hostd_parts_t *p, uint32_t node, int rank, pmi_spawn_req_t *req)
{
    strv_t f = { 0 };
    node_t *n = node_of(p, node);
    strv_pushf(&f, "%d", node_global(n, rank));   /* the asker's PMI rank */
    parts_req_encode(req, &f);
    pmi_spawn_free(req);
    free(req);
    send_fields(p, CTL_PARTS_SPAWN, node, (uint32_t)rank, &f);
}

void hostd_parts_ask(hostd_parts_t *p, uint32_t node, int rank, const char *line)
{
    strv_t f = { 0 };
    strv_push(&f, line);
    send_fields(p, CTL_PARTS_ASK, node, (uint32_t)rank, &f);
}

void hostd_parts_put(hostd_parts_t *p, uint32_t node, const char *key, const char *value)
{
    if (strncmp(key, REPORT_KEY_PREFIX, strlen(REPORT_KEY_PREFIX)) == 0)
        return;
    strv_t f = { 0 };
    strv_push(&f, key);
    strv_push(&f, value);
    send_fields(p, CTL_PARTS_PUT, node, 0, &f);
}

/* ---- a part's node events ---------------------------------------------------------------- */

static void part_exited(void *ctx, int i, pid_t pid, int status, int inited, int finalized)
{
    hostd_part_t *t = ctx;
    t->owner->exited(t->owner->ctx, t->def.base + t->def.rank[i], pid, status, inited,
                     finalized);
}

static void part_aborted(void *ctx, int i, pid_t pid, int exitcode, const char *msg)
{
    hostd_part_t *t = ctx;
    t->owner->aborted(t->owner->ctx, t->def.base + t->def.rank[i], pid, exitcode, msg);
}

static void part_pmi_failed(void *ctx, int i, pid_t pid, enum pmi_fail_kind kind,
                            const char *detail)
{
    hostd_part_t *t = ctx;
    t->owner->pmi_failed(t->owner->ctx, t->def.base + t->def.rank[i], pid, kind, detail);
}

static void part_bind_refused(void *ctx, int i, pid_t pid, int err)
{
    (void)ctx, (void)i, (void)pid, (void)err;  /* spawned ranks are never bound */
}

/* Our ranks of the part are in its barrier; their puts went to mpirun as they came. */
static void part_barrier(void *ctx, const char *const *kv, size_t nkv)
{
    hostd_part_t *t = ctx;
    (void)kv, (void)nkv;
    parts_ctl_send(t->owner->ch, CTL_PARTS_BARRIER_IN, t->id, 0, NULL, 0);
}

static void part_spawn(void *ctx, int rank, pmi_spawn_req_t *req)
{
    hostd_part_t *t = ctx;
    hostd_parts_spawn(t->owner, t->id, rank, req);
}

static void part_ask(void *ctx, int rank, const char *line)
{
    hostd_part_t *t = ctx;
    hostd_parts_ask(t->owner, t->id, rank, line);
}

static void part_put(void *ctx, const char *key, const char *value)
{
    hostd_part_t *t = ctx;
    hostd_parts_put(t->owner, t->id, key, value);
}

/* ---- the frames ------------------------------------------------------------------------- */

static void part_free(hostd_part_t *t)
{
    if (t->started)
        node_free(&t->node);
    for (int a = 0; a < t->def.napps; a++) {
        free(t->path ? t->path[a] : NULL);
        free(t->argv ? t->argv[a] : NULL);  /* the strings are the definition's */
    }
    free(t->path);
    free(t->argv);
    free(t->prog);
    parts_def_free(&t->def);
    free(t);
}

/* Resolves the part's programs here: "" or why they cannot run. */
static void resolve(hostd_part_t *t, char *why, size_t cap)
{
    parts_def_t *d = &t->def;
    t->path = util_xmalloc((size_t)d->napps * sizeof *t->path);
    t->argv = util_xmalloc((size_t)d->napps * sizeof *t->argv);
    memset(t->path, 0, (size_t)d->napps * sizeof *t->path);
    memset(t->argv, 0, (size_t)d->napps * sizeof *t->argv);
    why[0] = '\0';
    for (int a = 0; a < d->napps; a++) {
        parts_app_t *app = &d->apps[a];
        t->argv[a] = util_xmalloc(((size_t)app->argc + 2) * sizeof(char *));
        t->argv[a][0] = app->execname;
        for (int i = 0; i < app->argc; i++)
            t->argv[a][i + 1] = app->argv[i];
        t->argv[a][app->argc + 1] = NULL;
        int used = 0;
        for (int i = 0; i < d->nlocal; i++)
            used |= d->app[i] == a;
        if (!used || why[0])
            continue;
        int e = app_resolve(app->execname, app->pathdir, &t->path[a]);
        if (e)
            snprintf(why, cap, "cannot execute '%s' on host %s: %s", app->execname,
                     t->owner->host, strerror(e));
        else if (*app->wdir && access(app->wdir, X_OK) != 0)
            snprintf(why, cap, "cannot enter the directory '%s' (info key wdir) on host %s: %s",
                     app->wdir, t->owner->host, strerror(errno));
    }
    t->prog = util_xmalloc((size_t)d->nlocal * sizeof *t->prog);
    for (int i = 0; i < d->nlocal; i++) {
        int a = d->app[i];
        t->prog[i] = (node_prog_t){ .path = t->path[a], .argv = t->argv[a],
                                    .wdir = *d->apps[a].wdir ? d->apps[a].wdir : NULL,
                                    .appnum = a };
    }
}

static int on_part(hostd_parts_t *p, const ctl_frame_t *f, char *why, size_t cap)
{
    if (f->u.parts.node == 0 || find(p, f->u.parts.node)) {
        snprintf(why, cap, "a second definition of part %u", f->u.parts.node);
        return -1;
    }
    hostd_part_t *t = util_xmalloc(sizeof *t);
    memset(t, 0, sizeof *t);
    t->owner = p;
    t->id = f->u.parts.node;
    if (parts_def_decode(f->u.parts.fields, &t->def) != 0) {
        free(t);
        snprintf(why, cap, "a malformed definition of part %u", f->u.parts.node);
        return -1;
    }
    p->part = util_xrealloc(p->part, (size_t)(p->nparts + 1) * sizeof *p->part);
    p->part[p->nparts++] = t;
    char text[600];
    resolve(t, text, sizeof text);
    t->waiting_go = 1;
    strv_t r = { 0 };
    strv_push(&r, text);
    send_fields(p, CTL_PARTS_READY, t->id, 0, &r);
    return 0;
}

/* GO: the part's ranks of this host start (a failure ends the job, as on one host). */
static void start(hostd_part_t *t)
{
    hostd_parts_t *p = t->owner;
    parts_def_t *d = &t->def;
    node_spec_t spec = { .nranks = d->nlocal, .size = d->size, .global = d->rank,
                         .path = t->prog[0].path, .argv = t->prog[0].argv, .env = p->env,
                         .env_extra = p->env_extra, .nenv_extra = p->nenv_extra,
                         .kvsname = d->kvsname, .mapping = d->mapping,
                         .stdin_fd = NODE_STDIN_NONE, .stdout_fd = -1, .stderr_fd = -1,
                         .emit = p->emit, .emit_ctx = p->emit_ctx, .prog = t->prog,
                         .tag_base = d->base };
    node_events_t ev = { .ctx = t, .exited = part_exited, .aborted = part_aborted,
                         .pmi_failed = part_pmi_failed, .bind_refused = part_bind_refused,
                         .barrier = part_barrier, .spawn = part_spawn, .ask = part_ask,
                         .put = part_put };
    node_init(&t->node, p->loop, &spec, &ev);
    t->started = 1;
    for (int i = 0; i < d->nkv; i++) {
        node_kvs_put(&t->node, d->kv[2 * i], d->kv[2 * i + 1]);
        if (universe_of_pair(d->kv[2 * i], d->kv[2 * i + 1]))
            pmi_server_set_universe(&t->node.pmi,
                                    universe_of_pair(d->kv[2 * i], d->kv[2 * i + 1]));
    }
    int bad;
    spawn_err_t err;
    if (node_spawn(&t->node, &bad, &err) != 0) {
        char text[700];
        snprintf(text, sizeof text, "spawned rank %d (rank %d of %s): %s: %s",
                 d->base + d->rank[bad], d->rank[bad], d->kvsname,
                 err.stage == SPAWN_STAGE_WDIR ? "cannot enter its wdir" : "cannot start it",
                 strerror(err.err));
        ctl_buf_t *b = chan_out(p->ch);
        ctl_begin(b, CTL_FAIL);
        ctl_put_u32(b, 1);
        ctl_put_str(b, text);
        ctl_end(b);
        chan_send(p->ch);
    }
}

static int on_go(hostd_parts_t *p, const ctl_frame_t *f, char *why, size_t cap)
{
    hostd_part_t *t = find(p, f->u.parts.node);
    if (!t || !t->waiting_go) {
        snprintf(why, cap, "GO for part %u, which waits for none", f->u.parts.node);
        return -1;
    }
    t->waiting_go = 0;
    if (f->u.parts.rank && !p->condemned) {
        start(t);
        return 0;
    }
    for (int i = 0; i < p->nparts; i++)
        if (p->part[i] == t) {
            p->part[i] = p->part[--p->nparts];
            break;
        }
    part_free(t);
    return 0;
}

static int rank_of_node(const node_t *n, uint32_t rank, char *why, size_t cap)
{
    if (!n || rank >= (uint32_t)n->spec.nranks) {
        snprintf(why, cap, "an answer for rank %u of a node that has no such rank", rank);
        return -1;
    }
    return 0;
}

int hostd_parts_frame(hostd_parts_t *p, const ctl_frame_t *f, char *why, size_t cap)
{
    uint32_t id = f->u.parts.node, rank = f->u.parts.rank;
    ctl_strs_t fl = f->u.parts.fields;
    node_t *n = node_of(p, id);
    switch (f->u.parts.op) {
    case CTL_PARTS_PART:
        return on_part(p, f, why, cap);
    case CTL_PARTS_GO:
        return on_go(p, f, why, cap);
    case CTL_PARTS_ANSWER: {
        if (rank_of_node(n, rank, why, cap) != 0 || fl.n != 1) {
            snprintf(why, cap, "a malformed ANSWER");
            return -1;
        }
        const char *line = ctl_strs_next(&fl);
        pmi_server_answer(&n->pmi, (int)rank, *line ? line : NULL);
        return 0;
    }
    case CTL_PARTS_RESULT: {
        if (rank_of_node(n, rank, why, cap) != 0 || fl.n != 2) {
            snprintf(why, cap, "a malformed spawn RESULT");
            return -1;
        }
        const char *kvs = ctl_strs_next(&fl), *second = ctl_strs_next(&fl);
        if (*kvs)
            pmi_server_spawn_reply(&n->pmi, (int)rank, kvs, atoi(second), NULL);
        else
            pmi_server_spawn_reply(&n->pmi, (int)rank, NULL, 0, second);
        return 0;
    }
    case CTL_PARTS_BARRIER_OUT: {
        if (!n || id == 0 || fl.n % 2) {
            snprintf(why, cap, "a BARRIER_OUT of part %u, which does not run here", id);
            return -1;
        }
        for (uint32_t i = 0; i < f->u.parts.fields.n; i += 2) {
            const char *k = ctl_strs_next(&fl), *v = ctl_strs_next(&fl);
            if (!pmi_wire_valid_key(k) || !pmi_wire_valid_value(v)) {
                snprintf(why, cap, "an invalid key or value in a BARRIER_OUT");
                return -1;
            }
            node_kvs_put(n, k, v);
        }
        node_barrier_release(n);
        return 0;
    }
    default:
        snprintf(why, cap, "a PARTS frame of op %u, which mpirun does not send", f->u.parts.op);
        return -1;
    }
}

int hostd_parts_take_exit(hostd_parts_t *p, pid_t pid, int status)
{
    for (int i = 0; i < p->nparts; i++)
        if (p->part[i]->started && node_take_exit(&p->part[i]->node, pid, status))
            return 1;
    return 0;
}

void hostd_parts_signal(hostd_parts_t *p, int sig)
{
    p->condemned = 1;
    for (int i = 0; i < p->nparts; i++)
        if (p->part[i]->started)
            node_signal(&p->part[i]->node, sig);
}

int hostd_parts_live(const hostd_parts_t *p)
{
    int n = 0;
    for (int i = 0; i < p->nparts; i++)
        n += p->part[i]->started ? node_live(&p->part[i]->node)
                                 : p->part[i]->waiting_go && !p->condemned;
    return n;
}

int hostd_parts_io_open(const hostd_parts_t *p)
{
    int n = 0;
    for (int i = 0; i < p->nparts; i++)
        if (p->part[i]->started)
            n += node_io_open(&p->part[i]->node);
    return n;
}

void hostd_parts_free(hostd_parts_t *p)
{
    for (int i = 0; i < p->nparts; i++)
        part_free(p->part[i]);
    free(p->part);
    p->part = NULL;
    p->nparts = 0;
}
