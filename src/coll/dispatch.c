/*
 * The dispatcher (coll/level.h): one walk over the collective's level rows of the selection
 * table, a few compares per row, nothing allocated but the schedule the call needs anyway.
 */
#include "coll/level.h"

#include "core/comm.h"
#include "core/comm_arch.h"
#include "core/schedule.h"
#include "runtime/peer_arch.h"

#include <mpi.h>

int coll_takes_inter(coll_call_t *call)
{
    return comm_is_inter(call->comm) ? MPI_SUCCESS : COLL_DECLINED;
}

/* Runs level L for call: begins the schedule when L needs one and there is none yet. */
static int build(const coll_level_t *L, coll_call_t *call)
{
    if (!(L->flags & COLL_LEVEL_NO_SCHEDULE) && !call->s &&
        !(call->s = icoll_sched_new_op(call->comm, call->stream, call->kind)))
        return MPI_ERR_NO_MEM;
    return L->build(call);
}

int coll_start(const coll_family_t *f, coll_call_t *call)
{
    const coll_table_t *t = coll_table(call->kind);
    coll_measure_t m = { call->comm->size, call->size, call->count, 1 };
    call->direct = 0;
    /* members of unlike architectures (issue 19): the point-to-point algorithms alone (and
     * the inter-communicator forms, built of them), whose typed receives convert; the other
     * levels move typed data as bytes between members */
    int mixed = !peer_arch_all_same() && comm_arch_mixed(call->comm);
    for (int i = 0; i < t->nrules; i++) {
        const coll_rule_t *r = &t->rules[i];
        const coll_level_t *L = f->levels[r->level];
        int typed = r->level == COLL_P2P || r->level == COLL_INTER;
        if (!L || (r->level != COLL_P2P &&
                   ((mixed && !typed) || !coll_level_row_applies(t, r, &m))))
            continue;
        /* a level without a schedule only while none is begun: a blocking call's start */
        if ((L->flags & COLL_LEVEL_NO_SCHEDULE) && (call->s || call->stream != COMM_BLOCKING))
            continue;
        call->found = NULL;
        int rc = L->can_take ? L->can_take(call) : MPI_SUCCESS;
        if (rc == COLL_DECLINED)
            continue;
        if (rc == MPI_SUCCESS)
            rc = build(L, call);
        if (rc == COLL_DECLINED)
            continue;
        call->direct = (L->flags & COLL_LEVEL_NO_SCHEDULE) != 0;
        return rc;
    }
    return MPI_ERR_INTERN; /* the p2p level takes every call: not reached */
}
