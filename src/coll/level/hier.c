/*
 * The hierarchical level of the data-movement collectives: the phases within each host (the
 * host's shared area, or point to point over the host's members) and among the host leaders
 * (a point-to-point algorithm of coll/algo/ over the leaders' team). coll/move.h declares
 * them; the entry points (bcast.c, gather.c, scatter.c) and the sites level (sites.c) call
 * them, and they call only below: coll/algo/, coll/shm/ and the schedule engine.
 *  bcast    root -> (shared memory, or a message to its host's leader) -> the leaders -> each
 *           leader to its host (shared memory, else the broadcast's algorithm over the host).
 *  gather   each host gathers to its local root (the root itself on its own host, the leader
 *           elsewhere), then every other host's leader sends its host's blocks to the root in
 *           one message; in place when hosts hold consecutive ranks, else through a
 *           host-ordered temporary.
 *  scatter  the mirror image: the root sends each other host's leader that host's blocks in
 *           one message, then each host scatters from its local root.
 */
#include "coll/move.h"

#include "coll/shm/shm.h"

/* Root (a member index of h) in the leaders' phase: root's host leader. On the root's host
 * the data reaches the leader by shared memory (the whole host at once) or by one message
 * from the root; the other hosts get it from their leader after the leaders' phase. */
int mv_bcast_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, void *buf, size_t bytes,
                  int root, int algo)
{
    int me = h->all.rank, h0 = h->host_of[root], mine = h->host_of[me];
    int lead0 = h->host_first[h0];
    int shm = 0;
    if (mine == h0) {
        if (algo == MV_BCAST_AUTO) {
            int rc = coll_shm_bcast(s, c, buf, bytes, h->node_rank[root]);
            if (rc != MPI_SUCCESS && rc != COLL_DECLINED)
                return rc;
            shm = rc == MPI_SUCCESS;
            if (shm)
                icoll_sched_fence(s);
        }
        if (!shm && root != lead0) {
            p2p_data_t d = mv_data(buf, bytes);
            if (me == root) {
                icoll_sched_send_data(s, c, h->leaders.ranks[h0], &d);
            } else if (me == lead0) {
                icoll_sched_recv_data(s, c, coll_team_peer(&h->all, root), &d);
                icoll_sched_fence(s);
            }
        }
    }
    if (h->leaders.rank >= 0) {
        mv_bcast_bytes(s, &h->leaders, h0, buf, bytes, algo);
        icoll_sched_fence(s);
    }
    if (mine == h0) {
        if (!shm) {
            p2p_data_t d = mv_data(buf, bytes);
            mv_bcast_binomial(s, &h->node, 0, &d, root != lead0 ? h->node_rank[root] : -1);
        }
        return MPI_SUCCESS;
    }
    if (algo == MV_BCAST_AUTO) {
        int rc = coll_shm_bcast(s, c, buf, bytes, 0);
        if (rc != COLL_DECLINED)
            return rc;
    }
    mv_bcast_bytes(s, &h->node, 0, buf, bytes, algo);
    return MPI_SUCCESS;
}


