/* Until the shared-memory area exists, every shared-memory algorithm declines (the callers
 * then use their point-to-point algorithms). */
#include "coll/shm/shm.h"

int coll_shm_barrier(icoll_sched_t *s, comm_t *c)
{
    (void)s, (void)c;
    return COLL_SHM_DECLINED;
}

int coll_shm_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t bytes, int root)
{
    (void)s, (void)c, (void)buf, (void)bytes, (void)root;
    return COLL_SHM_DECLINED;
}

int coll_shm_reduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                    dtype_t *dt, op_t *op, int root)
{
    (void)s, (void)c, (void)in, (void)out, (void)count, (void)dt, (void)op, (void)root;
    return COLL_SHM_DECLINED;
}

int coll_shm_allreduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                       dtype_t *dt, op_t *op)
{
    (void)s, (void)c, (void)in, (void)out, (void)count, (void)dt, (void)op;
    return COLL_SHM_DECLINED;
}
