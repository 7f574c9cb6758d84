/*
 * Large operations by remote read (cross-memory attach, p2p_read) when the area's setup found
 * it works between every pair (area.h, "Setup") and the data has at least
 * METAMPI_COLL_SHM_CMA_MIN bytes: members publish the addresses of their buffers in the first
 * line of their slot for the operation's first round and read each other's data straight
 * from there — one copy instead of two through the slots, and no pipeline of rounds.
 *
 *   broadcast: the root publishes its buffer (pos(s, 1)); every reader reads it at once and
 *     acks pos(s, POS_MAX); the root returns when all have (its buffer must stay valid).
 *   broadcast between two members: both copy, in parallel (twice as fast as one copier for
 *     1 MiB on 2 cores). The reader publishes its buffer (pos(s, 1)) and reads the first half
 *     of the root's; the root writes the second half into the reader's buffer (p2p_write) and
 *     says so with pos(s, 2), or with pos(s, 3) that it could not (the reader then reads that
 *     half too). The reader acks pos(s, POS_MAX) when it has read, and returns once the root
 *     has said pos(s, 2 or 3): its buffer is complete then. The root acks pos(s, POS_MAX)
 *     after its write (it reads the reader's slot no more).
 *   reduce, not split: everyone but the root publishes its input and acks pos(s, POS_MAX)
 *     (it reads nothing); the root combines piece by piece in rank order, reading the others'
 *     pieces, then acks.
 *   split (allreduce; reduce from METAMPI_COLL_SHM_REDUCE_SPLIT): everyone publishes its
 *     input (pos(s, 1)), combines its segment reading the others' inputs, publishes where the
 *     result is (its output, or a temporary at a reduce's non-root) with pos(s, 2); then the
 *     root or everyone reads the other segments' results; each acks pos(s, POS_MAX) when it
 *     reads nothing more.
 * Nobody returns before every other member has acked pos(s, POS_MAX): its buffers may be
 * read until then (the pair broadcast's reader: once the root has said pos(s, 2 or 3), after
 * its last access).
 * read until then. Results are combined in the same order as through the slots (reduce.c).
 */
#include "coll/shm/ops.h"

#include "core/p2p.h"

#include <stdlib.h>
#include <string.h>

enum { PIECE = 128 * 1024 }; /* bytes combined at a time (they stay in the cache) */

/* Member m's published addresses, in its slot for the operation's first round. */
typedef struct published {
    uint64_t in, res;
} published_t;

static published_t *published(const coll_area_t *a, int m, uint64_t g)
{
    return (published_t *)(void *)shm_slot_hdr(a, m, g)->inl;
}

static void read_from(shm_op_t *o, int m, void *local, uint64_t remote, size_t bytes)
{
    /* cannot fail after the setup's agreement; if it did, report instead of waiting forever */
    if (p2p_read(o->a->world[m], local, (const void *)(uintptr_t)remote, bytes) != 0 &&
        o->err == MPI_SUCCESS)
        o->err = MPI_ERR_OTHER;
}

static int all_acked(shm_op_t *o)
{
    coll_area_t *a = o->a;
    for (; o->k < a->n; o->k++)
        if (o->k != a->me && shm_load(&a->ctl[o->k].ack) < shm_pos(o->seq, POS_MAX))
            return 0;
    return 1;
}

static void ack_done(shm_op_t *o)
{
    shm_store_wake(o->a, &o->a->ctl[o->a->me].ack, shm_pos(o->seq, POS_MAX), -1);
}

static int publish(shm_op_t *o, uint64_t phase, const void *in, int who)
{
    coll_area_t *a = o->a;
    if (phase == 1 && !shm_slot_free(a, o->g0, shm_pos(o->seq, POS_MAX)))
        return 0;
    if (phase == 1)
        published(a, a->me, o->g0)->in = (uint64_t)(uintptr_t)in;
    shm_store_wake(a, &shm_slot_hdr(a, a->me, o->g0)->pos, shm_pos(o->seq, phase), who);
    return 1;
}

enum { WRITTEN = 2, NOT_WRITTEN = 3 };

/* Where the broadcast between two members is cut: the reader reads [0, half), the root
 * writes [half, bytes) (whole cache lines). */
static size_t half(const shm_op_t *o)
{
    return o->bytes / 2 / 64 * 64;
}

static int bcast_pair(shm_op_t *o)
{
    coll_area_t *a = o->a;
    int me = a->me, other = 1 - me;
    uint64_t theirs = shm_load(&shm_slot_hdr(a, other, o->g0)->pos);
    size_t h = half(o);
    if (me == o->root) {
        if (o->step == 0) {
            if (!publish(o, 1, o->in, -1))
                return ICOLL_AGAIN;
            o->step = 1;
        }
        if (o->step == 1) {
            if (theirs < shm_pos(o->seq, 1))
                return ICOLL_AGAIN;
            void *to = (void *)(uintptr_t)(published(a, other, o->g0)->in + h);
            int rc = p2p_write(a->world[other], o->in + h, to, o->bytes - h);
            publish(o, rc == 0 ? WRITTEN : NOT_WRITTEN, NULL, other);
            ack_done(o); /* it read the reader's slot (the address): free for the next op */
            o->step = 2;
            o->k = 0;
        }
        return all_acked(o) ? MPI_SUCCESS : ICOLL_AGAIN;
    }
    if (o->step == 0) {
        if (!publish(o, 1, o->out, o->root))
            return ICOLL_AGAIN;
        o->step = 1;
    }
    if (o->step == 1) {
        if (theirs < shm_pos(o->seq, 1))
            return ICOLL_AGAIN;
        read_from(o, o->root, o->out, published(a, o->root, o->g0)->in, h);
        o->step = 2;
    }
    if (theirs < shm_pos(o->seq, WRITTEN))
        return ICOLL_AGAIN;
    if (theirs == shm_pos(o->seq, NOT_WRITTEN))
        read_from(o, o->root, o->out + h, published(a, o->root, o->g0)->in + h, o->bytes - h);
    ack_done(o);
    return MPI_SUCCESS;
}

