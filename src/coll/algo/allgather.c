/*
 * Allgather over a team and a set of blocks (coll/move.h: uniform blocks travel in runs, v-form
 * blocks one message each), all straight in the receive buffer, typed, without temporaries:
 *  recursive_doubling  log2(n) exchanges with rank ^ 2^k of everything gathered so far
 *                      (power-of-two n; otherwise Bruck takes over).
 *  bruck               ceil(log2 n) rounds: send what I hold (blocks me, me+1, ...) to
 *                      me - 2^k, receive from me + 2^k; any n.
 *  ring                n - 1 rounds passing one block to the right. Large totals.
 * Each member's own block goes out in the first round straight from its send buffer and is
 * copied into place while that round completes.
 */
#include "coll/move.h"

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
