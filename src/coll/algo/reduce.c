/*
 * MPI_Reduce's point-to-point algorithms over a team, chosen here (METAMPI_COLL_REDUCE,
 * METAMPI_COLL_REDUCE_LONG): binomial tree below METAMPI_COLL_REDUCE_LONG bytes (or fewer
 * elements than the largest power of two <= ranks), Rabenseifner (reduce-scatter + gather)
 * above; "shm" asks the levels for the shared area (red_reduce_shm). The algorithms
 * themselves are in red.c; coll/red.h declares these.
 */
#include "coll/red.h"

const char *const red_reduce_names[] = { "shm", "binomial", "rabenseifner" };
static coll_choice_t choice = { "METAMPI_COLL_REDUCE", red_reduce_names, 3, 0, 0 };
static coll_knob_t long_knob = { "METAMPI_COLL_REDUCE_LONG", 64 * 1024, 0, 0 };

int red_reduce_shm(int n)
{
    int alg = coll_choice_forced(&choice);
    return alg == RED_R_SHM || (alg < 0 && n != 2);
}

int red_reduce_choice(int n, size_t count, const dtype_t *dt)
{
    int alg = coll_choice_forced(&choice);
    if (alg == RED_R_BINOMIAL || alg == RED_R_RABENSEIFNER)
        return alg;
    /* two members: one message and one combine beat halving the vector (measured: the
     * binomial tree is 2-3x faster from 64 KiB to 1 MiB) */
    return n > 2 && (size_t)dt->size * count >= coll_knob(&long_knob) &&
                   count >= (size_t)red_fold(n, 0).p2
               ? RED_R_RABENSEIFNER
               : RED_R_BINOMIAL;
}

void red_reduce_team(icoll_sched_t *s, const coll_team_t *t, const void *in, void *out,
                     size_t count, dtype_t *dt, op_t *op, int root)
{
    if (red_reduce_choice(t->size, count, dt) == RED_R_RABENSEIFNER)
        red_reduce_rabenseifner(s, t, in, out, count, dt, op, root);
    else
        red_reduce_binomial(s, t, in, out, count, dt, op, root);
}
