/* Synchronisation: the fence (active target) and flushes (passive target). */
#include "rma/win.h"

#include "core/errors.h"
#include "core/icoll.h"
#include "core/progress.h"

#include <stdlib.h>
#include <string.h>

typedef struct fence_wait {
    const win_t *w;
    const uint64_t *expect;
} fence_wait_t;

static int all_applied(void *arg)
{
    const fence_wait_t *f = arg;
    return rma_applied_all(f->w, f->expect);
}

/* Fence: my operations complete here (data sent, results in), then every member learns how
 * many operations each origin sent it since the window was created (alltoall of the
 * cumulative counts) and waits until it applied them all. Counts are cumulative so that a
 * message of the next epoch, which an early member may send while a late one still waits
 * here, only ever adds to what is expected; the late member keeps such a message until it
 * leaves (win.h, "Fence epochs"), so a get of the next epoch never overtakes a put of this
 * one from a third process, without a barrier. Across sites the fence thus costs one
 * exchange over the WAN. */
/* The emulated exchange of a fence: every operation sent to this process before it is applied
 * when it returns. */
static int exchange_counts(win_t *w)
{
    int n = w->comm->size;
    uint64_t *expect = malloc(2 * (size_t)n * sizeof *expect);
    if (!expect)
        return MPI_ERR_NO_MEM;
    uint64_t *sent = expect + n;
    memcpy(sent, w->sent, (size_t)n * sizeof *sent);
    int rc = icoll_alltoall_u64(w->comm, sent, 1, expect);
    if (rc == MPI_SUCCESS) {
        fence_wait_t f = { w, expect };
        progress_wait_until(all_applied, &f);
    }
    free(expect);
    return rc;
}

int rma_fence(win_t *w, int assert)
{
    int rc = MPI_SUCCESS;
    rma_complete_local(w, -1);
    /* with NOPRECEDE every member asserts that no operation of its precedes; under direct
     * access every operation completed when it was issued */
    if (!w->direct && !(assert & MPI_MODE_NOPRECEDE))
        rc = exchange_counts(w);
    /* Where the members load and store each other's memory themselves (direct access, and
     * MPI_Win_allocate_shared's segment even under the emulation), keeping messages back is
     * not enough: a member must not read another's part before that one finished the epoch,
     * so they meet in a barrier between two memory fences. (Notices of post/start/complete/
     * wait are messages still.) */
    if (rc == MPI_SUCCESS && (w->direct || w->flavor == MPI_WIN_FLAVOR_SHARED)) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        rc = icoll_barrier(w->comm);
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    if (rc == MPI_SUCCESS)
        w->fences++;   /* the next epoch's messages, kept until now, may be applied */
    return rc;
}

/* A flush needs a message to a target only for puts and accumulates sent since the last
 * flush or unlock there (w->unconfirmed): the other operations are complete at the target
 * when their reply is here, which rma_complete_local waits for. */
void rma_flush(win_t *w, int target)
{
    if (w->direct) {
        /* direct operations completed when they were issued: the fence orders them before
         * whatever this process does next */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    } else if (target >= 0) {
        if (w->unconfirmed[target])
            rma_control(w, RMA_FLUSH, target, 0);
    } else {
        int n = w->comm->size, *only = malloc((size_t)n * sizeof *only);
        if (!only)
            err_fatal(MPI_ERR_NO_MEM, "MPI_Win_flush_all", "out of memory for %d targets", n);
        for (int t = 0; t < n; t++)
            only[t] = (w->lock_all || w->lock_held[t]) && w->unconfirmed[t];
        rma_control_all(w, RMA_FLUSH, only, 0);
        free(only);
    }
    rma_complete_local(w, target);
}
