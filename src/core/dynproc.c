#include "core/dynproc.h"

#include "core/ctxid.h"
#include "core/ctxid_pool.h"
#include "core/group.h"
#include "core/icoll.h"
#include "core/lock.h"
#include "core/p2p.h"
#include "runtime/job.h"
#include "runtime/peer_timeout.h"
#include "runtime/procs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The children's contexts (pairs 2 and 3, see dynproc.h): the inter-communicator's recv_ctx
 * and its local_comm's. */
enum { CHILD_PAIR = 2, CHILD_CTX = 2 * CHILD_PAIR, CHILD_LOCAL_CTX = 2 * (CHILD_PAIR + 1) };

static comm_t *parent_comm;

/* What the root tells the other parents (icoll_bcast: bytes; rc and size little-endian,
 * since the parents may differ in byte order, core/icoll.h). */
typedef struct outcome {
    int rc;                 /* MPI_SUCCESS, MPI_ERR_SPAWN, MPI_ERR_OTHER */
    int size;
    char kvsname[PMI_WIRE_KVSNAME_MAX + 1];
    char why[384];
} outcome_t;

/* A pause between two questions to mpirun, without the core lock: the process's other
 * threads use MPI meanwhile (the connection or the children may wait for one of them). */
static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    int levels = core_lock_release_all();
    nanosleep(&ts, NULL);
    core_lock_reacquire(levels);
}

/* The root: waits for the children's metampi.ready (step 3). */
static int wait_ready(outcome_t *o)
{
    int timeout_s = 0;
    char err[256], v[16];
    if (peer_timeout_read(&timeout_s, err, sizeof err) != 0 || timeout_s <= 0)
        timeout_s = 60;
    long waited = 0, step = 1;
    for (;;) {
        int rc = job_get_in(o->kvsname, "metampi.ready", v, sizeof v, err, sizeof err);
        if (rc == 0)
            return 0;
        if (rc < 0 || waited >= 1000L * timeout_s) {
            snprintf(o->why, sizeof o->why, "the spawned processes did not all reach MPI_Init "
                     "within %d s (METAMPI_PEER_TIMEOUT)%s%s", timeout_s, rc < 0 ? ": " : "",
                     rc < 0 ? err : "");
            return -1;
        }
        sleep_ms(step);
        waited += step;
        step = step < 20 ? 2 * step : 20;
    }
}

/* Formats a string at *t (room sized by the caller), moves *t past it; returns the string. */
static char *put(char **t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *put(char **t, const char *fmt, ...)
{
    char *s = *t;
    va_list ap;
    va_start(ap, fmt);
    *t += vsprintf(s, fmt, ap) + 1;
    va_end(ap);
    return s;
}

/* The root: steps 2 and 3. */
static void root_spawn(comm_t *comm, uint32_t recv_ctx, const job_spawn_app_t *apps,
                       int napps, outcome_t *o)
{
    int n = comm->size, np = 2 * (n + 2);
    char **pre = calloc((size_t)np, sizeof *pre);
    char *text = malloc((size_t)(n + 2) * (2 * 32 + PMI_WIRE_KVSNAME_MAX + 16));
    if (!pre || !text) {
        free(pre);
        free(text);
        o->rc = MPI_ERR_NO_MEM;
        snprintf(o->why, sizeof o->why, "out of memory");
        return;
    }
    char *t = text;
    int k = 0;
    pre[k++] = put(&t, "metampi.pgroup.n");
    pre[k++] = put(&t, "%d", n);
    pre[k++] = put(&t, "metampi.pctx");
    pre[k++] = put(&t, "%u", (unsigned)recv_ctx);
    for (int i = 0; i < n; i++) {
        int w = group_world_rank(comm->group, i);
        pre[k++] = put(&t, "metampi.pgroup.%d", i);
        pre[k++] = put(&t, "%s,%d", procs_kvsname(w), procs_part_rank(w));
    }
    int rc = job_spawn(apps, napps, (const char *const *)pre, k / 2, o->kvsname,
                       (int)sizeof o->kvsname, &o->size, o->why, (int)sizeof o->why);
    free(pre);
    free(text);
    o->rc = rc == 0 ? MPI_SUCCESS : rc > 0 ? MPI_ERR_SPAWN : MPI_ERR_OTHER;
    if (rc == 0 && wait_ready(o) != 0)
        o->rc = MPI_ERR_SPAWN;
}

/* A new group of the n processes of part kvsname, or NULL (why). */
static group_t *part_group(const char *kvsname, int n, char *why, int whylen)
{
    int *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        snprintf(why, (size_t)whylen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if ((w[i] = procs_add(kvsname, i, why, whylen)) < 0) {
            free(w);
            return NULL;
        }
    group_t *g = group_new(n, w);
    free(w);
    if (!g)
        snprintf(why, (size_t)whylen, "out of memory");
    return g;
}

int dynproc_spawn(comm_t *comm, int root, const job_spawn_app_t *apps, int napps,
                  int root_rc, const char *root_why, comm_t **out, int *nspawned, char *why,
                  int whylen)
{
    *out = NULL;
    *nspawned = 0;
    if (!job_can_spawn()) {   /* the same answer at every member, without a word */
        snprintf(why, (size_t)whylen, "%s", job_spawn_refusal());
        return MPI_ERR_SPAWN;
    }
    if (p2p_grow(why, whylen) != 0)   /* step 1: listening, the card published */
        return MPI_ERR_OTHER;
    uint32_t ids[2];
    int rc = ctxid_agree(comm, 2, ids);
    if (rc != MPI_SUCCESS) {
        snprintf(why, (size_t)whylen, "no context id for the inter-communicator");
        return rc;
    }
    outcome_t *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(why, (size_t)whylen, "out of memory");
        return MPI_ERR_NO_MEM;   /* out of memory mid-way: the job cannot go on consistently */
    }
    if (comm->rank == root && root_rc != MPI_SUCCESS) {
        o->rc = root_rc;
        snprintf(o->why, sizeof o->why, "%s", root_why);
    } else if (comm->rank == root) {
        root_spawn(comm, ids[0], apps, napps, o);
    }
    icoll_le32(&o->rc, 1), icoll_le32(&o->size, 1);
    rc = icoll_bcast(comm, o, sizeof *o, root);
    icoll_le32(&o->rc, 1), icoll_le32(&o->size, 1);
    if (rc == MPI_SUCCESS)
        rc = o->rc;
    group_t *rg = NULL;
    if (rc == MPI_SUCCESS && !(rg = part_group(o->kvsname, o->size, o->why, sizeof o->why)))
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && p2p_grow(o->why, sizeof o->why) != 0)
        rc = MPI_ERR_OTHER;
    if (rc != MPI_SUCCESS) {
        snprintf(why, (size_t)whylen, "%s", o->why);
        if (rg)
            group_release(rg);
        ctxid_release(ids[0]);
        ctxid_release(ids[1]);
        free(o);
        return rc;
    }
    *nspawned = o->size;
    free(o);
    rc = comm_intercomm_join(comm, rg, ids, CHILD_CTX, out);
    if (rc != MPI_SUCCESS)
        snprintf(why, (size_t)whylen, "cannot make the inter-communicator");
    return rc;
}

