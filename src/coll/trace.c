#include "coll/trace.h"

#include "coll/select.h"
#include "coll/tune.h"
#include "runtime/job.h"

#include <inttypes.h>
#include <stdio.h>

static coll_knob_t debug = { "METAMPI_COLL_SELECT_DEBUG", 0, 0, 0 };

static struct {
    int noted;
    const char *level, *algo;
    size_t size;
    unsigned calls;
} rec;

int coll_trace_level(void)
{
    return (int)coll_knob(&debug);
}

void coll_trace_note(const char *level, const char *algo, size_t size)
{
    if (rec.noted || !coll_trace_level())
        return;
    rec.noted = 1;
    rec.level = level;
    rec.algo = algo;
    rec.size = size;
}

void coll_trace_emit(const char *func, const comm_t *c, const icoll_sched_t *s)
{
    int v = coll_trace_level();
    if (!v)
        return;
    if (v >= 3 && rec.calls == 0 && job.rank == 0)
        coll_table_print(stderr);
    char digest[32] = "";
    if (v >= 2)
        snprintf(digest, sizeof digest, s ? " digest=%016" PRIx64 : " digest=-",
                 s ? icoll_sched_digest(s) : 0);
    fprintf(stderr, "metampi-coll: rank %d #%u %s n=%d size=%zu: %s %s%s\n", job.rank,
            ++rec.calls, func, c->size, rec.noted ? rec.size : 0,
            rec.noted ? rec.level : "?", rec.noted ? rec.algo : "?", digest);
    rec.noted = 0;
}
