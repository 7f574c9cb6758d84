/*
 * Barrier on the area's flags (no data). Small teams (METAMPI_COLL_SHM_BARRIER_FLAT): every
 * member posts pos(s, 1) and waits until every other has — one cache-line transfer per pair,
 * no second round. Larger teams: members post pos(s, 1) and wait for member 0's pos(s, 2),
 * which it posts once it has seen everyone's (2(n-1) transfers instead of n(n-1)).
 */
#include "coll/shm/ops.h"

int shm_run_barrier(shm_op_t *o)
{
    coll_area_t *a = o->a;
    _Atomic uint64_t *mine = &a->ctl[a->me].post;
    uint64_t arrived = shm_pos(o->seq, 1), released = shm_pos(o->seq, 2);
    if (a->n <= coll_shm_barrier_flat()) {
        if (o->step == 0) {
            shm_store_wake(a, mine, arrived, -1);
            o->step = 1;
        }
        return shm_all_posted(a, &o->k, arrived) ? MPI_SUCCESS : ICOLL_AGAIN;
    }
    if (a->me == 0) {
        if (!shm_all_posted(a, &o->k, arrived))
            return ICOLL_AGAIN;
        shm_store_wake(a, mine, released, -1);
        return MPI_SUCCESS;
    }
    if (o->step == 0) {
        shm_store_wake(a, mine, arrived, 0);
        o->step = 1;
    }
    return shm_load(&a->ctl[0].post) >= released ? MPI_SUCCESS : ICOLL_AGAIN;
}
