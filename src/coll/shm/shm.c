/*
 * The shared-memory collectives' entry points (shm.h): when to decline, and building an
 * operation into a schedule. The protocol is in area.h, the algorithms in barrier.c, bcast.c
 * and reduce.c.
 *
 * Declining is decided from what every member of the node team has alike: the environment,
 * the team's size, the data size, and whether this is the communicator's first
 * shared-memory call (which declines and starts setting the area up). Whether the area
 * turned out usable is *not* among them — members learn it at different times — so an
 * operation built before the outcome is known waits for it in its callback, and if the setup
 * failed it inserts a point-to-point algorithm there instead (fallback.c).
 *
 * Tunables (coll/tune.h; README). Defaults measured on 2 cores (OSU method): with two
 * members point-to-point moves large data with one copy (cross-memory attach) where the area
 * needs two, so teams of two hand large broadcasts and allreduces back; a reduce is combined
 * by its root alone unless told otherwise (splitting costs more copies than it saves
 * arithmetic on 2 cores).
 *   METAMPI_COLL_SHM=0                   every shared-memory algorithm declines
 *   METAMPI_COLL_SHM_BCAST_MAX           largest broadcast through the area (bytes; 1M)
 *   METAMPI_COLL_SHM_BCAST_MAX2          ... in a team of two (2K)
 *   METAMPI_COLL_SHM_REDUCE_MAX          largest reduce/allreduce through the area (1M)
 *   METAMPI_COLL_SHM_ALLREDUCE_MAX2      largest allreduce in a team of two (128K)
 *   METAMPI_COLL_SHM_ALLREDUCE_SPLIT     allreduces from this size on are split into
 *                                        segments, each combined by one member (4K)
 *   METAMPI_COLL_SHM_REDUCE_SPLIT        the same for reduce in teams of three or more
 *                                        (2M: never below the 1M limit)
 *   METAMPI_COLL_SHM_ALLGATHER_MAX       largest block of an allgather through the area (one
 *                                        slot per member holds it) (bytes; 4K)
 *   METAMPI_COLL_SHM_ALLTOALL_MAX        largest block of an alltoall (one slot per member
 *                                        holds all n of its blocks) (bytes; 4K)
 *   METAMPI_COLL_SHM_CHUNK               slot size: bytes per member and round (32K)
 *   METAMPI_COLL_SHM_SLOTS               slots per member, 2..8 (4)
 *   METAMPI_COLL_SHM_BARRIER_FLAT        teams up to this size use the flat barrier
 *                                        (everyone reads every flag); larger ones gather to
 *                                        member 0 (16)
 *   METAMPI_COLL_SHM_CMA=0               never read other members' buffers directly (cma.c)
 *   METAMPI_COLL_SHM_CMA_MIN             ... otherwise broadcasts, and reductions in teams
 *                                        of two, from this size on (16K)
 *   METAMPI_COLL_SHM_CMA_MIN_ALLREDUCE   ... allreduces in larger teams (256K)
 *   METAMPI_COLL_SHM_CMA_MIN_REDUCE      ... reduces in larger teams (2M: never; members
 *                                        copying into their slots in parallel is faster
 *                                        than the root reading everyone's)
 *   METAMPI_COLL_SHM_AREAS               areas a process creates at most (as a team's first
 *                                        member); further communicators run these
 *                                        operations as messages (fallback.c) (64)
 *   METAMPI_COLL_SHM_FAIL=<member>       testing: that member's setup fails
 */
#include "coll/shm/ops.h"
#include "core/match.h"

#include "coll/tune.h"
#include "runtime/tunables.h"

#include <stdatomic.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

