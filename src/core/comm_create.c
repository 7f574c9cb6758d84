/* Collective constructors of communicators (MPI-3.1 §6.4.2, §6.6.2): dup (blocking and
 * nonblocking), create, create_group, split, split by host — each also on
 * inter-communicators where the standard allows it — and MPI_Intercomm_create/merge. */
#include "core/icoll.h"
#include "core/ctxid.h"
#include "core/p2p.h"
#include "core/topo.h"

#include "runtime/procs.h"

#include <endian.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* A new ready communicator over group with the given contexts, published. */
static int finish_new(comm_t *parent, group_t *group, group_t *remote, uint32_t recv_ctx,
                      uint32_t send_ctx, comm_t **out)
{
    comm_t *c = comm_new_object(parent, group, remote);
    if (!c)
        return MPI_ERR_NO_MEM;
    if (comm_set_context(c, recv_ctx, send_ctx) != MPI_SUCCESS) {
        comm_release(c); /* not ready: the caller keeps the contexts it agreed */
        return MPI_ERR_NO_MEM;
    }
    c->ready = 1;
    int rc = comm_publish(c);
    if (rc != MPI_SUCCESS) {
        comm_release(c);
        return rc;
    }
    *out = c;
    return MPI_SUCCESS;
}

/* parent's own group when g has the same members in the same order (keeps the identity map
 * of the world group), else g; one new reference either way. */
static group_t *prefer_parent_group(comm_t *parent, group_t *g)
{
    if (g != parent->group && group_compare(g, parent->group) == MPI_IDENT) {
        group_release(g);
        g = parent->group;
        group_retain(g);
    }
    return g;
}

/* A local_comm for inter-communicator c: an intra-communicator over c's local group. */
static int attach_local_comm(comm_t *c, uint32_t ctx)
{
    comm_t *l = comm_new_object(c, c->group, NULL);
    if (!l)
        return MPI_ERR_NO_MEM;
    if (comm_set_context(l, ctx, ctx) != MPI_SUCCESS) {
        comm_release(l);
        return MPI_ERR_NO_MEM;
    }
    l->ready = 1;
    c->local_comm = l;
    return MPI_SUCCESS;
}

/* Leaders (local rank 0) of inter-communicator c swap send (sbytes) for recv (rbytes); recv
 * is then broadcast in each local group. One collective operation on c. */
static int inter_swap(comm_t *c, const void *send, size_t sbytes, void *recv, size_t rbytes)
{
    icoll_sched_t *s = icoll_sched_new_op(c, COMM_BLOCKING, COMM_OP_INTERNAL);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (c->local_comm->rank == 0) {
        icoll_sched_send(s, c, 0, send, sbytes);
        icoll_sched_recv(s, c, 0, recv, rbytes);
        icoll_sched_fence(s);
    }
    icoll_sched_bcast(s, c->local_comm, recv, rbytes, 0);
    return icoll_sched_run(s);
}

/* inter_swap of n 32-bit words (ints, context ids) each way, little-endian between the groups
 * and within them (issue 19: the groups' members may be of unlike architectures); send and
 * recv in host order. */
static int inter_swap_words(comm_t *c, const void *send, size_t n, void *recv, size_t rn)
{
    uint32_t *le = malloc((n + 1) * sizeof *le);
    if (!le)
        return MPI_ERR_NO_MEM;
    memcpy(le, send, n * sizeof *le);
    icoll_le32(le, n);
    int rc = inter_swap(c, le, n * sizeof *le, recv, rn * sizeof *le);
    free(le);
    icoll_le32(recv, rn);
    return rc;
}

/* Two context ids agreed over c's local group (the new inter-communicator's recv_ctx and its
 * local_comm's), and the remote group's new recv_ctx. One agreement and one swap on c. */
