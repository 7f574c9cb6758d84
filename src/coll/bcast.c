/*
 * MPI_Bcast / MPI_Ibcast (MPI-3.1 §5.4): the levels of the broadcast (coll/level.h).
 *
 * Algorithms (coll/algo/bcast.c; the table is in docs/collectives.md):
 *  binomial           log2(n) rounds, whole message each; typed data straight from and into
 *                     the user's buffer (no copies). Small messages, and any size with 2.
 *  scatter_allgather  the message in n chunks: binomial scatter, then a ring allgather in
 *                     which the root only sends (van de Geijn). Large messages.
 *  chain              the ranks in a chain, the message in METAMPI_COLL_BCAST_SEGMENT pieces
 *                     that follow each other down it (pipelined).
 * Across hosts: root -> (shared memory, or a message to its host's leader) -> the leaders ->
 * each leader to its host (shared memory, else a binomial tree over the host's members).
 * The chunked algorithms and shared memory move contiguous bytes: a member whose layout is
 * not contiguous packs into (root) or unpacks from (others) a temporary of its own.
 */
#include "coll/move.h"

#include "coll/direct.h"
#include "coll/shm/shm.h"
#include "coll/sites.h"
#include "coll/trace.h"
#include "core/comm_arch.h"

static int bcast_inter(icoll_sched_t *s, comm_t *c, void *buf, size_t count, dtype_t *dt,
                       int root)
{
    coll_trace_note("inter", "-", dt ? count * (size_t)dt->size : 0);
    if (root == MPI_PROC_NULL || count * (size_t)dt->size == 0)
        return MPI_SUCCESS;
    p2p_data_t d = mv_typed(buf, count, dt);
    if (root == MPI_ROOT) {
        icoll_sched_send_data(s, c, 0, &d);
        return MPI_SUCCESS;
    }
    comm_t *local = c->local_comm;
    if (local->rank == 0) {
        icoll_sched_recv_data(s, c, root, &d);
        icoll_sched_fence(s);
    }
    return coll_bcast(s, local, buf, count, dt, 0);
}

/* Whether a broadcast of d in the two-member communicator c goes through the shared area
 * (automatic choice, coll_shm_bcast_pair, one host; not the layout, which may differ between
 * members) rather than one message: 1, 0, or negative when out of memory. */
static int pair_shm(comm_t *c, const p2p_data_t *d)
{
    /* not the layout: members may describe the same bytes with different types */
    if (c->size != 2 || comm_is_inter(c) || mv_bcast_forced() != MV_BCAST_AUTO ||
        !coll_shm_bcast_pair(d->bytes))
        return 0;
    return mv_single_host(c);
}

/* ---- the levels (coll/level.h), asked in the order of the table's bcast rows ---------------- */

static size_t bytes_of(const coll_call_t *call)
{
    return call->count * (size_t)call->dt->size;
}

static int inter_build(coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    return bcast_inter(call->s, call->comm, call->buf, call->count, call->dt, call->root);
}

static int direct_build(coll_call_t *call)
{
    return coll_direct_bcast(call->comm, call->buf, call->count, call->dt, call->root);
}

static int none_takes(coll_call_t *call)
{
    return call->comm->size == 1 || bytes_of(call) == 0 ? MPI_SUCCESS : COLL_DECLINED;
}
static int none_build(coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    coll_trace_note("none", "-", bytes_of(call));
    return MPI_SUCCESS;
}

/* The sites, the hosts, shared memory and the chunked algorithms move contiguous bytes (the
 * binomial tree moves typed data directly): a member whose layout is not contiguous packs into
 * (root) or unpacks from (others, after the level: unpack) a temporary of its own. */
static int contiguous(coll_call_t *call, const p2p_data_t *d, char **bbuf)
{
    *bbuf = d->buf;
    if (!d->layout)
        return MPI_SUCCESS;
    if (!(*bbuf = icoll_sched_alloc(call->s, d->bytes)))
        return MPI_ERR_NO_MEM;
    if (call->comm->rank == call->root) {
        p2p_data_t tmp = mv_data(*bbuf, d->bytes);
        icoll_sched_copy_data(call->s, d, &tmp);
    }
    return MPI_SUCCESS;
}
static int unpack(coll_call_t *call, const p2p_data_t *d, char *bbuf, int rc)
{
    if (rc == MPI_SUCCESS && bbuf != d->buf && call->comm->rank != call->root) {
        icoll_sched_fence(call->s);
        p2p_data_t tmp = mv_data(bbuf, d->bytes);
        icoll_sched_copy_data(call->s, &tmp, d);
    }
    return rc;
}