static coll_knob_t knob_on = { "METAMPI_COLL_SHM", 1, 0, 0 };
static coll_knob_t knob_bcast_max = { "METAMPI_COLL_SHM_BCAST_MAX", 1u << 20, 0, 0 };
static coll_knob_t knob_bcast_max2 = { "METAMPI_COLL_SHM_BCAST_MAX2", 2048, 0, 0 };
static coll_knob_t knob_reduce_max = { "METAMPI_COLL_SHM_REDUCE_MAX", 1u << 20, 0, 0 };
static coll_knob_t knob_allreduce_max2 = { "METAMPI_COLL_SHM_ALLREDUCE_MAX2", 128u << 10, 0, 0 };
static coll_knob_t knob_allreduce_split = { "METAMPI_COLL_SHM_ALLREDUCE_SPLIT", 4096, 0, 0 };
static coll_knob_t knob_reduce_split = { "METAMPI_COLL_SHM_REDUCE_SPLIT", 2u << 20, 0, 0 };
static coll_knob_t knob_allgather_max = { "METAMPI_COLL_SHM_ALLGATHER_MAX", 4096, 0, 0 };
static coll_knob_t knob_alltoall_max = { "METAMPI_COLL_SHM_ALLTOALL_MAX", 4096, 0, 0 };
static coll_knob_t knob_chunk = { "METAMPI_COLL_SHM_CHUNK", 32768, 0, 0 };
static coll_knob_t knob_slots = { "METAMPI_COLL_SHM_SLOTS", 4, 0, 0 };
static coll_knob_t knob_flat = { "METAMPI_COLL_SHM_BARRIER_FLAT", 16, 0, 0 };
static coll_knob_t knob_areas = { "METAMPI_COLL_SHM_AREAS", 64, 0, 0 };
static coll_knob_t knob_cma = { "METAMPI_COLL_SHM_CMA", 1, 0, 0 };
static coll_knob_t knob_cma_min = { "METAMPI_COLL_SHM_CMA_MIN", 16384, 0, 0 };
static coll_knob_t knob_cma_min_reduce = { "METAMPI_COLL_SHM_CMA_MIN_REDUCE", 2u << 20, 0, 0 };
static coll_knob_t knob_cma_min_allreduce = { "METAMPI_COLL_SHM_CMA_MIN_ALLREDUCE", 256u << 10,
                                              0, 0 };

size_t coll_shm_chunk(void)
{
    size_t c = coll_knob(&knob_chunk);
    /* whole cache lines, and room for the largest elements of predefined types */
    c = (c + 63) / 64 * 64;
    return c < 256 ? 256 : c;
}

int coll_shm_slots(void)
{
    size_t k = coll_knob(&knob_slots);
    return k < 2 ? 2 : k > 8 ? 8 : (int)k;
}

int coll_shm_max_areas(void)
{
    size_t k = coll_knob(&knob_areas);
    return k > 1u << 20 ? 1 << 20 : (int)k;
}

int coll_shm_cma_allowed(void)
{
    return coll_knob(&knob_cma) != 0;
}

int coll_shm_barrier_flat(void)
{
    return (int)coll_knob(&knob_flat);
}

int coll_shm_fail_member(void)
{
    return tun_is_set(TUN_COLL_SHM_FAIL) ? tun_int(TUN_COLL_SHM_FAIL) : -1;
}

/* The area of s's stream when c's node team may use it for this call; NULL: decline. */
static coll_area_t *usable(icoll_sched_t *s, comm_t *c)
{
    if (!coll_knob(&knob_on) || comm_is_inter(c))
        return NULL;
    return coll_shm_area(c, icoll_sched_stream(s));
}

/* An operation's record comes from the area's spares (a blocking collective in a loop
 * allocates nothing) and returns there as soon as the operation is done here: its schedule
 * never calls it again, and the point-to-point replacement (fallback.c) does not refer to
 * it. */
static shm_op_t *new_op(icoll_sched_t *s, comm_t *c, coll_area_t *a, int kind, uint64_t nrounds)
{
    shm_op_t *o = a->spare_ops;
    if (o)
        a->spare_ops = o->next;
    else if (!(o = malloc(sizeof *o)))
        return NULL;
    memset(o, 0, sizeof *o);
    o->a = a;
    o->c = c;
    o->kind = kind;
    o->call = (int)icoll_sched_kind(s);
    o->seq = ++a->next_seq;
    o->g0 = a->rounds;
    o->nrounds = nrounds;
    a->rounds += nrounds;
    o->root = -1;
    return o;
}

static void spare(shm_op_t *o)
{
    o->next = o->a->spare_ops;
    o->a->spare_ops = o;
}

void shm_free_spare_ops(coll_area_t *a)
{
    while (a->spare_ops) {
        shm_op_t *o = a->spare_ops;
        a->spare_ops = o->next;
        free(o);
    }
}

/* Whether o waits for something that cannot come (area.h, "Order check"): a member that
 * runs an operation of another collective at o's sequence number (once the area is mapped),
 * or a message of another collective at the schedule's operation number waiting for us (a
 * member that runs that collective by messages). Noted for the error report. Looked at every
 * 64th pass o waits, and at least every 100 ms (a member that sleeps makes few passes). */
