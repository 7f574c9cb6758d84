/*
 * MPI_Bcast / MPI_Ibcast (MPI-3.1 §5.4).
 *
 * Algorithms (coll/algo/bcast.c; the table is in docs/collectives.md):
 *  binomial           log2(n) rounds, whole message each; typed data straight from and into
 *                     the user's buffer (no copies). Small messages, and any size with 2.
 *  scatter_allgather  the message in n chunks: binomial scatter, then a ring allgather in
 *                     which the root only sends (van de Geijn). Large messages.
 *  chain              the ranks in a chain, the message in METAMPI_COLL_BCAST_SEGMENT pieces
 *                     that follow each other down it (pipelined).
 * Across hosts: root -> (shared memory, or a message to its host's leader) -> the leaders ->
 * each leader to its host (shared memory, else a binomial tree over the host's members).
 * The chunked algorithms and shared memory move contiguous bytes: a member whose layout is
 * not contiguous packs into (root) or unpacks from (others) a temporary of its own.
 */
#include "coll/move.h"

#include "coll/shm/shm.h"
#include "coll/sites.h"
#include "coll/trace.h"

#include <string.h>

static int bcast_inter(icoll_sched_t *s, comm_t *c, void *buf, size_t count, dtype_t *dt,
                       int root)
{
    coll_trace_note("inter", "-", dt ? count * (size_t)dt->size : 0);
    if (root == MPI_PROC_NULL || count * (size_t)dt->size == 0)
        return MPI_SUCCESS;
    p2p_data_t d = mv_typed(buf, count, dt);
    if (root == MPI_ROOT) {
        icoll_sched_send_data(s, c, 0, &d);
        return MPI_SUCCESS;
    }
    comm_t *local = c->local_comm;
    if (local->rank == 0) {
        icoll_sched_recv_data(s, c, root, &d);
        icoll_sched_fence(s);
    }
    return coll_bcast(s, local, buf, count, dt, 0);
}

int mv_bcast_pair_shm(comm_t *c, const p2p_data_t *d)
{
    /* not the layout: members may describe the same bytes with different types */
    if (c->size != 2 || comm_is_inter(c) || mv_bcast_forced() != MV_BCAST_AUTO ||
        !coll_shm_bcast_pair(d->bytes))
        return 0;
    return mv_single_host(c);
}

int coll_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t count, dtype_t *dt, int root)
{
    icoll_sched_hold_dtype(s, dt);
    if (comm_is_inter(c))
        return bcast_inter(s, c, buf, count, dt, root);
    size_t bytes = count * (size_t)dt->size;
    int n = c->size;
    if (n == 1 || bytes == 0) {
        coll_trace_note("none", "-", bytes);
        return MPI_SUCCESS;
    }
    int algo = mv_bcast_forced();
    p2p_data_t d = mv_typed(buf, count, dt);
    coll_team_t all = coll_team_all(c);
    const coll_hier_t *h = NULL;
    const coll_sites_t *S = coll_use_sites(c);
    int hier = S ? 0 : mv_use_hier(c, &h);
    int pair = n == 2 ? mv_bcast_pair_shm(c, &d) : 0;
    if (hier < 0 || pair < 0)
        return MPI_ERR_NO_MEM;
    /* shared memory when the node team is the whole communicator; with two members one
     * message is the broadcast (coll/direct.h relies on it) unless both copying at once pays */
    int one = S || hier ? 0 : n == 2 ? pair : algo == MV_BCAST_AUTO ? mv_single_host(c) : 0;
    if (one < 0)
        return MPI_ERR_NO_MEM;
    int shm = one && coll_shm_bcast_takes(s, c, bytes);
    /* contiguous bytes for the sites, the hosts, shared memory and the chunked algorithms
     * (the binomial tree moves typed data directly) */
    char *bbuf = d.buf;
    if (d.layout && (S || hier || shm || strcmp(mv_bcast_algo_name(n, bytes, algo), "binomial"))) {
        if (!(bbuf = icoll_sched_alloc(s, bytes)))
            return MPI_ERR_NO_MEM;
        if (c->rank == root) {
            p2p_data_t tmp = mv_data(bbuf, bytes);
            icoll_sched_copy_data(s, &d, &tmp);
        }
    }
    int rc = MPI_SUCCESS;
    if (S) {
        coll_trace_note("sites", "-", bytes);
        rc = site_bcast(s, c, S, bbuf, bytes, root);
    } else if (hier) {
        coll_trace_note("hier", mv_bcast_algo_name(h->nhosts, bytes, algo), bytes);
        rc = mv_bcast_hier(s, c, h, bbuf, bytes, root, algo);
    } else {
        if (shm) {
            coll_trace_note("shm", "-", bytes);
            rc = coll_shm_bcast(s, c, bbuf, bytes, root);
        } else {
            coll_trace_note("p2p", mv_bcast_algo_name(n, bytes, algo), bytes);
            if (algo == MV_BCAST_AUTO)
                algo = mv_bcast_pick(n, bytes);
            if (algo == MV_BCAST_BINOMIAL || n == 2) { /* typed, straight into the user's buffer */
                mv_bcast_binomial(s, &all, root, &d, -1);
                return MPI_SUCCESS;
            }
            mv_bcast_bytes(s, &all, root, bbuf, bytes, algo);
        }
    }
    if (rc == MPI_SUCCESS && bbuf != d.buf && c->rank != root) {
        icoll_sched_fence(s);
        p2p_data_t tmp = mv_data(bbuf, bytes);
        icoll_sched_copy_data(s, &tmp, &d);
    }
    return rc;
}