int shm_run_bcast_cma(shm_op_t *o)
{
    coll_area_t *a = o->a;
    if (a->n == 2)
        return bcast_pair(o);
    if (a->me == o->root) {
        if (o->step == 0) {
            if (!publish(o, 1, o->in, -1))
                return ICOLL_AGAIN;
            o->step = 1;
            o->k = 0;
        }
        return all_acked(o) ? MPI_SUCCESS : ICOLL_AGAIN;
    }
    if (shm_load(&shm_slot_hdr(a, o->root, o->g0)->pos) < shm_pos(o->seq, 1))
        return ICOLL_AGAIN;
    read_from(o, o->root, o->out, published(a, o->root, o->g0)->in, o->bytes);
    shm_store_wake(a, &a->ctl[a->me].ack, shm_pos(o->seq, POS_MAX), o->root);
    return MPI_SUCCESS;
}

/* res (elements [lo, hi) of the whole vector) = x_0 op (x_1 op ... x_{n-1}), reading the
 * others' inputs piece by piece. res may be the input itself (in place) only at the last
 * member; otherwise, in place, each piece is combined in a temporary and copied. */
static void combine(shm_op_t *o, size_t lo, size_t hi, unsigned char *res)
{
    coll_area_t *a = o->a;
    size_t es = o->esize, per = PIECE / es ? PIECE / es : 1;
    int me = a->me, last = a->n - 1;
    int via_tmp = res == o->in + lo * es && me != last;
    unsigned char *buf = shm_area_buffer(a, 0, 2 * per * es);
    if (!buf) {
        o->err = MPI_ERR_NO_MEM;
        return;
    }
    unsigned char *acc_tmp = buf, *piece = buf + per * es;
    for (size_t p = lo; p < hi; p += per) {
        size_t ne = hi - p < per ? hi - p : per, nb = ne * es, off = (p - lo) * es;
        unsigned char *acc = via_tmp ? acc_tmp : res + off;
        if (last == me) {
            if (acc != o->in + p * es)
                memcpy(acc, o->in + p * es, nb);
        } else {
            read_from(o, last, acc, published(a, last, o->g0)->in + p * es, nb);
        }
        for (int i = last - 1; i >= 0; i--) {
            const unsigned char *x = o->in + p * es;
            if (i != me) {
                read_from(o, i, piece, published(a, i, o->g0)->in + p * es, nb);
                x = piece;
            }
            int rc = op_apply(o->op, x - o->lb, acc - o->lb, ne, o->dt);
            if (rc != MPI_SUCCESS && o->err == MPI_SUCCESS)
                o->err = rc;
        }
        if (via_tmp)
            memcpy(res + off, acc, nb);
    }
}

int shm_run_reduce_cma(shm_op_t *o)
{
    coll_area_t *a = o->a;
    int me = a->me, all = o->kind == SHM_ALLREDUCE, gets = all || me == o->root;
    int split = o->split || all;
    size_t lo, hi, es = o->esize;
    if (o->step == 0) {
        if ((split || !gets) && !publish(o, 1, o->in, -1)) /* the root of a whole reduce */
            return ICOLL_AGAIN;                            /* publishes nothing */
        if (!split && !gets)
            ack_done(o); /* and the others read nothing */
        o->step = !split && !gets ? 3 : 1;
        o->k = 0;
    }
    if (o->step == 1) {
        if (!shm_all_slots(a, &o->k, o->g0, shm_pos(o->seq, 1)))
            return ICOLL_AGAIN;
        if (!split) {
            combine(o, 0, o->count, o->out);
        } else {
            shm_segment(o, o->count, me, &lo, &hi);
            unsigned char *res = gets ? o->out + lo * es : NULL;
            if (!res && hi > lo && !(res = shm_area_buffer(a, 1, (hi - lo) * es)))
                o->err = MPI_ERR_NO_MEM;
            if (res && hi > lo)
                combine(o, lo, hi, res);
            published(a, me, o->g0)->res = (uint64_t)(uintptr_t)res;
            publish(o, 2, NULL, all ? -1 : o->root);
        }
        if (!split || !gets)
            ack_done(o);
        o->step = !split || !gets ? 3 : 2;
        o->k = 0;
    }
    if (o->step == 2) {
        if (!shm_all_slots(a, &o->k, o->g0, shm_pos(o->seq, 2)))
            return ICOLL_AGAIN;
        for (int m = 0; m < a->n; m++) {
            shm_segment(o, o->count, m, &lo, &hi);
            if (m != me && hi > lo)
                read_from(o, m, o->out + lo * es, published(a, m, o->g0)->res, (hi - lo) * es);
        }
        ack_done(o);
        o->step = 3;
        o->k = 0;
    }
    return all_acked(o) ? MPI_SUCCESS : ICOLL_AGAIN;
}
