#include "core/comm.h"

enum { CONTEXT_WORLD = 0, CONTEXT_SELF = 1 };

static comm_t world = { MPI_COMM_WORLD, CONTEXT_WORLD, 0, 1, 0, MPI_ERRORS_ARE_FATAL };
static comm_t self = { MPI_COMM_SELF, CONTEXT_SELF, 0, 1, 0, MPI_ERRORS_ARE_FATAL };

void comm_init_predefined(int world_rank, int world_size)
{
    world.rank = world_rank;
    world.size = world_size;
    world.errhandler = MPI_ERRORS_ARE_FATAL;
    self.rank = 0;
    self.size = 1;
    self.world_rank_of_self = world_rank;
    self.errhandler = MPI_ERRORS_ARE_FATAL;
}

comm_t *comm_lookup(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return &world;
    if (handle == MPI_COMM_SELF)
        return &self;
    return NULL;
}

int comm_world_rank(const comm_t *c, int rank)
{
    return c == &self ? c->world_rank_of_self : rank;
}

const char *comm_name(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return "MPI_COMM_WORLD";
    if (handle == MPI_COMM_SELF)
        return "MPI_COMM_SELF";
    if (handle == MPI_COMM_NULL)
        return "MPI_COMM_NULL";
    return "communicator";
}