/* The parent group from our space's metampi.pgroup.*: a new group, or NULL (err; *none when
 * this part was not spawned). */
static group_t *parent_group(int *none, uint32_t *pctx, char *err, int errlen)
{
    char v[PMI_WIRE_VALLEN_MAX + 1], key[48];
    *none = 0;
    int rc = job_get("metampi.pgroup.n", v, sizeof v, err, errlen);
    if (rc != 0) {
        *none = rc > 0;
        return NULL;
    }
    int n = atoi(v);
    if (n <= 0 || job_get("metampi.pctx", v, sizeof v, err, errlen) != 0) {
        snprintf(err, (size_t)errlen, "the spawn request's parent group is malformed");
        return NULL;
    }
    *pctx = (uint32_t)strtoul(v, NULL, 10);
    int *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        snprintf(err, (size_t)errlen, "out of memory");
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof key, "metampi.pgroup.%d", i);
        char *comma;
        if (job_get(key, v, sizeof v, err, errlen) != 0 || !(comma = strrchr(v, ','))) {
            snprintf(err, (size_t)errlen, "the spawn request's parent group lacks member %d", i);
            free(w);
            return NULL;
        }
        *comma = '\0';
        if ((w[i] = procs_add(v, atoi(comma + 1), err, errlen)) < 0) {
            free(w);
            return NULL;
        }
    }
    group_t *g = group_new(n, w);
    free(w);
    if (!g)
        snprintf(err, (size_t)errlen, "out of memory");
    return g;
}

int dynproc_init(char *err, int errlen)
{
    if (!job_can_spawn())
        return 0;
    int none;
    uint32_t pctx = 0;
    char v[PMI_WIRE_VALLEN_MAX + 1];
    int rc = job_get("metampi.part.parent", v, sizeof v, err, errlen);
    if (rc != 0)
        return rc < 0 ? -1 : 0;   /* absent: the job's first part, nobody's child */
    if (procs_init(err, errlen) != 0)
        return -1;
    group_t *rg = parent_group(&none, &pctx, err, errlen);
    if (!rg)
        return none ? 0 : -1;
    if (p2p_grow(err, errlen) != 0 || !ctxid_pool_is_free(CHILD_PAIR) ||
        !ctxid_pool_is_free(CHILD_PAIR + 1)) {
        if (ctxid_pool_is_free(CHILD_PAIR))
            snprintf(err, (size_t)errlen, "context ids of the parent inter-communicator are "
                     "taken (METAMPI_CONTEXT_IDS too small?)");
        group_release(rg);
        return -1;
    }
    ctxid_pool_take(CHILD_PAIR);
    ctxid_pool_take(CHILD_PAIR + 1);
    /* every child's card is published before the parents hear that we are ready */
    if ((job.size > 1 && job_barrier(err, errlen) != 0) ||
        (job.rank == 0 && job_put("metampi.ready", "1", err, errlen) != 0)) {
        group_release(rg);
        return -1;
    }
    const uint32_t ids[2] = { CHILD_CTX, CHILD_LOCAL_CTX };
    if (comm_intercomm_join(comm_lookup(MPI_COMM_WORLD), rg, ids, pctx, &parent_comm) !=
        MPI_SUCCESS) {
        snprintf(err, (size_t)errlen, "cannot make the parent inter-communicator");
        return -1;
    }
    comm_retain(parent_comm);   /* ours: get_parent answers NULL once the user freed it */
    return 0;
}

comm_t *dynproc_parent(void)
{
    return parent_comm && !parent_comm->user_freed ? parent_comm : NULL;
}

void dynproc_finalize(void)
{
    if (parent_comm)
        comm_release(parent_comm);
    parent_comm = NULL;
}
