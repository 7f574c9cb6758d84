#include "spawned.h"

#include "app_resolve.h"
#include "jobspace.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct spawned_part {
    spawned_t *owner;
    node_t node;
    char kvsname[PMI_WIRE_KVSNAME_MAX + 1];
    int base;                 /* job-wide number of its rank 0 */
    int nranks;
    node_prog_t *prog;        /* per rank; path, argv and wdir are owned by the apps below */
    char **path;              /* per app: resolved program */
    char ***argv;             /* per app: NULL-terminated, argv[0] = the command */
    char **wdir;              /* per app, or NULL */
    int napps;
};

void spawned_init(spawned_t *s, ev_loop_t *loop, job_t *job, node_t *first,
                  const jobenv_t *env, int tag_output, int universe)
{
    memset(s, 0, sizeof *s);
    s->loop = loop;
    s->job = job;
    s->first = first;
    s->env = env;
    s->kvsname = first->spec.kvsname;
    s->next_id = first->spec.nranks;
    s->universe = universe;
    s->tag_output = tag_output;
    s->shared = jobspace_new();
}

int spawned_shared(spawned_t *s, const pmi_msg_t *m, char *reply, size_t cap)
{
    return jobspace_command(s->shared, m, reply, cap);
}

static void part_exited(void *ctx, int rank, pid_t pid, int status, int inited, int finalized)
{
    spawned_part_t *p = ctx;
    job_rank_exited(p->owner->job, p->base + rank, util_hostname(), pid, status, inited,
                    finalized);
}

static void part_aborted(void *ctx, int rank, pid_t pid, int exitcode, const char *msg)
{
    spawned_part_t *p = ctx;
    job_rank_aborted(p->owner->job, p->base + rank, util_hostname(), pid, exitcode, msg);
}

static void part_pmi_failed(void *ctx, int rank, pid_t pid, enum pmi_fail_kind kind,
                            const char *detail)
{
    spawned_part_t *p = ctx;
    job_pmi_failed(p->owner->job, p->base + rank, util_hostname(), pid, kind, detail);
}

static void part_bind_refused(void *ctx, int rank, pid_t pid, int err)
{
    (void)ctx, (void)rank, (void)pid, (void)err;  /* spawned ranks are never bound */
}

static void part_spawn(void *ctx, int rank, pmi_spawn_req_t *req)
{
    spawned_part_t *p = ctx;
    spawned_request(p->owner, &p->node, rank, req);
}

static const char *part_lookup(void *ctx, const char *kvsname, const char *key)
{
    spawned_part_t *p = ctx;
    return spawned_lookup(p->owner, kvsname, key);
}

static int part_shared(void *ctx, const pmi_msg_t *m, char *reply, size_t cap)
{
    spawned_part_t *p = ctx;
    return spawned_shared(p->owner, m, reply, cap);
}

static void part_free(spawned_part_t *p)
{
    if (p->node.rank)
        node_free(&p->node);
    for (int a = 0; a < p->napps; a++) {
        free(p->path[a]);
        for (char **v = p->argv[a]; v && *v; v++)
            free(*v);
        free(p->argv[a]);
        free(p->wdir[a]);
    }
    free(p->path);
    free(p->argv);
    free(p->wdir);
    free(p->prog);
    free(p);
}

/* Checks what the request asks of this host: its "host" keys name this host. */
static int check_host(const pmi_spawn_app_t *a, char *why, size_t cap)
{
    const char *h = pmi_spawn_info(a, "host");
    if (!h || strcmp(h, "localhost") == 0 || strcmp(h, util_hostname()) == 0)
        return 0;
    snprintf(why, cap, "host '%s' is not a host of this job (it runs on %s alone)", h,
             util_hostname());
    return -1;
}

/* Builds the part's programs from the request; 0, or -1 with the reason in why. */
static int part_programs(spawned_part_t *p, const pmi_spawn_req_t *req, char *why, size_t cap)
{
    p->napps = req->napps;
    p->path = util_xmalloc((size_t)req->napps * sizeof *p->path);
    p->argv = util_xmalloc((size_t)req->napps * sizeof *p->argv);
    p->wdir = util_xmalloc((size_t)req->napps * sizeof *p->wdir);
    memset(p->path, 0, (size_t)req->napps * sizeof *p->path);
    memset(p->argv, 0, (size_t)req->napps * sizeof *p->argv);
    memset(p->wdir, 0, (size_t)req->napps * sizeof *p->wdir);
    p->prog = util_xmalloc((size_t)req->nprocs * sizeof *p->prog);
    int r = 0;
    for (int a = 0; a < req->napps; a++) {
        const pmi_spawn_app_t *app = &req->app[a];
        if (check_host(app, why, cap) != 0)
            return -1;
        int e = app_resolve(app->execname, pmi_spawn_info(app, "path"), &p->path[a]);
        if (e) {
            snprintf(why, cap, "cannot execute '%s': %s", app->execname, strerror(e));
            return -1;
        }
        const char *wdir = pmi_spawn_info(app, "wdir");
        p->wdir[a] = wdir && *wdir ? util_xstrdup(wdir) : NULL;
        p->argv[a] = util_xmalloc((size_t)(app->argc + 2) * sizeof(char *));
        p->argv[a][0] = util_xstrdup(app->execname);
        for (int i = 0; i < app->argc; i++)
            p->argv[a][i + 1] = util_xstrdup(app->argv[i]);
        p->argv[a][app->argc + 1] = NULL;
        for (int i = 0; i < app->maxprocs; i++, r++)
            p->prog[r] = (node_prog_t){ .path = p->path[a], .argv = p->argv[a],
                                        .wdir = p->wdir[a], .appnum = a };
    }
    p->nranks = r;
    return 0;
}