static int inter_contexts(comm_t *c, uint32_t ids[2], uint32_t *remote)
{
    comm_op_t op = comm_next_op(c, COMM_BLOCKING, COMM_OP_INTERNAL);
    icoll_sched_t *s = icoll_sched_new(op.tag);
    if (!s)
        return MPI_ERR_NO_MEM;
    ctxid_sched_agree(s, c->local_comm, 2, op.key, ids);
    int rc = icoll_sched_run(s);
    if (rc == MPI_SUCCESS)
        rc = inter_swap_words(c, &ids[0], 1, remote, 1);
    return rc;
}

/* ---- dup ------------------------------------------------------------------------------ */

typedef struct dup_state {
    comm_t *c;
    uint32_t ids[2];      /* recv_ctx (and, inter, local_comm's) */
    uint32_t remote;      /* inter: the remote group's new recv_ctx */
    uint32_t ctx_le;      /* inter: ids[0] little-endian, as sent to the other group */
    void (*done)(int err, void *arg);
    void *arg;
} dup_state_t;

static int dup_finish(icoll_sched_t *s, void *arg)
{
    (void)s;
    dup_state_t *d = arg;
    comm_t *c = d->c;
    if (comm_is_inter(c)) {
        d->remote = le32toh(d->remote); /* little-endian between the groups (issue 19) */
        if (comm_set_context(c, d->ids[0], d->remote) != MPI_SUCCESS ||
            attach_local_comm(c, d->ids[1]) != MPI_SUCCESS) {
            ctxid_release(d->ids[0]);
            ctxid_release(d->ids[1]);
            return MPI_ERR_NO_MEM;
        }
    } else if (comm_set_context(c, d->ids[0], d->ids[0]) != MPI_SUCCESS) {
        ctxid_release(d->ids[0]);
        return MPI_ERR_NO_MEM;
    }
    c->ready = 1;
    return MPI_SUCCESS;
}

/* A step after the agreement: what the remote group receives is little-endian. */
static int dup_ctx_to_le(icoll_sched_t *s, void *arg)
{
    (void)s;
    dup_state_t *d = arg;
    d->ctx_le = htole32(d->ids[0]);
    return MPI_SUCCESS;
}

static void dup_done(int err, void *arg)
{
    dup_state_t *d = arg;
    d->done(err, d->arg);
}

/* The new communicator (not ready) and the schedule that gives it its context: the next
 * operation of stream on parent (MPI_Comm_idup's is the nonblocking one). */
static int dup_begin(comm_t *parent, comm_stream_t stream, comm_t **out, icoll_sched_t **sched,
                     dup_state_t **state)
{
    comm_op_t op = comm_next_op(parent, stream, COMM_OP_INTERNAL);
    icoll_sched_t *s = icoll_sched_new(op.tag);
    comm_t *c = comm_new_object(parent, parent->group, parent->remote_group);
    dup_state_t *d = s ? icoll_sched_alloc(s, sizeof *d) : NULL;
    if (!d || !c)
        goto nomem;
    if (parent->topo && !(c->topo = topo_copy(parent->topo)))
        goto nomem;
    if (parent->info && !(c->info = info_copy(parent->info)))
        goto nomem;
    d->c = c;
    if (comm_is_inter(parent)) {
        comm_t *l = parent->local_comm;
        ctxid_sched_agree(s, l, 2, op.key, d->ids);
        if (l->rank == 0) {
            icoll_sched_call(s, dup_ctx_to_le, d);
            icoll_sched_send(s, parent, 0, &d->ctx_le, sizeof d->ctx_le);
            icoll_sched_recv(s, parent, 0, &d->remote, sizeof d->remote);
            icoll_sched_fence(s);
        }
        icoll_sched_bcast(s, l, &d->remote, sizeof d->remote, 0);
    } else {
        ctxid_sched_agree(s, parent, 1, op.key, d->ids);
    }
    icoll_sched_call(s, dup_finish, d);
    *out = c;
    *sched = s;
    *state = d;
    return MPI_SUCCESS;
nomem:
    if (c)
        comm_release(c);
    if (s)
        icoll_sched_discard(s);
    return MPI_ERR_NO_MEM;
}