static int order_clash(shm_op_t *o, const icoll_sched_t *s)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    if ((++o->polls & 63) != 0 && ms - o->checked_ms < 100)
        return 0;
    o->checked_ms = ms;
    if (icoll_sched_tag(s) >= 0 && match_clash_waiting(o->c, icoll_sched_tag(s)))
        return 1;
    const coll_area_t *a = o->a;
    if (!o->started)
        return 0;
    comm_stream_t stream = icoll_sched_stream(s);
    for (int k = 0; k < a->n; k++) {
        uint64_t v = atomic_load_explicit(&a->ctl[k].op, memory_order_relaxed);
        int call = (int)(v & 0xff) - 1;
        if (k == a->me || v >> 8 != o->seq || call == o->call)
            continue;
        match_note_clash("job rank %d called %s where this process called %s", a->world[k],
                         comm_op_name(stream, (comm_op_kind_t)call),
                         comm_op_name(stream, (comm_op_kind_t)o->call));
        return 1;
    }
    return 0;
}

/* o waits: again, unless the order check says that what it waits for cannot come (the
 * operation then fails; the area is of no further use to an erroneous program). */
static int wait_or_clash(shm_op_t *o, const icoll_sched_t *s)
{
    return order_clash(o, s) ? MPI_ERR_NOT_SAME : ICOLL_AGAIN;
}

static int run(icoll_sched_t *s, void *arg)
{
    shm_op_t *o = arg;
    coll_area_t *a = o->a;
    if (!o->started) {
        if (a->state == AREA_PENDING)
            return wait_or_clash(o, s);
        if (a->state == AREA_FAILED) {
            shm_fallback(s, o);
            spare(o);
            return MPI_SUCCESS;
        }
        if (a->done_seq != o->seq - 1)
            return wait_or_clash(o, s);
        o->started = 1;
        atomic_store_explicit(&a->ctl[a->me].op, (o->seq << 8) | (uint64_t)(o->call + 1),
                              memory_order_relaxed);
        /* the same choice everywhere: cma is agreed at setup, bytes are alike */
        coll_knob_t *min = o->kind == SHM_BCAST || a->n == 2 ? &knob_cma_min
                           : o->kind == SHM_REDUCE           ? &knob_cma_min_reduce
                                                             : &knob_cma_min_allreduce;
        o->cma = a->cma && o->kind != SHM_BARRIER && o->kind < SHM_ALLGATHER &&
                 o->bytes >= coll_knob(min);
    }
    int rc;
    if (o->kind == SHM_BARRIER)
        rc = shm_run_barrier(o);
    else if (o->kind == SHM_BCAST)
        rc = o->cma ? shm_run_bcast_cma(o) : shm_run_bcast(o);
    else if (o->kind >= SHM_ALLGATHER)
        rc = shm_run_exchange(o);
    else
        rc = o->cma ? shm_run_reduce_cma(o) : shm_run_reduce(o);
    if (rc == ICOLL_AGAIN)
        return wait_or_clash(o, s);
    a->done_seq = o->seq;
    rc = o->err;
    spare(o);
    return rc;
}

int coll_shm_barrier(icoll_sched_t *s, comm_t *c)
{
    coll_area_t *a = usable(s, c);
    if (!a)
        return COLL_DECLINED;
    shm_op_t *o = new_op(s, c, a, SHM_BARRIER, 0);
    if (!o)
        return MPI_ERR_NO_MEM;
    icoll_sched_call(s, run, o);
    return MPI_SUCCESS;
}

int coll_shm_bcast_pair(size_t bytes)
{
    return coll_knob(&knob_on) && coll_shm_cma_allowed() && bytes >= coll_knob(&knob_cma_min);
}

/* The area for a broadcast of bytes, or NULL: decline. */
static coll_area_t *bcast_area(icoll_sched_t *s, comm_t *c, size_t bytes)
{
    coll_area_t *a = usable(s, c);
    size_t max = a && a->n == 2 ? coll_shm_bcast_pair(bytes) ? SIZE_MAX : coll_knob(&knob_bcast_max2)
                                : coll_knob(&knob_bcast_max);
    return a && bytes <= max && bytes / a->chunk < POS_MAX / 2 ? a : NULL;
}

int coll_shm_bcast_takes(icoll_sched_t *s, comm_t *c, size_t bytes)
{
    return bcast_area(s, c, bytes) != NULL;
}

int coll_shm_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t bytes, int root)
{
    coll_area_t *a = bcast_area(s, c, bytes);
    if (!a)
        return COLL_DECLINED;
    if (bytes == 0)
        return MPI_SUCCESS;
    shm_op_t *o = new_op(s, c, a, SHM_BCAST, (bytes + a->chunk - 1) / a->chunk);
    if (!o)
        return MPI_ERR_NO_MEM;
    o->in = buf;
    o->out = buf;
    o->bytes = bytes;
    o->per = a->chunk;
    o->root = root;
    icoll_sched_call(s, run, o);
    return MPI_SUCCESS;
}

