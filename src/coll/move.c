/* Shared pieces of the data-movement collectives: the byte type, and when (and how) the
 * host hierarchy is used. */
#include "coll/move.h"

#include "coll/select.h"
#include "core/comm_arch.h"

#include "runtime/tunables.h"

#include <stdlib.h>

dtype_t *mv_byte(void)
{
    static dtype_t *byte;
    if (!byte)
        byte = dtype_lookup(MPI_BYTE);
    return byte;
}

int mv_use_hier(comm_t *c, const coll_hier_t **h)
{
    *h = NULL;
    if (!tun_bool(TUN_COLL_HIER) || c->size < 3)
        return 0;
    if (!(*h = coll_hier(c)))
        return -1;
    return (*h)->nhosts > 1 && (*h)->nhosts < c->size;
}

int mv_single_host(comm_t *c)
{
    const coll_hier_t *h = coll_hier(c);
    return h ? h->nhosts == 1 : -1;
}

int mv_shm_exchange_ok(comm_t *c, comm_op_kind_t kind)
{
    return coll_forced(kind) < 0 && c->size > 1 && mv_single_host(c) == 1 &&
           !comm_arch_mixed(c);
}

int mv_hier_ordered(const coll_hier_t *h, int n)
{
    for (int r = 1; r < n; r++)
        if (h->host_of[r] < h->host_of[r - 1])
            return 0;
    return 1;
}

int mv_host_start(const coll_hier_t *h, int k)
{
    int start = 0;
    for (int i = 0; i < k; i++)
        start += h->node_size[i];
    return start;
}

void mv_hosts_copy(icoll_sched_t *s, const coll_hier_t *h, int n, char *tmp, size_t bb,
                   const mv_blocks_t *rb, int pack)
{
    int *start = icoll_sched_alloc(s, (size_t)h->nhosts * sizeof *start);
    if (!start)
        return;
    for (int k = 1; k < h->nhosts; k++)
        start[k] = start[k - 1] + h->node_size[k - 1];
    for (int r = 0; r < n;) {
        int pos = start[h->host_of[r]] + h->node_rank[r], k = 1;
        while (r + k < n && start[h->host_of[r + k]] + h->node_rank[r + k] == pos + k)
            k++;
        p2p_data_t a = mv_data(tmp + (size_t)pos * bb, (size_t)k * bb), b = mv_run(rb, r, k);
        if (pack)
            mv_copy(s, &b, &a);
        else
            mv_copy(s, &a, &b);
        r += k;
    }
}
