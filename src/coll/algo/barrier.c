/*
 * The barrier's choice (METAMPI_COLL_BARRIER): whether a host's members meet in the shared
 * area (more than two members, unless dissemination is forced) or by dissemination (red.c).
 */
#include "coll/red.h"

enum { ALG_SHM, ALG_DISSEMINATION };
static const char *const names[] = { "shm", "dissemination" };
static coll_choice_t choice = { "METAMPI_COLL_BARRIER", names, 2, 0, 0 };

int red_barrier_shm(int n)
{
    int alg = coll_choice_forced(&choice);
    return alg == ALG_SHM || (alg < 0 && n != 2);
}
