/*
 * Allgather and alltoall of small blocks through the members' slots, in one round (the
 * callers in shm.c accept only data that fits one slot): every member copies what it
 * contributes into its slot g0 and sets the slot's position to pos(s, 1); then it waits until
 * every other member's slot holds pos(s, 1), copies out what is its own share and acks
 * pos(s, POS_MAX). No member sends anything to another: one flag per member, read by all.
 *
 *   allgather: a slot holds its writer's block (bb bytes); the reader copies member m's slot
 *              to block crank[m] of its output, and its own block from its input (nothing
 *              when the input already is that block: MPI_IN_PLACE);
 *   alltoall:  a slot holds its writer's n blocks in communicator rank order (n * bb bytes);
 *              the reader (communicator rank R) copies block R of member m's slot to block
 *              crank[m] of its output, and its own block R from its input (in != out: the
 *              caller packs an in-place buffer first).
 *
 * in and out are contiguous bytes (the callers pack and unpack other layouts around the
 * operation). Both kinds read and write nothing outside this operation's round, so they
 * follow the area's slot and ack protocol unchanged (area.h).
 */
#include "coll/shm/ops.h"

#include <string.h>

static int rank_of(const coll_area_t *a, int member)
{
    return a->crank ? a->crank[member] : member;
}

/* Step 0 (both kinds): my contribution into my slot, published. */
static int publish(shm_op_t *o)
{
    coll_area_t *a = o->a;
    if (!shm_slot_free(a, o->g0, shm_pos(o->seq, 1)))
        return ICOLL_AGAIN;
    memcpy(shm_slot(a, a->me, o->g0, o->bytes), o->in, o->bytes);
    shm_store_wake(a, &shm_slot_hdr(a, a->me, o->g0)->pos, shm_pos(o->seq, 1), -1);
    o->step = 1;
    o->k = 0;
    return MPI_SUCCESS;
}

int shm_run_exchange(shm_op_t *o)
{
    coll_area_t *a = o->a;
    if (o->step == 0 && publish(o) == ICOLL_AGAIN)
        return ICOLL_AGAIN;
    if (!shm_all_slots(a, &o->k, o->g0, shm_pos(o->seq, 1)))
        return ICOLL_AGAIN;
    size_t bb = o->per;
    /* my share of member m's contribution: its whole slot (allgather), or block R of it */
    size_t at = o->kind == SHM_ALLTOALL ? (size_t)rank_of(a, a->me) * bb : 0;
    for (int m = 0; m < a->n; m++) {
        unsigned char *dst = o->out + (size_t)rank_of(a, m) * bb;
        const unsigned char *src = m == a->me ? o->in + at
                                              : shm_slot(a, m, o->g0, o->bytes) + at;
        if (src != dst)
            memcpy(dst, src, bb);
    }
    /* any member may wait for this before writing its slot again */
    shm_store_wake(a, &a->ctl[a->me].ack, shm_pos(o->seq, POS_MAX), -1);
    return MPI_SUCCESS;
}
