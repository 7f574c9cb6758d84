#include "coll/coll.h"

p2p_data_t coll_data(const void *buf, size_t count, dtype_t *dt)
{
    const dt_layout_t *l = dt->layout;
    size_t size = (size_t)dt->size;
    p2p_data_t d = { .buf = (void *)(uintptr_t)buf, .bytes = count * size, .type = dt->handle };
    if (dt_layout_contiguous(l, count))
        d.buf = (char *)(uintptr_t)buf + dt_layout_true_lb(l);
    else
        d.layout = l, d.count = count, d.dtype = dt;
    return d;
}

void *coll_temp(icoll_sched_t *s, size_t count, dtype_t *dt)
{
    if (count == 0)
        return icoll_sched_alloc(s, 0);
    /* the span of count elements: (count - 1) extents plus the true extent */
    size_t span = (count - 1) * coll_extent(dt) + (size_t)(dt->true_ub - dt->true_lb);
    char *p = icoll_sched_alloc(s, span);
    return p ? p - dt->true_lb : NULL;
}
