/*
 * When a communicator's area could not be set up, its shared-memory operations (already
 * promised to the callers, see shm.c) run as messages on the node team instead, inserted by
 * the operation's callback — the same entries at every member, since every member learns the
 * same outcome. Simple algorithms (this is the rare path): barrier and reductions through
 * member 0 / the root, broadcast along a binomial tree; reductions combine in rank order;
 * allgather and alltoall (small blocks) as one message between every pair.
 */
#include "coll/shm/ops.h"

static char nothing; /* the buffer of zero-byte messages */

static int rank_of(const shm_op_t *o, int member)
{
    return o->a->crank ? o->a->crank[member] : member;
}

/* Binomial tree over the members, rooted at member root. */
static void bcast(icoll_sched_t *s, shm_op_t *o, void *buf, size_t bytes, int root)
{
    int n = o->a->n, rel = (o->a->me - root + n) % n, mask = 1;
    for (; mask < n; mask <<= 1)
        if (rel & mask) {
            icoll_sched_recv(s, o->c, rank_of(o, (rel - mask + root) % n), buf, bytes);
            icoll_sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n)
            icoll_sched_send(s, o->c, rank_of(o, (rel + mask + root) % n), buf, bytes);
    icoll_sched_fence(s);
}

/* Everyone's contribution to root, combined there in rank order into out. */
static void reduce(icoll_sched_t *s, shm_op_t *o, int root)
{
    coll_area_t *a = o->a;
    if (a->me != root) {
        icoll_sched_send(s, o->c, rank_of(o, root), o->in, o->bytes);
        icoll_sched_fence(s);
        return;
    }
    unsigned char *tmp = icoll_sched_alloc(s, (size_t)a->n * o->bytes);
    if (!tmp)
        return;
    icoll_sched_copy(s, o->in, tmp + (size_t)root * o->bytes, o->bytes);
    for (int m = 0; m < a->n; m++)
        if (m != root)
            icoll_sched_recv(s, o->c, rank_of(o, m), tmp + (size_t)m * o->bytes, o->bytes);
    icoll_sched_fence(s);
    icoll_sched_copy(s, tmp + (size_t)(a->n - 1) * o->bytes, o->out, o->bytes);
    for (int m = a->n - 2; m >= 0; m--)
        icoll_sched_op(s, o->op, tmp + (size_t)m * o->bytes - o->lb, o->out - o->lb, o->count,
                       o->dt);
}

/* Allgather (my block to everyone) and alltoall (block k to member k): in never overlaps
 * what the messages receive (allgather in place: in is my own block of out; alltoall: in and
 * out are apart). */
static void exchange(icoll_sched_t *s, shm_op_t *o)
{
    coll_area_t *a = o->a;
    size_t bb = o->per;
    int all = o->kind == SHM_ALLTOALL, me = rank_of(o, a->me);
    for (int m = 0; m < a->n; m++) {
        if (m == a->me)
            continue;
        int r = rank_of(o, m);
        icoll_sched_recv(s, o->c, r, o->out + (size_t)r * bb, bb);
        icoll_sched_send(s, o->c, r, o->in + (all ? (size_t)r * bb : 0), bb);
    }
    const unsigned char *own = o->in + (all ? (size_t)me * bb : 0);
    if (own != o->out + (size_t)me * bb)
        icoll_sched_copy(s, own, o->out + (size_t)me * bb, bb);
    icoll_sched_fence(s);
}

void shm_fallback(icoll_sched_t *s, shm_op_t *o)
{
    coll_area_t *a = o->a;
    switch (o->kind) {
    case SHM_BARRIER:
        if (a->me == 0) {
            for (int m = 1; m < a->n; m++)
                icoll_sched_recv(s, o->c, rank_of(o, m), &nothing, 0);
            icoll_sched_fence(s);
            for (int m = 1; m < a->n; m++)
                icoll_sched_send(s, o->c, rank_of(o, m), &nothing, 0);
        } else {
            icoll_sched_send(s, o->c, rank_of(o, 0), &nothing, 0);
            icoll_sched_recv(s, o->c, rank_of(o, 0), &nothing, 0);
        }
        icoll_sched_fence(s);
        break;
    case SHM_BCAST:
        bcast(s, o, o->out, o->bytes, o->root);
        break;
    case SHM_REDUCE:
        reduce(s, o, o->root);
        break;
    case SHM_ALLGATHER:
    case SHM_ALLTOALL:
        exchange(s, o);
        break;
    default:
        reduce(s, o, 0);
        bcast(s, o, o->out, o->bytes, 0);
        break;
    }
}
