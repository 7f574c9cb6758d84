#include "core/comm.h"

#include <string.h>

/* Context ids 0..3 belong to the predefined communicators (pairs: see comm.h). */
enum { CONTEXT_WORLD = 0, CONTEXT_SELF = 2 };

static group_t world_group = { MPI_GROUP_NULL, 1, 0, 0, NULL };
static group_t self_group = { MPI_GROUP_NULL, 1, 1, 0, NULL };
static int self_world_rank;
static comm_t world, self;

static void init_predefined(comm_t *c, MPI_Comm h, uint32_t ctx, group_t *g, const char *name)
{
    memset(c, 0, sizeof *c);
    c->handle = h;
    c->recv_ctx = c->send_ctx = ctx;
    c->group = g;
    c->rank = g->rank;
    c->size = g->size;
    c->refs = 1;
    c->errhandler = MPI_ERRORS_ARE_FATAL;
    strcpy(c->name, name);
}

void comm_init_predefined(int world_rank, int world_size)
{
    world_group.size = world_size;
    world_group.rank = world_rank;
    self_world_rank = world_rank;
    self_group.world = &self_world_rank;
    init_predefined(&world, MPI_COMM_WORLD, CONTEXT_WORLD, &world_group, "MPI_COMM_WORLD");
    init_predefined(&self, MPI_COMM_SELF, CONTEXT_SELF, &self_group, "MPI_COMM_SELF");
}

comm_t *comm_lookup(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return &world;
    if (handle == MPI_COMM_SELF)
        return &self;
    return NULL;
}

const char *comm_name(MPI_Comm handle)
{
    comm_t *c = comm_lookup(handle);
    if (c)
        return c->name;
    if (handle == MPI_COMM_NULL)
        return "MPI_COMM_NULL";
    return "communicator";
}
