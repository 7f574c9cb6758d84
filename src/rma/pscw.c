/* Generalized active target (MPI-3.1 §11.5.2): post, start, complete, wait, test, by notices
 * (win.h). */
#include "rma/win.h"

#include "core/progress.h"

#include <stdlib.h>
#include <string.h>

static int *copy_ranks(const int *ranks, int n)
{
    int *c = malloc((size_t)(n ? n : 1) * sizeof *c);
    if (c)
        memcpy(c, ranks, (size_t)n * sizeof *c);
    return c;
}

int rma_post(win_t *w, const int *ranks, int n)
{
    if (!(w->exposure = copy_ranks(ranks, n)))
        return MPI_ERR_NO_MEM;
    w->nexposure = n;
    for (int i = 0; i < n; i++)
        rma_notify(w, RMA_POST, ranks[i]);
    return MPI_SUCCESS;
}

typedef struct notices {
    const int *count;
    const int *ranks;
    int n;
} notices_t;

static int all_noticed(void *arg)
{
    const notices_t *x = arg;
    for (int i = 0; i < x->n; i++)
        if (x->count[x->ranks[i]] == 0)
            return 0;
    return 1;
}

static void use_up(int *count, const int *ranks, int n)
{
    for (int i = 0; i < n; i++)
        count[ranks[i]]--;
}

int rma_start_access(win_t *w, const int *ranks, int n)
{
    if (!(w->access = copy_ranks(ranks, n)))
        return MPI_ERR_NO_MEM;
    notices_t x = { w->posts, ranks, n };
    progress_wait_until(all_noticed, &x);
    use_up(w->posts, ranks, n);
    w->naccess = n;
    for (int i = 0; i < n; i++)
        w->access_member[ranks[i]] = 1;
    return MPI_SUCCESS;
}

void rma_complete(win_t *w)
{
    rma_complete_local(w, -1);
    for (int i = 0; i < w->naccess; i++) {
        rma_notify(w, RMA_COMPLETE, w->access[i]);
        w->access_member[w->access[i]] = 0;
    }
    free(w->access);
    w->access = NULL;
    w->naccess = -1;
}

int rma_wait(win_t *w, int blocking)
{
    notices_t x = { w->completes, w->exposure, w->nexposure };
    if (blocking) {
        progress_wait_until(all_noticed, &x);
    } else if (!all_noticed(&x)) {
        progress_poll();
        if (!all_noticed(&x))
            return 0;
    }
    use_up(w->completes, w->exposure, w->nexposure);
    free(w->exposure);
    w->exposure = NULL;
    w->nexposure = -1;
    return 1;
}
