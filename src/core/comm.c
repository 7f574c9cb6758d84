/* Communicator objects: the predefined ones, handles, life cycle, operation keys. The
 * collective constructors are in comm_create.c and intercomm.c. */
#include "core/comm.h"

#include "core/ctxid_pool.h"
#include "core/errhandler.h"
#include "core/match_ctx.h"
#include "util/handles.h"
#include "core/topo.h"

#include <stdlib.h>
#include <string.h>

/* Context ids 0..3 belong to the predefined communicators (pairs: see comm.h). */
enum { CONTEXT_WORLD = 0, CONTEXT_SELF = 2 };

#define COMM_KIND 0x04000000u
enum { FIRST_INDEX = 3 }; /* 0 MPI_COMM_NULL, 1 MPI_COMM_WORLD, 2 MPI_COMM_SELF */

static handle_table_t table = HANDLE_TABLE_INIT(COMM_KIND, FIRST_INDEX);
static comm_t world, self;

static void init_predefined(comm_t *c, MPI_Comm h, uint32_t ctx, group_t *g, const char *name)
{
    memset(c, 0, sizeof *c);
    c->handle = h;
    c->recv_ctx = c->send_ctx = ctx;
    c->group = g;
    c->rank = g->rank;
    c->size = g->size;
    atomic_init(&c->refs, 1);
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    strcpy(c->name, name);
    c->ready = 1;
    c->key = ctx;
    /* out of memory here: matching makes the entries when needed, unbound */
    c->mctx[0] = mctx_bind(ctx);
    c->mctx[1] = mctx_bind(ctx + 1);
}

void comm_init_predefined(int world_rank, int world_size)
{
    group_init(world_rank, world_size);
    ctxid_pool_init();
    init_predefined(&world, MPI_COMM_WORLD, CONTEXT_WORLD, group_world(), "MPI_COMM_WORLD");
    init_predefined(&self, MPI_COMM_SELF, CONTEXT_SELF, group_self(), "MPI_COMM_SELF");
}

comm_t *comm_lookup(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return &world;
    if (handle == MPI_COMM_SELF)
        return &self;
    comm_t *c = handle_get(&table, handle);
    return c && c->ready ? c : NULL;
}

comm_t *comm_lookup_pending(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return &world;
    if (handle == MPI_COMM_SELF)
        return &self;
    return handle_get(&table, handle);
}

const char *comm_name(MPI_Comm handle)
{
    comm_t *c = comm_lookup_pending(handle);
    if (c)
        return c->name[0] ? c->name : "an unnamed communicator";
    if (handle == MPI_COMM_NULL)
        return "MPI_COMM_NULL";
    return "communicator";
}

comm_op_t comm_next_op(comm_t *c, comm_stream_t stream, comm_op_kind_t kind)
{
    uint32_t seq = c->coll_seq[stream]++;
    int tag = (int)(seq & 0xffffff) | (int)kind << COMM_TAG_KIND_SHIFT | (int)stream << 29;
    if (comm_is_inter(c))
        tag |= 0x40000000;
    return (comm_op_t){ tag, (c->key << 30) | (uint64_t)stream << 28 | (seq & 0x0fffffff) };
}

const char *comm_op_name(comm_stream_t stream, comm_op_kind_t kind)
{
    static const char *const names[2][COMM_OP_KINDS] = {
        { "a communicator or topology constructor", "MPI_Barrier", "MPI_Bcast", "MPI_Gather",
          "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv",
          "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce", "MPI_Allreduce",
          "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan",
          "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv", "MPI_Neighbor_alltoall",
          "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw" },
        { "MPI_Comm_idup", "MPI_Ibarrier", "MPI_Ibcast", "MPI_Igather", "MPI_Igatherv",
          "MPI_Iscatter", "MPI_Iscatterv", "MPI_Iallgather", "MPI_Iallgatherv", "MPI_Ialltoall",
          "MPI_Ialltoallv", "MPI_Ialltoallw", "MPI_Ireduce", "MPI_Iallreduce",
          "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block", "MPI_Iscan", "MPI_Iexscan",
          "MPI_Ineighbor_allgather", "MPI_Ineighbor_allgatherv", "MPI_Ineighbor_alltoall",
          "MPI_Ineighbor_alltoallv", "MPI_Ineighbor_alltoallw" },
    };
    return (unsigned)kind < COMM_OP_KINDS ? names[stream != COMM_BLOCKING][kind]
                                          : "an unknown operation";
}

