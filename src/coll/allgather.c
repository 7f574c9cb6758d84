/*
 * MPI_Allgather, MPI_Allgatherv and their I-forms (MPI-3.1 §5.7).
 *
 * Algorithms over a set of blocks (move.h: uniform blocks travel in runs, v-form blocks one
 * message each), all straight in the receive buffer, typed, without temporaries:
 *  recursive_doubling  log2(n) exchanges with rank ^ 2^k of everything gathered so far
 *                      (power-of-two n; otherwise Bruck takes over).
 *  bruck               ceil(log2 n) rounds: send what I hold (blocks me, me+1, ...) to
 *                      me - 2^k, receive from me + 2^k; any n.
 *  ring                n - 1 rounds passing one block to the right. Large totals.
 * Each member's own block goes out in the first round straight from its send buffer and is
 * copied into place while that round completes.
 * Across hosts (Allgather): each host gathers its blocks at its leader, the leaders
 * allgather their hosts' blocks, each leader broadcasts the whole to its host (shared
 * memory when available), in a host-ordered packed temporary (the receive buffer itself when
 * hosts hold consecutive ranks and it is contiguous).
 * Inter-communicators: each member sends its block to the first member of the other group,
 * which broadcasts the other group's blocks within its own group.
 */
#include "coll/move.h"

#include "coll/shm/shm.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

/* The algorithm of kind (allgather or allgatherv) over n members gathering total bytes: the
 * forced one, else the selection table's (coll/table.c). */
static int pick(comm_op_kind_t kind, int n, size_t total)
{
    coll_measure_t m = { .n = n, .size = total, .commutative = 1 };
    return coll_pick_p2p(kind, &m);
}

/* The algorithm mv_allgather_set runs for algo over a team of n (for the trace). */
static const char *set_algo(int n, int algo)
{
    return coll_algo_name(COMM_OP_ALLGATHER,
                          algo == MV_AG_RECURSIVE_DOUBLING && (n & (n - 1)) ? MV_AG_BRUCK : algo);
}

size_t mv_set_bytes(const mv_set_t *set, int i)
{
    size_t count = set->start ? (size_t)set->len[i] * set->b.count : set->b.count;
    return count * (size_t)set->b.dt->size;
}

/* Sends or receives blocks i .. i+k-1 (team order, mod n) of the set. */
static void xfer(icoll_sched_t *s, const coll_team_t *t, int peer, const mv_set_t *set, int i,
                 int k, int send)
{
    int n = t->size;
    while (k > 0) {
        int run = k < n - i ? k : n - i;
        for (int j = i; j < i + run; j++) {
            p2p_data_t d = set->start ? mv_run(&set->b, set->start[j], (size_t)set->len[j])
                                      : mv_run(&set->b, j, (size_t)run);
            if (send)
                mv_send(s, t, peer, &d);
            else
                mv_recv(s, t, peer, &d);
            if (!set->start)
                break;
        }
        k -= run;
        i = 0;
    }
}

/* The end of a round: the first round's end copies my own block into place (a local step,
 * so it also waits for the round); other rounds but the last end with a fence. */
static void end_round(icoll_sched_t *s, const coll_team_t *t, const mv_set_t *set,
                      const p2p_data_t *mine, int round, int last)
{
    if (round == 0 && mine) {
        p2p_data_t d = set->start
                           ? mv_run(&set->b, set->start[t->rank], (size_t)set->len[t->rank])
                           : mv_run(&set->b, t->rank, 1);
        icoll_sched_copy_data(s, mine, &d);
    } else if (!last) {
        icoll_sched_fence(s);
    }
}

/* The first round sends my own block: from mine when given. */
static void send_first(icoll_sched_t *s, const coll_team_t *t, int peer, const mv_set_t *set,
                       const p2p_data_t *mine)
{
    if (mine)
        mv_send(s, t, peer, mine);
    else
        xfer(s, t, peer, set, t->rank, 1, 1);
}

