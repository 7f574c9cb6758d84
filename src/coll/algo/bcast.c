/*
 * The broadcast's point-to-point algorithms over a team (coll/move.h declares them); which
 * one runs is the selection table's (coll/table.c: METAMPI_COLL_BCAST, _LONG, _CHAIN). An
 * algorithm of coll/algo/ knows nothing of levels or entry points: it appends messages among
 * a team's members to a schedule. The algorithms (docs/collectives.md):
 *  binomial           log2(n) rounds, whole message each; typed data straight from and into
 *                     the user's buffer (no copies). Small messages, and any size with 2.
 *  scatter_allgather  the message in n chunks: binomial scatter, then a ring allgather in
 *                     which the root only sends (van de Geijn). Large messages.
 *  chain              the ranks in a chain, the message in METAMPI_COLL_BCAST_SEGMENT pieces
 *                     that follow each other down it (pipelined).
 */
#include "coll/move.h"

#include "coll/select.h"

#include <string.h>

static coll_knob_t bcast_segment = { "METAMPI_COLL_BCAST_SEGMENT", 128 * 1024, 0, 0 };

int mv_bcast_forced(void)
{
    return coll_forced(COMM_OP_BCAST);
}

int mv_bcast_pick(int n, size_t bytes)
{
    coll_measure_t m = { .n = n, .size = bytes, .commutative = 1 };
    return coll_pick_p2p(COMM_OP_BCAST, &m);
}

const char *mv_bcast_algo_name(int n, size_t bytes, int algo)
{
    if (algo == MV_BCAST_AUTO)
        algo = mv_bcast_pick(n, bytes);
    return coll_algo_name(COMM_OP_BCAST, n > 2 ? algo : MV_BCAST_BINOMIAL);
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
        algo = mv_bcast_pick(t->size, bytes);
    if (algo == MV_BCAST_SCATTER_ALLGATHER && t->size > 2) {
        bcast_scatter_allgather(s, t, root, buf, bytes);
    } else if (algo == MV_BCAST_CHAIN && t->size > 2) {
        bcast_chain(s, t, root, buf, bytes, coll_knob(&bcast_segment));
    } else {
        p2p_data_t d = mv_data(buf, bytes);
        mv_bcast_binomial(s, t, root, &d, -1);
    }
}