comm_t *comm_new_object(comm_t *parent, group_t *group, group_t *remote)
{
    comm_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->handle = MPI_COMM_NULL;
    c->group = group;
    group_retain(group);
    c->rank = group->rank;
    c->size = group->size;
    if (remote) {
        c->remote_group = remote;
        group_retain(remote);
    }
    atomic_init(&c->refs, 1);
    c->errhandler = parent->errhandler;
    errhandler_retain(c->errhandler);
    return c;
}

int comm_set_context(comm_t *c, uint32_t recv_ctx, uint32_t send_ctx)
{
    match_ctx_t *m0 = mctx_bind(recv_ctx), *m1 = m0 ? mctx_bind(recv_ctx + 1) : NULL;
    if (!m1) {
        mctx_unbind(m0);
        return MPI_ERR_NO_MEM;
    }
    c->mctx[0] = m0;
    c->mctx[1] = m1;
    c->recv_ctx = recv_ctx;
    c->send_ctx = send_ctx;
    if (comm_is_inter(c)) {
        uint64_t lo = recv_ctx < send_ctx ? recv_ctx : send_ctx;
        uint64_t hi = recv_ctx ^ send_ctx ^ lo;
        c->key = (lo << 15) | hi; /* lo >= 4: above every intra-communicator's key */
    } else {
        c->key = recv_ctx;
    }
    return MPI_SUCCESS;
}

int comm_publish(comm_t *c)
{
    int h = handle_new(&table, c);
    if (!h)
        return MPI_ERR_NO_MEM;
    c->handle = h;
    return MPI_SUCCESS;
}

void comm_destroy(comm_t *c)
{
    if (c->handle != MPI_COMM_NULL && !c->user_freed)
        handle_release(&table, c->handle);
    if (c->local_comm)
        comm_release(c->local_comm);
    group_release(c->group);
    if (c->remote_group)
        group_release(c->remote_group);
    errhandler_release(c->errhandler);
    if (c->info)
        info_destroy(c->info);
    if (c->topo)
        topo_free(c->topo);
    if (c->coll_cache_free)
        c->coll_cache_free(c->coll_cache);
    mctx_unbind(c->mctx[0]);
    mctx_unbind(c->mctx[1]);
    if (c->ready)
        ctxid_release(c->recv_ctx);
    free(c);
}

void comm_free_handle(comm_t *c)
{
    handle_release(&table, c->handle);
    c->user_freed = 1;
    comm_release(c);
}

static void collect(void *obj, void *arg)
{
    comm_t ***p = arg;
    *(*p)++ = obj;
}

void comm_finalize(void)
{
    /* Whatever the user left: destroyed regardless of references (requests and schedules
     * that still name them are erroneous leftovers). */
    int n = handle_count(&table);
    comm_t **all = malloc((size_t)(n > 0 ? n : 1) * sizeof *all), **end = all;
    if (all) {
        handle_foreach(&table, collect, &end);
        for (comm_t **p = all; p < end; p++) {
            (*p)->handle = MPI_COMM_NULL;
            atomic_store_explicit(&(*p)->refs, 1, memory_order_relaxed);
            comm_release(*p);
        }
        free(all);
    }
    handle_table_destroy(&table);
    for (comm_t *p = &world; p; p = p == &world ? &self : NULL) {
        if (p->info) {
            info_destroy(p->info);
            p->info = NULL;
        }
        if (p->coll_cache_free) {
            p->coll_cache_free(p->coll_cache);
            p->coll_cache_free = NULL;
            p->coll_cache = NULL;
        }
        mctx_unbind(p->mctx[0]);
        mctx_unbind(p->mctx[1]);
        p->mctx[0] = p->mctx[1] = NULL;
    }
    group_finalize();
}
