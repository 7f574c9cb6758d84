/*
 * MPI_Allreduce over a team: the selection table's algorithm (coll/table.c:
 * METAMPI_COLL_ALLREDUCE, _LONG, _RING), recursive doubling, Rabenseifner or the ring (all in
 * algo/red_vec.c); and whether the levels try the shared area first (red_allreduce_shm).
 */
#include "coll/red.h"

#include "coll/select.h"

int red_allreduce_shm(int n)
{
    int alg = coll_forced(COMM_OP_ALLREDUCE);
    return alg == RED_AR_SHM || (alg < 0 && n != 2);
}

int red_allreduce_choice(int n, size_t count, const dtype_t *dt, const op_t *op)
{
    coll_measure_t m = { .n = n, .size = (size_t)dt->size * count, .count = count,
                         .commutative = op->commute };
    return coll_pick_p2p(COMM_OP_ALLREDUCE, &m);
}

void red_allreduce_team(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                        size_t count, dtype_t *dt, op_t *op)
{
    int alg = red_allreduce_choice(t->size, count, dt, op);
    if (alg == RED_AR_RING)
        red_allreduce_ring(s, t, in, out, count, dt, op);
    else if (alg == RED_AR_RABENSEIFNER)
        red_allreduce_rabenseifner(s, t, in, out, count, dt, op);
    else
        red_allreduce_rd(s, t, in, out, count, dt, op);
}
