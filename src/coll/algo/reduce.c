/*
 * MPI_Reduce over a team: the selection table's algorithm (coll/table.c: METAMPI_COLL_REDUCE,
 * _LONG), binomial tree or Rabenseifner (reduce-scatter + gather), both in red.c and
 * algo/red_vec.c; and whether the levels try the shared area first (red_reduce_shm).
 */
#include "coll/red.h"

#include "coll/select.h"

int red_reduce_shm(int n)
{
    int alg = coll_forced(COMM_OP_REDUCE);
    return alg == RED_R_SHM || (alg < 0 && n != 2);
}

int red_reduce_choice(int n, size_t count, const dtype_t *dt)
{
    coll_measure_t m = { .n = n, .size = (size_t)dt->size * count, .count = count,
                         .commutative = 1 };
    return coll_pick_p2p(COMM_OP_REDUCE, &m);
}

void red_reduce_team(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     size_t count, dtype_t *dt, op_t *op, int root)
{
    if (red_reduce_choice(t->size, count, dt) == RED_R_RABENSEIFNER)
        red_reduce_rabenseifner(s, t, in, out, count, dt, op, root);
    else
        red_reduce_binomial(s, t, in, out, count, dt, op, root);
}
