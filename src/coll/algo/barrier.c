/*
 * The barrier's choice (the selection table's METAMPI_COLL_BARRIER, coll/table.c): whether
 * a host's members meet in the shared area (more than two members, unless dissemination is
 * forced) or by dissemination (red.c).
 */
#include "coll/red.h"

#include "coll/select.h"

int red_barrier_shm(int n)
{
    int alg = coll_forced(COMM_OP_BARRIER);
    return alg == COLL_BARRIER_SHM || (alg < 0 && n != 2);
}
