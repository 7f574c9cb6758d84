/* Mixed-architecture communicators (see comm_arch.h). */
#include "core/comm_arch.h"

#include "runtime/peer_arch.h"

static int group_mixed(const group_t *g)
{
    for (int r = 0; g && r < g->size; r++)
        if (!arch_same(peer_arch(group_world_rank(g, r)), arch_local()))
            return 1;
    return 0;
}

int comm_arch_mixed(const comm_t *c)
{
    if (peer_arch_all_same())
        return 0;
    return group_mixed(c->group) || group_mixed(c->remote_group);
}