void mv_allgather_set(icoll_sched_t *s, const coll_team_t *t, const mv_set_t *set,
                      const p2p_data_t *mine, int algo)
{
    int n = t->size, me = t->rank;
    if (n == 1) {
        end_round(s, t, set, mine, 0, 1);
        return;
    }
    if (algo == MV_AG_RECURSIVE_DOUBLING && (n & (n - 1)))
        algo = MV_AG_BRUCK;
    int round = 0;
    switch (algo) {
    case MV_AG_RECURSIVE_DOUBLING:
        for (int mask = 1; mask < n; mask <<= 1, round++) {
            int peer = me ^ mask;
            if (round == 0)
                send_first(s, t, peer, set, mine);
            else
                xfer(s, t, peer, set, me & ~(mask - 1), mask, 1);
            xfer(s, t, peer, set, peer & ~(mask - 1), mask, 0);
            end_round(s, t, set, mine, round, 2 * mask >= n);
        }
        break;
    case MV_AG_BRUCK:
        for (int d = 1; d < n; d <<= 1, round++) {
            int cnt = d < n - d ? d : n - d;
            if (round == 0)
                send_first(s, t, (me - d + n) % n, set, mine);
            else
                xfer(s, t, (me - d + n) % n, set, me, cnt, 1);
            xfer(s, t, (me + d) % n, set, (me + d) % n, cnt, 0);
            end_round(s, t, set, mine, round, 2 * d >= n);
        }
        break;
    default: /* ring */
        for (; round < n - 1; round++) {
            if (round == 0)
                send_first(s, t, (me + 1) % n, set, mine);
            else
                xfer(s, t, (me + 1) % n, set, (me - round + n) % n, 1, 1);
            xfer(s, t, (me - 1 + n) % n, set, (me - round - 1 + 2 * n) % n, 1, 0);
            end_round(s, t, set, mine, round, round == n - 2);
        }
        break;
    }
}

/* Hosts' phases (see the top): leaders gather, exchange, broadcast, unpack. */
static int allgather_hier(icoll_sched_t *s, comm_t *c, const coll_hier_t *h,
                          const p2p_data_t *mine, const mv_blocks_t *rb, size_t bb, int algo)
{
    int n = h->all.size, me = h->all.rank, host = h->host_of[me];
    size_t total = (size_t)n * bb;
    p2p_data_t whole = mv_run(rb, 0, (size_t)n);
    int direct = !whole.layout && mv_hier_ordered(h, n);
    char *tmp = direct ? whole.buf : icoll_sched_alloc(s, total);
    int *start = h->leaders.rank >= 0 ? icoll_sched_alloc(s, (size_t)h->nhosts * sizeof(int))
                                      : NULL;
    if (!tmp || (h->leaders.rank >= 0 && !start))
        return MPI_ERR_NO_MEM;
    /* my block: from the send buffer, or (in place) from the receive buffer unless that is
     * where the leader collects it anyway */
    p2p_data_t own = mine ? *mine : mv_run(rb, me, 1);
    const p2p_data_t *src = mine || !direct || h->node.rank != 0 ? &own : NULL;
    mv_blocks_t out = mv_bytes(tmp + (size_t)mv_host_start(h, host) * bb, bb);
    mv_gather_team(s, &h->node, 0, src, &out, bb);
    icoll_sched_fence(s);
    if (start) {
        for (int k = 1; k < h->nhosts; k++)
            start[k] = start[k - 1] + h->node_size[k - 1];
        mv_set_t set = { mv_bytes(tmp, bb), start, h->node_size };
        if (algo < 0)
            algo = pick(COMM_OP_ALLGATHER, h->nhosts, total);
        mv_allgather_set(s, &h->leaders, &set, NULL, algo);
        icoll_sched_fence(s);
    }
    int rc = COLL_DECLINED;
    if (coll_forced(COMM_OP_ALLGATHER) < 0)
        rc = coll_shm_bcast(s, c, tmp, total, 0);
    if (rc == COLL_DECLINED) {
        rc = MPI_SUCCESS;
        mv_bcast_bytes(s, &h->node, 0, tmp, total, mv_bcast_forced());
    }
    icoll_sched_fence(s);
    if (!direct)
        mv_hosts_copy(s, h, n, tmp, bb, rb, 0);
    return rc;
}

/* Every member sends its block to the other group's first member, which broadcasts the
 * other group's blocks within its own group: uniform blocks are one typed run, received and
 * broadcast in place; v-form blocks travel packed in a temporary. */
