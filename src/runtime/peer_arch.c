/* Stand-in for the architecture exchange (see peer_arch.h): a job of one architecture. */
#include "runtime/peer_arch.h"

const arch_desc_t *peer_arch(int world_rank)
{
    (void)world_rank;
    return arch_local();
}

int peer_arch_all_same(void)
{
    return 1;
}