void mv_gather_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const p2p_data_t *mine,
                    const mv_blocks_t *rb, size_t bb, int root)
{
    int n = h->all.size, me = h->all.rank, h0 = h->host_of[root], host = h->host_of[me];
    int lroot = host == h0 ? root : h->host_first[host], nroot = h->node_rank[lroot];
    int croot = coll_team_peer(&h->all, root);
    if (me != lroot) {
        mv_gather_team(s, &h->node, nroot, mine, NULL, bb);
        return;
    }
    if (me != root) { /* another host's leader: its host's blocks in one message */
        size_t k = (size_t)h->node_size[host];
        if (k == 1) {
            icoll_sched_send_data(s, c, croot, mine);
            return;
        }
        char *tmp = icoll_sched_alloc(s, k * bb);
        if (!tmp)
            return;
        mv_blocks_t out = mv_bytes(tmp, bb);
        mv_gather_team(s, &h->node, nroot, mine, &out, bb);
        icoll_sched_fence(s);
        p2p_data_t d = mv_data(tmp, k * bb);
        icoll_sched_send_data(s, c, croot, &d);
        return;
    }
    if (mv_hier_ordered(h, n)) {
        mv_blocks_t out = *rb;
        out.base = coll_at(rb->base, (size_t)h->host_first[h0] * rb->count, rb->dt);
        mv_gather_team(s, &h->node, nroot, mine, &out, bb);
        for (int k = 0; k < h->nhosts; k++)
            if (k != h0) {
                p2p_data_t d = mv_run(rb, h->host_first[k], (size_t)h->node_size[k]);
                icoll_sched_recv_data(s, c, h->leaders.ranks[k], &d);
            }
        icoll_sched_fence(s);
        return;
    }
    char *tmp = icoll_sched_alloc(s, (size_t)n * bb);
    if (!tmp)
        return;
    p2p_data_t own = mine ? *mine : mv_run(rb, root, 1);
    mv_blocks_t out = mv_bytes(tmp + (size_t)mv_host_start(h, h0) * bb, bb);
    mv_gather_team(s, &h->node, nroot, &own, &out, bb);
    for (int k = 0; k < h->nhosts; k++)
        if (k != h0) {
            p2p_data_t d = mv_data(tmp + (size_t)mv_host_start(h, k) * bb,
                                   (size_t)h->node_size[k] * bb);
            icoll_sched_recv_data(s, c, h->leaders.ranks[k], &d);
        }
    icoll_sched_fence(s);
    mv_hosts_copy(s, h, n, tmp, bb, rb, 0);
}

void mv_scatter_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h, const mv_blocks_t *sb,
                     const p2p_data_t *mine, size_t bb, int root)
{
    int n = h->all.size, me = h->all.rank, h0 = h->host_of[root], host = h->host_of[me];
    int lroot = host == h0 ? root : h->host_first[host], nroot = h->node_rank[lroot];
    int croot = coll_team_peer(&h->all, root);
    if (me != lroot) {
        mv_scatter_team(s, &h->node, nroot, NULL, mine, bb);
        return;
    }
    if (me != root) { /* another host's leader: its host's blocks in one message */
        size_t k = (size_t)h->node_size[host];
        if (k == 1) {
            icoll_sched_recv_data(s, c, croot, mine);
            return;
        }
        char *tmp = icoll_sched_alloc(s, k * bb);
        if (!tmp)
            return;
        p2p_data_t d = mv_data(tmp, k * bb);
        icoll_sched_recv_data(s, c, croot, &d);
        icoll_sched_fence(s);
        mv_blocks_t in = mv_bytes(tmp, bb);
        mv_scatter_team(s, &h->node, nroot, &in, mine, bb);
        return;
    }
    if (mv_hier_ordered(h, n)) {
        for (int k = 0; k < h->nhosts; k++)
            if (k != h0) {
                p2p_data_t d = mv_run(sb, h->host_first[k], (size_t)h->node_size[k]);
                icoll_sched_send_data(s, c, h->leaders.ranks[k], &d);
            }
        mv_blocks_t in = *sb;
        in.base = coll_at(sb->base, (size_t)h->host_first[h0] * sb->count, sb->dt);
        mv_scatter_team(s, &h->node, nroot, &in, mine, bb);
        return;
    }
    char *tmp = icoll_sched_alloc(s, (size_t)n * bb);
    if (!tmp)
        return;
    mv_hosts_copy(s, h, n, tmp, bb, sb, 1);
    for (int k = 0; k < h->nhosts; k++)
        if (k != h0) {
            p2p_data_t d = mv_data(tmp + (size_t)mv_host_start(h, k) * bb,
                                   (size_t)h->node_size[k] * bb);
            icoll_sched_send_data(s, c, h->leaders.ranks[k], &d);
        }
    mv_blocks_t in = mv_bytes(tmp + (size_t)mv_host_start(h, h0) * bb, bb);
    mv_scatter_team(s, &h->node, nroot, &in, mine, bb);
}