static int allgather_inter(icoll_sched_t *s, comm_t *c, const p2p_data_t *mine,
                           const mv_set_t *set, size_t total)
{
    comm_t *local = c->local_comm;
    int m = comm_peer_size(c);
    if (mine->bytes)
        icoll_sched_send_data(s, c, 0, mine);
    if (total == 0)
        return MPI_SUCCESS;
    if (!set->start) {
        if (local->rank == 0) {
            for (int i = 0; i < m; i++) {
                p2p_data_t d = mv_run(&set->b, i, 1);
                icoll_sched_recv_data(s, c, i, &d);
            }
            icoll_sched_fence(s);
        }
        return coll_bcast(s, local, set->b.base, (size_t)m * set->b.count, set->b.dt, 0);
    }
    char *tmp = icoll_sched_alloc(s, total);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    size_t off = 0;
    for (int i = 0; i < m; i++) {
        size_t bytes = mv_set_bytes(set, i);
        p2p_data_t d = mv_data(tmp + off, bytes);
        if (local->rank == 0 && bytes)
            icoll_sched_recv_data(s, c, i, &d);
        off += bytes;
    }
    icoll_sched_fence(s);
    int rc = coll_bcast(s, local, tmp, total, mv_byte(), 0);
    icoll_sched_fence(s);
    off = 0;
    for (int i = 0; i < m; i++) {
        p2p_data_t d = mv_run(&set->b, set->start[i], (size_t)set->len[i]);
        p2p_data_t p = mv_data(tmp + off, d.bytes);
        mv_copy(s, &p, &d);
        off += d.bytes;
    }
    return rc;
}

int coll_allgather(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                   dtype_t *stype, void *rbuf, size_t rcount, dtype_t *rtype)
{
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    int inplace = sbuf == COLL_IN_PLACE;
    p2p_data_t mine = inplace ? (p2p_data_t){ 0 } : mv_typed(sbuf, scount, stype);
    mv_set_t set = { { rbuf, rcount, rtype }, NULL, NULL };
    if (comm_is_inter(c)) {
        size_t total = (size_t)comm_peer_size(c) * rcount * (size_t)rtype->size;
        coll_trace_note("inter", "-", total);
        return allgather_inter(s, c, &mine, &set, total);
    }
    int n = c->size;
    size_t bb = rcount * (size_t)rtype->size;
    if (bb == 0) {
        coll_trace_note("none", "-", (size_t)n * bb);
        return MPI_SUCCESS;
    }
    const coll_sites_t *S = coll_use_sites(c);
    if (S) {
        coll_trace_note("sites", "-", (size_t)n * bb);
        return site_allgather(s, c, S, inplace ? NULL : &mine, rbuf, rcount, rtype);
    }
    coll_team_t all = coll_team_all(c);
    const coll_hier_t *h;
    int hier = mv_use_hier(c, &h);
    if (hier < 0)
        return MPI_ERR_NO_MEM;
    if (hier)
        coll_trace_note("hier",
                        set_algo(h->nhosts, pick(COMM_OP_ALLGATHER, h->nhosts, (size_t)n * bb)),
                        (size_t)n * bb);
    else
        coll_trace_note("p2p", set_algo(n, pick(COMM_OP_ALLGATHER, n, (size_t)n * bb)),
                        (size_t)n * bb);
    if (hier)
        return allgather_hier(s, c, h, inplace ? NULL : &mine, &set.b, bb,
                              coll_forced(COMM_OP_ALLGATHER));
    mv_allgather_set(s, &all, &set, inplace ? NULL : &mine,
                     pick(COMM_OP_ALLGATHER, n, (size_t)n * bb));
    return MPI_SUCCESS;
}

int coll_allgatherv(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount,
                    dtype_t *stype, void *rbuf, const int *rcounts, const int *displs,
                    dtype_t *rtype)
{
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    int inplace = sbuf == COLL_IN_PLACE;
    p2p_data_t mine = inplace ? (p2p_data_t){ 0 } : mv_typed(sbuf, scount, stype);
    mv_set_t set = { { rbuf, 1, rtype }, displs, rcounts };
    int m = comm_peer_size(c);
    size_t total = 0;
    for (int i = 0; i < m; i++)
        total += (size_t)rcounts[i] * (size_t)rtype->size;
    if (comm_is_inter(c)) {
        coll_trace_note("inter", "-", total);
        return allgather_inter(s, c, &mine, &set, total);
    }
    if (total == 0) {
        coll_trace_note("none", "-", total);
        return MPI_SUCCESS;
    }
    const coll_sites_t *S = coll_use_sites(c);
    coll_trace_note(S ? "sites" : "p2p",
                    S ? "-" : set_algo(c->size, pick(COMM_OP_ALLGATHERV, c->size, total)),
                    total);
    if (S)
        return site_allgatherv(s, c, S, inplace ? NULL : &mine, rbuf, rcounts, displs, rtype);
    coll_team_t all = coll_team_all(c);
    mv_allgather_set(s, &all, &set, inplace ? NULL : &mine,
                     pick(COMM_OP_ALLGATHERV, c->size, total));
    return MPI_SUCCESS;
}
