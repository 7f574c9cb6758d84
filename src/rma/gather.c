/* Gathering small operations under the emulation (see win.h, "gathering"): a buffer of
 * records per target, sent as one message. Invariant: a target's records leave before any
 * other message of this process to that target on the window (every sync path and every
 * unbatched operation flushes first), so the target still applies each origin's operations
 * in issue order. */
#include "rma/win.h"
#include "rma/wire.h"

#include "core/errors.h"
#include "runtime/tunables.h"

#include <stdlib.h>
#include <string.h>

size_t rma_gather_limit(void)
{
    static size_t limit = (size_t)-1;
    if (limit == (size_t)-1)
        limit = tun_size(TUN_RMA_GATHER);
    return limit;
}

static void send_buffer(win_t *w, int t)
{
    rma_gather_t *g = &w->gather[t];
    char *msg = g->buf;
    size_t len = g->len;
    g->buf = NULL;
    g->len = 0;
    if (rma_send(w, t, msg, len, "MPI_Win (gathered operations)") != MPI_SUCCESS)
        err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory sending gathered operations");
}

void *rma_gather_reserve(win_t *w, int target, size_t bytes)
{
    int n = w->comm->size;
    if (!w->gather) {
        w->gather = calloc((size_t)n, sizeof *w->gather);
        w->gather_dirty = malloc((size_t)n * sizeof *w->gather_dirty);
        if (!w->gather || !w->gather_dirty)
            err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for gathering operations");
    }
    rma_gather_t *g = &w->gather[target];
    size_t room = rma_padded(bytes);
    if (g->len && g->len + room > RMA_GATHER_BYTES)
        send_buffer(w, target);   /* stays dirty: the record goes into a new buffer */
    if (!g->buf) {
        if (!(g->buf = malloc(RMA_GATHER_BYTES)))
            err_fatal(MPI_ERR_NO_MEM, "MPI_Win", "out of memory for gathering operations");
    }
    if (!g->len && !g->dirty) {
        g->dirty = 1;
        w->gather_dirty[w->ndirty++] = target;
    }
    char *at = g->buf + g->len;
    memset(at + bytes, 0, room - bytes);   /* the padding travels too */
    g->len += room;
    return at;
}

void rma_gather_flush(win_t *w, int target)
{
    if (!w->ndirty)
        return;
    if (target >= 0) {
        if (w->gather[target].len)
            send_buffer(w, target);
        return;   /* its dirty mark goes at the next flush of all */
    }
    for (int i = 0; i < w->ndirty; i++) {
        int t = w->gather_dirty[i];
        if (w->gather[t].len)
            send_buffer(w, t);
        w->gather[t].dirty = 0;
    }
    w->ndirty = 0;
}

void rma_gather_free(win_t *w)
{
    if (w->gather)
        for (int t = 0; t < w->comm->size; t++)
            free(w->gather[t].buf);
    free(w->gather);
    free(w->gather_dirty);
    w->gather = NULL;
    w->gather_dirty = NULL;
}