static int sites_takes(coll_call_t *call)
{
    return (call->found = coll_use_sites(call->comm)) ? MPI_SUCCESS : COLL_DECLINED;
}
static int sites_build(coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    p2p_data_t d = mv_typed(call->buf, call->count, call->dt);
    char *bbuf;
    int rc = contiguous(call, &d, &bbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_trace_note("sites", "-", d.bytes);
    rc = site_bcast(call->s, call->comm, call->found, bbuf, d.bytes, call->root);
    return unpack(call, &d, bbuf, rc);
}

static int hier_takes(coll_call_t *call)
{
    const coll_hier_t *h;
    int hier = mv_use_hier(call->comm, &h);
    call->found = h;
    return hier < 0 ? MPI_ERR_NO_MEM : hier ? MPI_SUCCESS : COLL_DECLINED;
}
static int hier_build(coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    const coll_hier_t *h = call->found;
    int algo = mv_bcast_forced();
    p2p_data_t d = mv_typed(call->buf, call->count, call->dt);
    char *bbuf;
    int rc = contiguous(call, &d, &bbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_trace_note("hier", mv_bcast_algo_name(h->nhosts, d.bytes, algo), d.bytes);
    rc = mv_bcast_hier(call->s, call->comm, h, bbuf, d.bytes, call->root, algo);
    return unpack(call, &d, bbuf, rc);
}

/* The shared area: two members when both copying at once pays (pair_shm, asked
 * before the direct level), else the whole communicator on one host with the automatic
 * choice; declines when no area serves the size. */
static int shm_takes(coll_call_t *call)
{
    comm_t *c = call->comm;
    int one;
    if (c->size < 2) /* the none level's */
        return COLL_DECLINED;
    if (c->size == 2) {
        p2p_data_t d = mv_typed(call->buf, call->count, call->dt);
        one = pair_shm(c, &d);
    } else {
        one = mv_bcast_forced() == MV_BCAST_AUTO ? mv_single_host(c) : 0;
    }
    return one < 0 ? MPI_ERR_NO_MEM : one ? MPI_SUCCESS : COLL_DECLINED;
}
static int shm_build(coll_call_t *call)
{
    size_t bytes = bytes_of(call);
    if (!coll_shm_bcast_takes(call->s, call->comm, bytes))
        return COLL_DECLINED;
    icoll_sched_hold_dtype(call->s, call->dt);
    p2p_data_t d = mv_typed(call->buf, call->count, call->dt);
    char *bbuf;
    int rc = contiguous(call, &d, &bbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    coll_trace_note("shm", "-", bytes);
    rc = coll_shm_bcast(call->s, call->comm, bbuf, bytes, call->root);
    return unpack(call, &d, bbuf, rc);
}

static int p2p_build(coll_call_t *call)
{
    icoll_sched_hold_dtype(call->s, call->dt);
    comm_t *c = call->comm;
    int n = c->size, algo = mv_bcast_forced();
    /* members of unlike architectures: the binomial tree, whose typed messages convert (the
     * chunked algorithms' pieces are bytes, which would arrive unconverted) */
    if (comm_arch_mixed(c))
        algo = MV_BCAST_BINOMIAL;
    p2p_data_t d = mv_typed(call->buf, call->count, call->dt);
    coll_team_t all = coll_team_all(c);
    coll_trace_note("p2p", mv_bcast_algo_name(n, d.bytes, algo), d.bytes);
    if (algo == MV_BCAST_AUTO)
        algo = mv_bcast_pick(n, d.bytes);
    if (algo == MV_BCAST_BINOMIAL || n == 2) { /* typed, straight into the user's buffer */
        mv_bcast_binomial(call->s, &all, call->root, &d, -1);
        return MPI_SUCCESS;
    }
    char *bbuf; /* the chunked algorithms */
    int rc = contiguous(call, &d, &bbuf);
    if (rc != MPI_SUCCESS)
        return rc;
    mv_bcast_bytes(call->s, &all, call->root, bbuf, d.bytes, algo);
    return unpack(call, &d, bbuf, MPI_SUCCESS);
}

static const coll_level_t inter = { COLL_INTER, 0, coll_takes_inter, inter_build };
static const coll_level_t direct = { COLL_DIRECT, COLL_LEVEL_NO_SCHEDULE, NULL, direct_build };
static const coll_level_t none = { COLL_NONE, 0, none_takes, none_build };
static const coll_level_t sites = { COLL_SITES, 0, sites_takes, sites_build };
static const coll_level_t hier = { COLL_HIER, 0, hier_takes, hier_build };
static const coll_level_t shm = { COLL_SHM, 0, shm_takes, shm_build };
static const coll_level_t p2p = { COLL_P2P, 0, NULL, p2p_build };

const coll_family_t coll_bcast_family = {
    COMM_OP_BCAST,
    { [COLL_INTER] = &inter, [COLL_DIRECT] = &direct, [COLL_NONE] = &none,
      [COLL_SITES] = &sites, [COLL_HIER] = &hier, [COLL_SHM] = &shm, [COLL_P2P] = &p2p },
};

int coll_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t count, dtype_t *dt, int root)
{
    coll_call_t call = { .kind = COMM_OP_BCAST, .stream = icoll_sched_stream(s), .comm = c,
                         .s = s, .buf = buf, .count = count, .dt = dt, .root = root };
    if (dt && !comm_is_inter(c))
        call.size = count * (size_t)dt->size;
    return coll_start(&coll_bcast_family, &call);
}
