#include "core/hetero.h"

#include "core/errors.h"
#include "datatype/dtype.h"

/* Predefined datatypes travel converted (by the point-to-point algorithms' typed receives,
 * coll/dispatch.c); derived ones may be packed into bounce buffers on the way. */
static int travels(MPI_Datatype t)
{
    const dtype_t *dt = dtype_lookup_user(t);
    return dt && dt->predefined;   /* single elements and the pair types */
}

/* MPI_ERR_TYPE on c: data of type between this rank and c's rank peer, of architecture
 * theirs (the remote group's rank on an inter-communicator). */
static int refuse(const comm_t *c, int peer, const arch_desc_t *theirs, MPI_Datatype type,
                  const char *func)
{
    char a[96], b[96];
    return err_raise(c->handle, MPI_ERR_TYPE, func,
                     "datatype %#x cannot travel between rank %d (%s) and rank %d (%s) of "
                     "another architecture in a collective: collectives on such a communicator "
                     "convert predefined datatypes only, not derived ones yet "
                     "(point-to-point converts any datatype)",
                     (unsigned)type, c->rank, arch_describe(arch_local(), a, sizeof a), peer,
                     arch_describe(theirs, b, sizeof b));
}

int hetero_check_comm_unlike(const comm_t *c, MPI_Datatype type, const char *func)
{
    if (travels(type))
        return MPI_SUCCESS;
    for (int side = 0; side < 2; side++) {
        const group_t *g = side ? c->remote_group : c->group;
        for (int r = 0; g && r < g->size; r++) {
            const arch_desc_t *theirs = peer_arch(group_world_rank(g, r));
            if (!arch_same(theirs, arch_local()))
                return refuse(c, r, theirs, type, func);
        }
    }
    return MPI_SUCCESS;
}
