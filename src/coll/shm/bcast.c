/*
 * Broadcast through the root's slots: round r carries bytes [r*C, (r+1)*C). The root copies
 * a round into its slot g0 + r (once the readers have acked that slot's previous contents)
 * and sets the slot's position to pos(s, r+1); each reader waits for that, copies the round
 * out and acks pos(s, r+1) (pos(s, POS_MAX) after the last). With K slots the root runs up to K rounds
 * ahead, so a large broadcast is a pipeline of copy-in and copy-out, and a small one
 * returns at the root as soon as its data is in the slot.
 */
#include "coll/shm/ops.h"

#include <string.h>

static size_t round_bytes(const shm_op_t *o, uint64_t r)
{
    size_t off = (size_t)r * o->per;
    return o->bytes - off < o->per ? o->bytes - off : o->per;
}

int shm_run_bcast(shm_op_t *o)
{
    coll_area_t *a = o->a;
    if (a->me == o->root) {
        for (; o->r < o->nrounds; o->r++) {
            uint64_t r = o->r, g = o->g0 + r;
            if (!shm_slot_free(a, g, shm_pos(o->seq, r + 1)))
                return ICOLL_AGAIN;
            size_t len = round_bytes(o, r);
            memcpy(shm_slot(a, a->me, g, len), o->in + (size_t)r * o->per, len);
            shm_store_wake(a, &shm_slot_hdr(a, a->me, g)->pos, shm_pos(o->seq, r + 1), -1);
        }
        return MPI_SUCCESS;
    }
    while (o->r < o->nrounds) {
        uint64_t r = o->r, g = o->g0 + r;
        if (shm_load(&shm_slot_hdr(a, o->root, g)->pos) < shm_pos(o->seq, r + 1))
            return ICOLL_AGAIN;
        size_t len = round_bytes(o, r);
        memcpy(o->out + (size_t)r * o->per, shm_slot(a, o->root, g, len), len);
        o->r = r + 1;
        /* only the root writes in this operation: it alone may wait for these acks */
        shm_store_wake(a, &a->ctl[a->me].ack,
                       shm_pos(o->seq, o->r == o->nrounds ? POS_MAX : o->r), o->root);
    }
    return MPI_SUCCESS;
}