int comm_dup(comm_t *parent, comm_t **out)
{
    comm_t *c;
    icoll_sched_t *s;
    dup_state_t *d;
    int rc = dup_begin(parent, COMM_BLOCKING, &c, &s, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = icoll_sched_run(s);
    if (rc == MPI_SUCCESS)
        rc = comm_publish(c);
    if (rc != MPI_SUCCESS) {
        comm_release(c);
        return rc;
    }
    *out = c;
    return MPI_SUCCESS;
}

int comm_idup(comm_t *parent, comm_t **out, void (*done)(int err, void *arg), void *arg)
{
    comm_t *c;
    icoll_sched_t *s;
    dup_state_t *d;
    int rc = dup_begin(parent, COMM_NONBLOCKING, &c, &s, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = comm_publish(c); /* the handle exists at once; lookups fail until it is ready */
    if (rc != MPI_SUCCESS) {
        icoll_sched_discard(s);
        comm_release(c);
        return rc;
    }
    *out = c;
    d->done = done;
    d->arg = arg;
    icoll_sched_start(s, dup_done, d);
    return MPI_SUCCESS;
}

/* ---- create, create_group ---------------------------------------------------------------- */

/* The world ranks of g's members. */
static int *world_ranks(const group_t *g)
{
    int *w = malloc((size_t)(g->size > 0 ? g->size : 1) * sizeof *w);
    if (w)
        for (int i = 0; i < g->size; i++)
            w[i] = group_world_rank(g, i);
    return w;
}

static int create_inter(comm_t *parent, group_t *group, comm_t **out);

int comm_create(comm_t *parent, group_t *group, comm_t **out)
{
    *out = NULL;
    if (comm_is_inter(parent))
        return create_inter(parent, group, out);
    uint32_t ctx;
    int rc = ctxid_agree(parent, 1, &ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    if (group->rank == MPI_UNDEFINED) {
        ctxid_release(ctx);
        return MPI_SUCCESS;
    }
    group_retain(group);
    group_t *g = prefer_parent_group(parent, group);
    rc = finish_new(parent, g, NULL, ctx, ctx, out);
    group_release(g);
    if (rc != MPI_SUCCESS)
        ctxid_release(ctx);
    return rc;
}

/* The end of create and split on inter-communicator parent: the caller's new
 * inter-communicator over lg and rg (NULL, or empty: MPI_COMM_NULL) with the agreed contexts,
 * which are returned to the pool when not used. Consumes the group references. */
static int finish_inter(comm_t *parent, group_t *lg, group_t *rg, const uint32_t ids[2],
                        uint32_t remote, comm_t **out)
{
    int rc = MPI_SUCCESS;
    if (lg && rg && lg->rank != MPI_UNDEFINED && rg->size > 0) {
        rc = finish_new(parent, lg, rg, ids[0], remote, out);
        if (rc == MPI_SUCCESS && (rc = attach_local_comm(*out, ids[1])) != MPI_SUCCESS) {
            comm_release(*out); /* returns ids[0] */
            *out = NULL;
            ctxid_release(ids[1]);
        } else if (rc != MPI_SUCCESS) {
            ctxid_release(ids[0]);
            ctxid_release(ids[1]);
        }
    } else {
        ctxid_release(ids[0]);
        ctxid_release(ids[1]);
    }
    if (lg)
        group_release(lg);
    if (rg)
        group_release(rg);
    return rc;
}

/* MPI-3.1 §6.4.2: on an inter-communicator, each side's group (its local leader's argument)
 * forms the local group of its members and the remote group of the other side. Processes
 * outside their side's group, or whose remote group is empty, get MPI_COMM_NULL. */
static int create_inter(comm_t *parent, group_t *group, comm_t **out)
{
    int rsize = 0, lsize = group->size;
    int rc = inter_swap_words(parent, &lsize, 1, &rsize, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    int *mine = world_ranks(group), *theirs = malloc((size_t)(rsize + 1) * sizeof *theirs);
    if (!mine || !theirs)
        rc = MPI_ERR_NO_MEM; /* out of memory mid-way: the job cannot go on consistently */
    if (rc == MPI_SUCCESS)
        rc = inter_swap_words(parent, mine, (size_t)lsize, theirs, (size_t)rsize);
    uint32_t ids[2], remote;
    if (rc == MPI_SUCCESS)
        rc = inter_contexts(parent, ids, &remote);
    group_t *rg = NULL;
    if (rc == MPI_SUCCESS) {
        rg = group_new(rsize, theirs);
        group_retain(group);
        rc = finish_inter(parent, group, rg, ids, remote, out);
        if (!rg && rc == MPI_SUCCESS)
            rc = MPI_ERR_NO_MEM;
    }
    free(mine);
    free(theirs);
    return rc;
}

int comm_create_group(comm_t *parent, group_t *group, int tag, comm_t **out)
{
    /* The agreement runs over the group's members on parent's internal context, addressed by
     * their ranks in parent, with a tag of its own (negative: never one of parent's streams)
     * derived from the user's. Calls with that tag by different, overlapping groups follow
     * each other at each member in one order (each is collective over its group), so between
     * two members every message of one call precedes every message of the next and each call
     * receives exactly what the other sends in it: the non-overtaking rule keeps the calls
     * apart. (Group ranks would not: the process that is rank 1 of one call's group may be
     * another than rank 1 of the next, whose early messages then match the first call's
     * receives — the agreement then never converged.) */
    int *ranks = malloc((size_t)group->size * sizeof *ranks);
    int *in_parent = group_rank_map(parent->group); /* a subgroup: checked by the API */
    if (!ranks || !in_parent) {
        free(ranks);
        free(in_parent);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < group->size; i++)
        ranks[i] = in_parent[group_world_rank(group, i)];
    free(in_parent);
    icoll_team_t team = { parent, group->size, group->rank, ranks };
    uint64_t key = (parent->key << 30) | (2ull << 28) | (uint64_t)(tag & 0x0fffffff);
    uint32_t ctx;
    int rc = ctxid_agree_team(&team, INT_MIN + (tag & 0x3fffffff), key, &ctx);
    free(ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    group_retain(group);
    group_t *g = prefer_parent_group(parent, group);
    rc = finish_new(parent, g, NULL, ctx, ctx, out);
    group_release(g);
    if (rc != MPI_SUCCESS)
        ctxid_release(ctx);
    return rc;
}

/* ---- split ---------------------------------------------------------------------------- */

typedef struct member {
    int color, key, rank;
} member_t;

static int by_key(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The group of the members of table (n entries of {color, key}, rank order, ranks of g) with
 * the given color, ordered by key then rank; NULL when out of memory. */
static group_t *select_color(const int *table, int n, const group_t *g, int color)
{
    member_t *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    group_t *r = NULL;
    if (m && w) {
        int k = 0;
        for (int i = 0; i < n; i++)
            if (table[2 * i] == color)
                m[k++] = (member_t){ color, table[2 * i + 1], i };
        qsort(m, (size_t)k, sizeof *m, by_key);
        for (int i = 0; i < k; i++)
            w[i] = group_world_rank(g, m[i].rank);
        r = group_new(k, w);
    }
    free(m);
    free(w);
    return r;
}

static int split_inter(comm_t *parent, int color, int key, comm_t **out);

int comm_split(comm_t *parent, int color, int key, comm_t **out)
{
    *out = NULL;
    if (comm_is_inter(parent))
        return split_inter(parent, color, key, out);
    int mine[2] = { color, key }, n = parent->size;
    int *table = malloc(2 * (size_t)n * sizeof *table);
    if (!table)
        return MPI_ERR_NO_MEM;
    int rc = icoll_allgather_ints(parent, mine, 2, table);
    /* One context for all colors: their groups are disjoint. */
    uint32_t ctx = 0;
    if (rc == MPI_SUCCESS)
        rc = ctxid_agree(parent, 1, &ctx);
    if (rc != MPI_SUCCESS || color == MPI_UNDEFINED) {
        free(table);
        if (rc == MPI_SUCCESS)
            ctxid_release(ctx);
        return rc;
    }
    group_t *g = select_color(table, n, parent->group, color);
    free(table);
    if (g)
        g = prefer_parent_group(parent, g);
    rc = g ? finish_new(parent, g, NULL, ctx, ctx, out) : MPI_ERR_NO_MEM;
    if (g)
        group_release(g);
    if (rc != MPI_SUCCESS)
        ctxid_release(ctx);
    return rc;
}

/* A member's (color, key) as an inter-communicator's split exchanges it: little-endian, since
 * members may differ in byte order (docs/heterogeneity.md; the intra-communicator's split
 * uses icoll_allgather_ints). */
static void split_entry(int mine[2], int color, int key)
{
    mine[0] = (int)htole32((uint32_t)color);
    mine[1] = (int)htole32((uint32_t)key);
}

static void split_table_to_host(int *table, int n)
{
    for (int i = 0; i < 2 * n; i++)
        table[i] = (int)le32toh((uint32_t)table[i]);
}

/* MPI-3.1 §6.4.2: the local group of the result is the local members of the caller's color,
 * the remote group the remote members of that color; MPI_COMM_NULL when either is empty. */
static int split_inter(comm_t *parent, int color, int key, comm_t **out)
{
    comm_t *l = parent->local_comm;
    int mine[2], n = l->size, rn = parent->remote_group->size;
    split_entry(mine, color, key);
    int *table = malloc(2 * (size_t)n * sizeof *table);
    int *rtable = malloc(2 * (size_t)rn * sizeof *rtable);
    int rc = table && rtable ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        icoll_sched_t *s = icoll_sched_new_op(parent, COMM_BLOCKING, COMM_OP_INTERNAL);
        if (!s) {
            rc = MPI_ERR_NO_MEM;
        } else {
            icoll_sched_allgather(s, l, mine, sizeof mine, table);
            rc = icoll_sched_run(s);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = inter_swap(parent, table, 2 * (size_t)n * sizeof *table, rtable,
                        2 * (size_t)rn * sizeof *rtable);
    if (rc == MPI_SUCCESS) {
        split_table_to_host(table, n);
        split_table_to_host(rtable, rn);
    }
    uint32_t ids[2], remote;
    if (rc == MPI_SUCCESS)
        rc = inter_contexts(parent, ids, &remote);
    if (rc == MPI_SUCCESS) {
        group_t *lg = NULL, *rg = NULL;
        if (color != MPI_UNDEFINED) {
            lg = select_color(table, n, parent->group, color);
            rg = select_color(rtable, rn, parent->remote_group, color);
        }
        rc = finish_inter(parent, lg, rg, ids, remote, out);
        if (color != MPI_UNDEFINED && (!lg || !rg) && rc == MPI_SUCCESS)
            rc = MPI_ERR_NO_MEM;
    }
    free(table);
    free(rtable);
    return rc;
}

int comm_split_shared(comm_t *parent, int key, comm_t **out)
{
    return comm_split(parent, p2p_host_of(group_world_rank(parent->group, parent->rank)), key,
                      out);
}

int comm_split_site(comm_t *parent, int key, comm_t **out)
{
    return comm_split(parent, p2p_site_of(group_world_rank(parent->group, parent->rank)), key,
                      out);
}

/* ---- inter-communicators (MPI-3.1 §6.6.2) --------------------------------------------- */

int comm_intercomm_create(comm_t *local, int local_leader, comm_t *peer, int remote_leader,
                          int tag, comm_t **out)
{
    *out = NULL;
    uint32_t ids[2];
    int rc = ctxid_agree(local, 2, ids);
    if (rc != MPI_SUCCESS)
        return rc;
    /* hdr: {recv_ctx, group size} of each side; then the groups' world ranks: typed
     * exchanges (little-endian on the wire: either group may join ranks of unlike
     * architectures, issue 19) between the leaders, then broadcast in each group */
    int hdr[2] = { (int)ids[0], local->size }, rhdr[2] = { 0, 0 };
    int *rw = NULL;
    if (local->rank == local_leader) {
        /* the leaders' own tag range on peer's internal context (see comm_create_group) */
        int ptag = -0x40000000 + (tag & 0x1fffffff);
        int *mine = world_ranks(local->group);
        rc = mine ? icoll_sendrecv_ints(peer, remote_leader, ptag, hdr, 2, rhdr, 2)
                  : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS && !(rw = malloc((size_t)(rhdr[1] + 1) * sizeof *rw)))
            rc = MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS)
            rc = icoll_sendrecv_ints(peer, remote_leader, ptag, mine, (size_t)local->size, rw,
                                     (size_t)rhdr[1]);
        free(mine);
    }
    if (rc == MPI_SUCCESS)
        rc = icoll_bcast_ints(local, rhdr, 2, local_leader);
    if (rc == MPI_SUCCESS && !rw && !(rw = malloc((size_t)(rhdr[1] + 1) * sizeof *rw)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = icoll_bcast_ints(local, rw, rhdr[1], local_leader);
    group_t *rg = rc == MPI_SUCCESS ? group_new(rhdr[1], rw) : NULL;
    free(rw);
    if (rc == MPI_SUCCESS && !rg)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        ctxid_release(ids[0]);
        ctxid_release(ids[1]);
        return rc;
    }
    group_retain(local->group);
    return finish_inter(local, local->group, rg, ids, (uint32_t)rhdr[0], out);
}

int comm_intercomm_join(comm_t *local, group_t *remote, const uint32_t ids[2],
                        uint32_t remote_ctx, comm_t **out)
{
    *out = NULL;
    group_retain(local->group);
    return finish_inter(local, local->group, remote, ids, remote_ctx, out);
}

int comm_intercomm_merge(comm_t *inter, int high, comm_t **out)
{
    *out = NULL;
    int mine = high != 0, theirs = 0;
    int rc = inter_swap_words(inter, &mine, 1, &theirs, 1);
    uint32_t ctx;
    if (rc == MPI_SUCCESS)
        rc = ctxid_agree(inter, 1, &ctx);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The group with high = false comes first; with equal values (MPI-3.1 leaves the order
     * to us) the group holding the lower job-wide number at its rank 0: the same answer on
     * both sides even when they are different parts of the job, which number each other
     * differently (runtime/procs.h). */
    const group_t *lg = inter->group, *rg = inter->remote_group;
    int local_first = mine != theirs ? !mine
                                     : procs_id(group_world_rank(lg, 0)) <
                                           procs_id(group_world_rank(rg, 0));
    const group_t *first = local_first ? lg : rg, *second = local_first ? rg : lg;
    int n = lg->size + rg->size;
    int *w = malloc((size_t)n * sizeof *w);
    group_t *g = NULL;
    if (w) {
        for (int i = 0; i < first->size; i++)
            w[i] = group_world_rank(first, i);
        for (int i = 0; i < second->size; i++)
            w[first->size + i] = group_world_rank(second, i);
        g = group_new(n, w);
        free(w);
    }
    rc = g ? finish_new(inter, g, NULL, ctx, ctx, out) : MPI_ERR_NO_MEM;
    if (g)
        group_release(g);
    if (rc != MPI_SUCCESS)
        ctxid_release(ctx);
    return rc;
}
