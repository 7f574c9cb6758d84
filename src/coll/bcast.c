/*
 * MPI_Bcast / MPI_Ibcast (MPI-3.1 §5.4).
 *
 * Algorithms (selection in pick(); the table is in docs/collectives.md):
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

static const char *const bcast_names[] = { "binomial", "scatter_allgather", "chain" };
static coll_choice_t bcast_choice = { "METAMPI_COLL_BCAST", bcast_names, 3, 0, 0 };
/* from this size (bytes) on, the chunked algorithms (with at least 3 members) */
static coll_knob_t bcast_long = { "METAMPI_COLL_BCAST_LONG", 512 * 1024, 0, 0 };
/* from this size on, the pipelined chain rather than scatter + allgather */
static coll_knob_t bcast_chain_min = { "METAMPI_COLL_BCAST_CHAIN", (size_t)-1, 0, 0 };
static coll_knob_t bcast_segment = { "METAMPI_COLL_BCAST_SEGMENT", 128 * 1024, 0, 0 };

int mv_bcast_forced(void)
{
    return coll_choice_forced(&bcast_choice);
}

/* The algorithm mv_bcast_bytes runs for algo over a team of n (for the trace). */
static const char *bytes_algo(int n, size_t bytes, int algo)
{
    if (algo == MV_BCAST_AUTO)
        algo = n <= 2 || bytes < coll_knob(&bcast_long) ? MV_BCAST_BINOMIAL
               : bytes >= coll_knob(&bcast_chain_min)   ? MV_BCAST_CHAIN
                                                        : MV_BCAST_SCATTER_ALLGATHER;
    return n > 2 && algo != MV_BCAST_BINOMIAL ? bcast_names[algo] : "binomial";
}

static int pick(int n, size_t bytes)
{
    if (n <= 2 || bytes < coll_knob(&bcast_long))
        return MV_BCAST_BINOMIAL;
    if (bytes >= coll_knob(&bcast_chain_min))
        return MV_BCAST_CHAIN;
    return MV_BCAST_SCATTER_ALLGATHER;
}

void mv_bcast_binomial(icoll_sched_t *s, const coll_team_t *t, int root, const p2p_data_t *d,
                       int skip)
{
    int n = t->size;
    if (n <= 1 || !d->bytes)
        return;
    int rel = (t->rank - root + n) % n, mask, received = 0;
    if (rel) {
        mask = rel & -rel;
        if (t->rank != skip) {
            mv_recv(s, t, (rel - mask + root) % n, d);
            received = 1;
        }
    } else {
        mask = 2 * mv_top_bit(n - 1);
    }
    /* the largest subtree first: it has the longest way to go */
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n && (rel + mask + root) % n != skip) {
            if (received) { /* forward only what has arrived */
                icoll_sched_fence(s);
                received = 0;
            }
            mv_send(s, t, (rel + mask + root) % n, d);
        }
}

static void bcast_scatter_allgather(icoll_sched_t *s, const coll_team_t *t, int root,
                                    char *buf, size_t bytes)
{
    int n = t->size, rel = (t->rank - root + n) % n;
    size_t chunk = (bytes + (size_t)n - 1) / (size_t)n;
#define LO(j) ((size_t)(j) * chunk < bytes ? (size_t)(j) * chunk : bytes)
#define PIECE(j, k) mv_data(buf + LO(j), LO((j) + (k)) - LO(j))
    /* scatter: every member gets the chunks of its binomial subtree */
    int mask;
    if (rel) {
        mask = rel & -rel;
        p2p_data_t d = PIECE(rel, mv_subtree(rel, n));
        mv_recv(s, t, (rel - mask + root) % n, &d);
        icoll_sched_fence(s);
    } else {
        mask = 2 * mv_top_bit(n - 1);
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n) {
            p2p_data_t d = PIECE(rel + mask, mv_subtree(rel + mask, n));
            mv_send(s, t, (rel + mask + root) % n, &d);
        }
    /* ring: in round k member rel passes on chunk rel - k; the root needs nothing and its
     * left neighbour sends it nothing */
    int right = (rel + 1) % n, left = (rel - 1 + n) % n;
    for (int k = 0; k < n - 1; k++) {
        if (right != 0) {
            p2p_data_t d = PIECE((rel - k + n) % n, 1);
            mv_send(s, t, (right + root) % n, &d);
        }
        if (rel != 0) {
            p2p_data_t d = PIECE((rel - k - 1 + 2 * n) % n, 1);
            mv_recv(s, t, (left + root) % n, &d);
            icoll_sched_fence(s);
        }
    }
#undef PIECE
#undef LO
}

static void bcast_chain(icoll_sched_t *s, const coll_team_t *t, int root, char *buf,
                        size_t bytes, size_t seg)
{
    int n = t->size, rel = (t->rank - root + n) % n;
    int next = rel + 1 < n ? (rel + 1 + root) % n : -1, prev = (rel - 1 + root + n) % n;
    if (seg == 0)
        seg = bytes;
    for (size_t off = 0; off < bytes; off += seg) {
        p2p_data_t d = mv_data(buf + off, bytes - off < seg ? bytes - off : seg);
        if (rel) {
            mv_recv(s, t, prev, &d);
            icoll_sched_fence(s);
        }
        if (next >= 0)
            mv_send(s, t, next, &d);
    }
}

void mv_bcast_bytes(icoll_sched_t *s, const coll_team_t *t, int root, void *buf, size_t bytes,
                    int algo)
{
    if (t->size <= 1 || !bytes)
        return;
    if (algo == MV_BCAST_AUTO)
        algo = pick(t->size, bytes);
    if (algo == MV_BCAST_SCATTER_ALLGATHER && t->size > 2) {
        bcast_scatter_allgather(s, t, root, buf, bytes);
    } else if (algo == MV_BCAST_CHAIN && t->size > 2) {
        bcast_chain(s, t, root, buf, bytes, coll_knob(&bcast_segment));
    } else {
        p2p_data_t d = mv_data(buf, bytes);
        mv_bcast_binomial(s, t, root, &d, -1);
    }
}

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
            if (rc != MPI_SUCCESS && rc != COLL_SHM_DECLINED)
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
        if (rc != COLL_SHM_DECLINED)
            return rc;
    }
    mv_bcast_bytes(s, &h->node, 0, buf, bytes, algo);
    return MPI_SUCCESS;
}

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
    if (d.layout && (S || hier || shm || strcmp(bytes_algo(n, bytes, algo), "binomial"))) {
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
        coll_trace_note("hier", bytes_algo(h->nhosts, bytes, algo), bytes);
        rc = mv_bcast_hier(s, c, h, bbuf, bytes, root, algo);
    } else {
        if (shm) {
            coll_trace_note("shm", "-", bytes);
            rc = coll_shm_bcast(s, c, bbuf, bytes, root);
        } else {
            coll_trace_note("p2p", bytes_algo(n, bytes, algo), bytes);
            if (algo == MV_BCAST_AUTO)
                algo = pick(n, bytes);
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