/* Reduce (root >= 0) and allreduce (root < 0). */
static int reduction(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                     dtype_t *dt, op_t *op, int root)
{
    coll_area_t *a = usable(s, c);
    if (!a)
        return COLL_DECLINED;
    size_t es = (size_t)dt->size;
    coll_knob_t *max = root < 0 && a->n == 2 ? &knob_allreduce_max2 : &knob_reduce_max;
    /* contiguous elements that fit a slot (the interface promises contiguous data; a type
     * whose elements leave gaps between them is not) */
    if (es == 0 || es > a->chunk || (count > 1 && coll_extent(dt) != es) ||
        count > coll_knob(max) / es)
        return COLL_DECLINED;
    size_t per = a->chunk / es;
    uint64_t nrounds = (count + per - 1) / per;
    if (nrounds >= POS_MAX / 2 - 1)
        return COLL_DECLINED;
    if (count == 0)
        return MPI_SUCCESS;
    size_t bytes = count * es;
    int split = root < 0 ? bytes >= coll_knob(&knob_allreduce_split)
                         : a->n > 2 && bytes >= coll_knob(&knob_reduce_split);
    /* a split reduce's non-root keeps its segment's result of a round here */
    void *tmp = NULL;
    if (split && root >= 0 && a->me != root && !(tmp = icoll_sched_alloc(s, per * es)))
        return MPI_ERR_NO_MEM;
    shm_op_t *o = new_op(s, c, a, root < 0 ? SHM_ALLREDUCE : SHM_REDUCE, nrounds);
    if (!o)
        return MPI_ERR_NO_MEM;
    o->in = in;
    o->out = out;
    o->count = count;
    o->esize = es;
    o->bytes = bytes;
    o->per = per;
    o->lb = dt->true_lb;
    o->dt = dt;
    o->op = op;
    o->root = root;
    o->split = split;
    o->tmp = tmp;
    o->root_direct = !split && root >= 0 && a->me == root && (in != out || root == a->n - 1);
    icoll_sched_hold_dtype(s, dt);
    icoll_sched_hold_op(s, op);
    icoll_sched_call(s, run, o);
    return MPI_SUCCESS;
}

int coll_shm_reduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                    dtype_t *dt, op_t *op, int root)
{
    return reduction(s, c, in, out, count, dt, op, root);
}

int coll_shm_allreduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                       dtype_t *dt, op_t *op)
{
    return reduction(s, c, in, out, count, dt, op, -1);
}

/* ---- allgather and alltoall of small blocks (exchange.c) ---- */

/* The area for an exchange whose slots hold bytes (blocks of bb), or NULL: decline. Alike at
 * every member: the knobs, the team (its size and slot size) and bb. */
static coll_area_t *exchange_area(icoll_sched_t *s, comm_t *c, int kind, size_t bb)
{
    coll_knob_t *max = kind == SHM_ALLGATHER ? &knob_allgather_max : &knob_alltoall_max;
    if (bb == 0 || bb > coll_knob(max))
        return NULL;
    coll_area_t *a = usable(s, c);
    if (!a)
        return NULL;
    size_t n = kind == SHM_ALLTOALL ? (size_t)a->n : 1;
    return bb <= a->chunk / n ? a : NULL;
}

int coll_shm_allgather_takes(icoll_sched_t *s, comm_t *c, size_t bb)
{
    return exchange_area(s, c, SHM_ALLGATHER, bb) != NULL;
}

int coll_shm_alltoall_takes(icoll_sched_t *s, comm_t *c, size_t bb)
{
    return exchange_area(s, c, SHM_ALLTOALL, bb) != NULL;
}

static int exchange(icoll_sched_t *s, comm_t *c, int kind, const void *in, void *out, size_t bb)
{
    coll_area_t *a = exchange_area(s, c, kind, bb);
    if (!a)
        return COLL_DECLINED;
    shm_op_t *o = new_op(s, c, a, kind, 1);
    if (!o)
        return MPI_ERR_NO_MEM;
    o->in = in;
    o->out = out;
    o->per = bb;
    o->bytes = kind == SHM_ALLTOALL ? (size_t)a->n * bb : bb;
    icoll_sched_call(s, run, o);
    return MPI_SUCCESS;
}

int coll_shm_allgather(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t bb)
{
    return exchange(s, c, SHM_ALLGATHER, in, out, bb);
}

int coll_shm_alltoall(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t bb)
{
    return exchange(s, c, SHM_ALLTOALL, in, out, bb);
}
