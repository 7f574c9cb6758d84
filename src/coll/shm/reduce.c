/*
 * Reduce and allreduce through the members' slots, in rounds of at most C bytes per member
 * (round r: elements [r*E, (r+1)*E), E = C / element size). In round r every member copies its
 * contribution into its slot g0 + r and sets the slot's position to pos(s, 2r+1). Then:
 *
 *   whole (below METAMPI_COLL_SHM_ALLREDUCE_SPLIT / _REDUCE_SPLIT): the root (reduce) or
 *     every member (allreduce) waits for all contributions and combines them into its output
 *     — one synchronisation per round, the fastest for small data; the other members of a
 *     reduce read nothing (they ack pos(s, POS_MAX) at the start);
 *   split: the round is cut into n segments (shm_segment); member m combines segment m of
 *     every contribution, copies the result into segment m of its own slot and sets the
 *     slot's position to pos(s, 2r+2) (the reduce root keeps its own result in its output);
 *     then the root (reduce) or everyone (allreduce) copies the other segments' results out.
 *     Each member does 1/n of the arithmetic.
 *
 * Either way an element's result is x_0 op (x_1 op (... op x_{n-1})) over the node team's
 * members in rank order (op_apply's `in` is the left operand), computed once per element in
 * a fixed order: the same bits at every member and on every run, and correct for
 * non-commutative ops. The root of a whole-mode reduce reads its own contribution from its
 * input instead of copying it into its slot (root_direct; not when it reduces in place and
 * is not the last member, as its output is overwritten with the last member's data first).
 * A member acks pos(s, r+1) once it reads nothing more of round r.
 */
#include "coll/shm/ops.h"

#include <string.h>

/* Elements in round r. */
static size_t round_count(const shm_op_t *o, uint64_t r)
{
    size_t first = (size_t)r * o->per;
    return o->count - first < o->per ? o->count - first : o->per;
}

void shm_segment(const shm_op_t *o, size_t ne, int m, size_t *lo, size_t *hi)
{
    size_t unit = 1, es = o->esize;
    while ((unit * es) % 64) /* whole cache lines: unit <= 64 elements */
        unit++;
    size_t n = (size_t)o->a->n, q = (ne + n - 1) / n;
    q = (q + unit - 1) / unit * unit;
    *lo = q * (size_t)m < ne ? q * (size_t)m : ne;
    *hi = *lo + q < ne ? *lo + q : ne;
}

/* Member i's contribution to round r (global round g, nb bytes per member): its slot, or
 * for the root that keeps its own out of its slot (root_direct), its input. */
static const unsigned char *operand(const shm_op_t *o, int i, uint64_t r, uint64_t g,
                                    size_t nb)
{
    if (o->root_direct && i == o->a->me)
        return o->in + (size_t)r * o->per * o->esize;
    return shm_slot(o->a, i, g, nb);
}

/* dst (elements [lo, hi) of round r) = x_0 op (x_1 op ... x_{n-1}). dst may be the root's
 * own input (in place) only when the root is the last member. */
static void combine(shm_op_t *o, uint64_t r, uint64_t g, size_t nb, size_t lo, size_t hi,
                    unsigned char *dst)
{
    coll_area_t *a = o->a;
    size_t off = lo * o->esize, ne = hi - lo;
    const unsigned char *last = operand(o, a->n - 1, r, g, nb) + off;
    if (last != dst)
        memcpy(dst, last, ne * o->esize);
    for (int i = a->n - 2; i >= 0; i--) {
        int rc = op_apply(o->op, operand(o, i, r, g, nb) + off - o->lb, dst - o->lb, ne, o->dt);
        if (rc != MPI_SUCCESS && o->err == MPI_SUCCESS)
            o->err = rc;
    }
}

static void ack_round(shm_op_t *o, uint64_t r)
{
    coll_area_t *a = o->a;
    uint64_t v = shm_pos(o->seq, r + 1 == o->nrounds ? POS_MAX : r + 1);
    shm_store_wake(a, &a->ctl[a->me].ack, v, -1);
}

int shm_run_reduce(shm_op_t *o)
{
    coll_area_t *a = o->a;
    int me = a->me, all = o->kind == SHM_ALLREDUCE, gets = all || me == o->root;
    if (!gets && !o->split && o->r == 0 && o->step == 0)
        shm_store_wake(a, &a->ctl[me].ack, shm_pos(o->seq, POS_MAX), -1); /* reads nothing */
    for (; o->r < o->nrounds; o->r++, o->step = 0) {
        uint64_t r = o->r, g = o->g0 + r;
        size_t ne = round_count(o, r), es = o->esize, first = (size_t)r * o->per, nb = ne * es;
        size_t lo, hi;
        _Atomic uint64_t *pos = &shm_slot_hdr(a, me, g)->pos;
        switch (o->step) {
        case 0:
            if (!o->root_direct) {
                if (!shm_slot_free(a, g, shm_pos(o->seq, r + 1)))
                    return ICOLL_AGAIN;
                memcpy(shm_slot(a, me, g, nb), o->in + first * es, nb);
                shm_store_wake(a, pos, shm_pos(o->seq, 2 * r + 1), -1);
            }
            o->step = 1;
            o->k = 0;
            /* fall through */
        case 1:
            if (!gets && !o->split)
                continue;
            if (!shm_all_slots(a, &o->k, g, shm_pos(o->seq, 2 * r + 1)))
                return ICOLL_AGAIN;
            if (!o->split) {
                combine(o, r, g, nb, 0, ne, o->out + first * es);
                ack_round(o, r);
                continue;
            }
            shm_segment(o, ne, me, &lo, &hi);
            if (hi > lo) {
                unsigned char *dst = gets ? o->out + (first + lo) * es : o->tmp;
                combine(o, r, g, nb, lo, hi, dst);
                if (all || !gets)
                    memcpy(shm_slot(a, me, g, nb) + lo * es, dst, (hi - lo) * es);
            }
            if (!gets) {
                shm_store_wake(a, pos, shm_pos(o->seq, 2 * r + 2), o->root);
                ack_round(o, r);
                continue;
            }
            if (all)
                shm_store_wake(a, pos, shm_pos(o->seq, 2 * r + 2), -1);
            o->step = 2;
            o->k = 0;
            /* fall through */
        case 2:
            if (!shm_all_slots(a, &o->k, g, shm_pos(o->seq, 2 * r + 2)))
                return ICOLL_AGAIN;
            for (int m = 0; m < a->n; m++) {
                if (m == me)
                    continue;
                shm_segment(o, ne, m, &lo, &hi);
                memcpy(o->out + (first + lo) * es, shm_slot(a, m, g, nb) + lo * es,
                       (hi - lo) * es);
            }
            ack_round(o, r);
            continue;
        }
    }
    return MPI_SUCCESS;
}