void spawned_request(spawned_t *s, node_t *from, int rank, pmi_spawn_req_t *req)
{
    char why[512];
    spawned_part_t *p = util_xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    p->owner = s;
    snprintf(p->kvsname, sizeof p->kvsname, "%s.s%d", s->kvsname, s->nparts + 1);
    if (s->job->condemned) {
        snprintf(why, sizeof why, "the job is ending");
        goto refuse;
    }
    if (part_programs(p, req, why, sizeof why) != 0)
        goto refuse;
    if (p->nranks > INT_MAX - s->next_id) {
        snprintf(why, sizeof why, "too many ranks in the job");
        goto refuse;
    }
    p->base = s->next_id;
    node_spec_t spec = { .nranks = p->nranks, .path = p->path[0], .argv = p->argv[0],
                         .env = s->env, .env_extra = s->first->spec.env_extra,
                         .nenv_extra = s->first->spec.nenv_extra,
                         .kvsname = p->kvsname, .tag_output = s->tag_output,
                         .stdin_fd = NODE_STDIN_NONE, .stdout_fd = STDOUT_FILENO,
                         .stderr_fd = STDERR_FILENO, .prog = p->prog, .tag_base = p->base };
    node_events_t ev = { .ctx = p, .exited = part_exited, .aborted = part_aborted,
                         .pmi_failed = part_pmi_failed, .bind_refused = part_bind_refused,
                         .spawn = part_spawn, .lookup = part_lookup, .shared = part_shared };
    node_init(&p->node, s->loop, &spec, &ev);
    pmi_server_set_universe(&p->node.pmi, s->universe);
    char v[64], parent[PMI_WIRE_KVSNAME_MAX + 32];
    snprintf(v, sizeof v, "%d", p->base);
    snprintf(parent, sizeof parent, "%s %d", from->spec.kvsname, rank);
    for (char *c = parent; *c; c++)
        if (*c == ' ')
            *c = ',';  /* a PMI value holds no space */
    node_kvs_put(&p->node, "metampi.spawn", "1");
    node_kvs_put(&p->node, "metampi.part.base", v);
    node_kvs_put(&p->node, "metampi.part.parent", parent);
    for (int i = 0; i < req->npreput; i++)
        if (node_kvs_put(&p->node, req->preput[2 * i], req->preput[2 * i + 1]) != 0) {
            snprintf(why, sizeof why, "the preput pairs do not fit the key-value space");
            goto refuse;
        }
    s->part = util_xrealloc(s->part, (size_t)(s->nparts + 1) * sizeof *s->part);
    s->part[s->nparts++] = p;
    s->next_id += p->nranks;
    pmi_spawn_free(req);
    free(req);

    int bad;
    spawn_err_t err;
    if (node_spawn(&p->node, &bad, &err) != 0) {
        /* Rare (fork, pipes, chdir): the ranks started keep running, so the job ends. */
        const char *stage = err.stage == SPAWN_STAGE_WDIR ? "cannot enter its wdir"
                                                          : "cannot start it";
        pmi_server_spawn_reply(&from->pmi, rank, NULL, 0, "a spawned rank could not start");
        job_fail(s->job, 1, 0, "spawned rank %d (rank %d of %s): %s: %s", p->base + bad, bad,
                 p->kvsname, stage, strerror(err.err));
        return;
    }
    pmi_server_spawn_reply(&from->pmi, rank, p->kvsname, p->nranks, NULL);
    return;

refuse:
    pmi_spawn_free(req);
    free(req);
    part_free(p);
    pmi_server_spawn_reply(&from->pmi, rank, NULL, 0, why);
}

const char *spawned_lookup(spawned_t *s, const char *kvsname, const char *key)
{
    if (strcmp(kvsname, s->kvsname) == 0)
        return kvs_get(&s->first->pmi.kvs, key);
    for (int i = 0; i < s->nparts; i++)
        if (strcmp(kvsname, s->part[i]->kvsname) == 0)
            return kvs_get(&s->part[i]->node.pmi.kvs, key);
    return NULL;
}

int spawned_take_exit(spawned_t *s, pid_t pid, int status)
{
    for (int i = 0; i < s->nparts; i++)
        if (node_take_exit(&s->part[i]->node, pid, status))
            return 1;
    return 0;
}

void spawned_signal(spawned_t *s, int sig)
{
    for (int i = 0; i < s->nparts; i++)
        node_signal(&s->part[i]->node, sig);
}

int spawned_live(const spawned_t *s)
{
    int n = 0;
    for (int i = 0; i < s->nparts; i++)
        n += node_live(&s->part[i]->node);
    return n;
}

int spawned_io_open(const spawned_t *s)
{
    int n = 0;
    for (int i = 0; i < s->nparts; i++)
        n += node_io_open(&s->part[i]->node);
    return n;
}

void spawned_free(spawned_t *s)
{
    for (int i = 0; i < s->nparts; i++)
        part_free(s->part[i]);
    free(s->part);
    s->part = NULL;
    s->nparts = 0;
    jobspace_free(s->shared);
    s->shared = NULL;
}
