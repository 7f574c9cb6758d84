/*
 * MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw and their I-forms (MPI-3.1 §5.8).
 *
 * Algorithms:
 *  linear    every send and receive posted at once (starting with the neighbours at distance
 *            1, 2, ...), then the own block copied. Small and medium blocks.
 *  pairwise  n - 1 rounds; in round k send to me + k and receive from me - k, one round at a
 *            time (bounded traffic for large blocks).
 *  bruck     (Alltoall only) ceil(log2 n) rounds through packed temporaries: round d sends
 *            every block whose (rotated) index has bit d set to me + d. Tiny blocks, many
 *            ranks: log2(n) messages instead of n - 1.
 * Data moves typed straight between the users' buffers, except for MPI_IN_PLACE, where the
 * receive buffer's contents are first packed into a temporary they are then sent from.
 * Inter-communicators: every member exchanges with every member of the other group, all
 * posted at once (linear).
 */
#include "coll/move.h"
#include "coll/select.h"
#include "coll/sites.h"
#include "coll/trace.h"

/* the algorithms in the order of the selection table (coll/table.c) */
enum { LINEAR, PAIRWISE, BRUCK };

/* One side of an exchange: how block i (to or from peer i) is laid out. */
enum { SIDE_UNIFORM, SIDE_V, SIDE_W, SIDE_PACKED };
typedef struct side {
    int kind;
    char *base;
    dtype_t *dt;                 /* UNIFORM, V */
    size_t count;                /* UNIFORM: elements per block */
    const int *counts, *displs;  /* V (displacements in extents), W (in bytes) */
    dtype_t *const *types;       /* W */
    const size_t *off;           /* PACKED: block i is bytes off[i] .. off[i+1]-1 */
} side_t;

static p2p_data_t blk(const side_t *x, int i)
{
    switch (x->kind) {
    case SIDE_UNIFORM:
        return mv_typed(coll_at(x->base, (size_t)i * x->count, x->dt), x->count, x->dt);
    case SIDE_V:
        return mv_typed(x->base + (ptrdiff_t)x->displs[i] * (ptrdiff_t)coll_extent(x->dt),
                         (size_t)x->counts[i], x->dt);
    case SIDE_W:
        if (x->counts[i] == 0)
            return (p2p_data_t){ 0 };
        return mv_typed(x->base + x->displs[i], (size_t)x->counts[i], x->types[i]);
    default:
        return mv_data(x->base + x->off[i], x->off[i + 1] - x->off[i]);
    }
}

/* MPI_IN_PLACE: the receive side's blocks packed into a temporary, which becomes the send
 * side (sd). Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
static int pack_in_place(icoll_sched_t *s, int n, const side_t *rd, side_t *sd)
{
    size_t *off = icoll_sched_alloc(s, ((size_t)n + 1) * sizeof *off);
    if (!off)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        off[i + 1] = off[i] + blk(rd, i).bytes;
    char *tmp = icoll_sched_alloc(s, off[n]);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    *sd = (side_t){ .kind = SIDE_PACKED, .base = tmp, .off = off };
    if (rd->kind == SIDE_UNIFORM) { /* one run */
        p2p_data_t all = mv_typed(rd->base, (size_t)n * rd->count, rd->dt);
        p2p_data_t t = mv_data(tmp, off[n]);
        mv_copy(s, &all, &t);
        return MPI_SUCCESS;
    }
    for (int i = 0; i < n; i++) {
        p2p_data_t from = blk(rd, i), to = blk(sd, i);
        mv_copy(s, &from, &to);
    }
    return MPI_SUCCESS;
}

/* Linear or pairwise exchange over an intra- or inter-communicator. Pairwise rounds need
 * every pair to meet in the same round, which groups of different sizes cannot: between
 * groups it is always linear. */
static void exchange(icoll_sched_t *s, comm_t *c, const side_t *sd, const side_t *rd, int algo)
{
    int inter = comm_is_inter(c), n = comm_peer_size(c), me = c->rank;
    if (inter)
        algo = LINEAR;
    for (int k = inter ? 0 : 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k % n + n) % n;
        p2p_data_t r = blk(rd, from), d = blk(sd, to);
        if (r.bytes)
            icoll_sched_recv_data(s, c, from, &r);
        if (d.bytes)
            icoll_sched_send_data(s, c, to, &d);
        if (algo == PAIRWISE)
            icoll_sched_fence(s);
    }
    if (!inter) { /* a local step: after the messages */
        p2p_data_t from = blk(sd, me), to = blk(rd, me);
        mv_copy(s, &from, &to);
    }
}

/* Bruck (uniform sides): T[i] = my block for me + i; round d moves the blocks with bit d set
 * to me + d; in the end T[i] is the block from me - i. */
static int bruck(icoll_sched_t *s, comm_t *c, const side_t *sd, const side_t *rd, size_t bb)
{
    int n = c->size, me = c->rank;
    size_t half = (size_t)(n + 1) / 2;
    char *tmp = icoll_sched_alloc(s, (size_t)n * bb + 2 * half * bb);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    char *out = tmp + (size_t)n * bb, *in = out + half * bb;
    mv_blocks_t sb = { sd->base, sd->count, sd->dt };
    p2p_data_t a = mv_run(&sb, me, (size_t)(n - me)), t = mv_data(tmp, (size_t)(n - me) * bb);
    mv_copy(s, &a, &t);
    a = mv_run(&sb, 0, (size_t)me);
    t = mv_data(tmp + (size_t)(n - me) * bb, (size_t)me * bb);
    mv_copy(s, &a, &t);
    for (int d = 1; d < n; d <<= 1) {
        /* the indices with bit d set come in runs of d: [d, 2d), [3d, 4d), ... */
        size_t k = 0;
        for (int i = d; i < n; i += 2 * d) {
            size_t run = (size_t)(i + d <= n ? d : n - i) * bb;
            icoll_sched_copy(s, tmp + (size_t)i * bb, out + k, run);
            k += run;
        }
        p2p_data_t o = mv_data(out, k), r = mv_data(in, k);
        icoll_sched_recv_data(s, c, (me - d + n) % n, &r);
        icoll_sched_send_data(s, c, (me + d) % n, &o);
        icoll_sched_fence(s);
        k = 0;
        for (int i = d; i < n; i += 2 * d) {
            size_t run = (size_t)(i + d <= n ? d : n - i) * bb;
            icoll_sched_copy(s, in + k, tmp + (size_t)i * bb, run);
            k += run;
        }
    }
    for (int i = 0; i < n; i++) {
        p2p_data_t from = mv_data(tmp + (size_t)i * bb, bb), to = blk(rd, (me - i + n) % n);
        mv_copy(s, &from, &to);
    }
    return MPI_SUCCESS;
}

/* The algorithm for bb-byte blocks over n members: the forced one, else the table's. */
static int pick(int n, size_t bb)
{
    coll_measure_t m = { .n = n, .size = bb, .commutative = 1 };
    return coll_pick_p2p(COMM_OP_ALLTOALL, &m);
}

int coll_alltoall(icoll_sched_t *s, comm_t *c, const void *sbuf, size_t scount, dtype_t *stype,
                  void *rbuf, size_t rcount, dtype_t *rtype)
{
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    int n = comm_peer_size(c);
    size_t bb = rcount * (size_t)rtype->size;
    side_t rd = { .kind = SIDE_UNIFORM, .base = rbuf, .dt = rtype, .count = rcount };
    side_t sd = { .kind = SIDE_UNIFORM, .base = (char *)(uintptr_t)sbuf, .dt = stype,
                  .count = scount };
    /* between groups, what this group sends need not be what it receives: the exchange
     * skips the empty pieces itself */
    if (comm_is_inter(c)) {
        coll_trace_note("inter", "-", bb);
        exchange(s, c, &sd, &rd, LINEAR);
        return MPI_SUCCESS;
    }
    if (bb == 0) { /* the same at every member: all blocks have one signature */
        coll_trace_note("none", "-", bb);
        return MPI_SUCCESS;
    }
    const coll_sites_t *S = coll_use_sites(c);
    if (S && site_alltoall_combines(S, bb)) {
        coll_trace_note("sites", "-", bb);
        mv_blocks_t srun = { sd.base, scount, stype }, rrun = { rbuf, rcount, rtype };
        int inplace = sbuf == COLL_IN_PLACE;
        if (inplace && pack_in_place(s, n, &rd, &sd) != MPI_SUCCESS)
            return MPI_ERR_NO_MEM;
        return site_alltoall(s, c, S, &sd, &rd, blk, inplace ? NULL : &srun, &rrun, 1);
    }
    int algo = pick(n, bb);
    coll_trace_note("p2p", coll_algo_name(COMM_OP_ALLTOALL, algo == BRUCK && n == 1 ? LINEAR : algo), bb);
    if (sbuf == COLL_IN_PLACE) {
        if (algo == BRUCK) /* it copies the send blocks first anyway */
            sd = rd;
        else if (pack_in_place(s, n, &rd, &sd) != MPI_SUCCESS)
            return MPI_ERR_NO_MEM;
    }
    if (algo == BRUCK && n > 1)
        return bruck(s, c, &sd, &rd, bb);
    exchange(s, c, &sd, &rd, algo);
    return MPI_SUCCESS;
}

static int pick_v(void)
{
    coll_measure_t m = { .n = 0, .commutative = 1 };
    return coll_pick_p2p(COMM_OP_ALLTOALLV, &m);
}

int coll_alltoallv(icoll_sched_t *s, comm_t *c, const void *sbuf, const int *scounts,
                   const int *sdispls, dtype_t *stype, void *rbuf, const int *rcounts,
                   const int *rdispls, dtype_t *rtype)
{
    icoll_sched_hold_dtype(s, stype);
    icoll_sched_hold_dtype(s, rtype);
    side_t rd = { .kind = SIDE_V, .base = rbuf, .dt = rtype, .counts = rcounts,
                  .displs = rdispls };
    side_t sd = { .kind = SIDE_V, .base = (char *)(uintptr_t)sbuf, .dt = stype,
                  .counts = scounts, .displs = sdispls };
    if (sbuf == COLL_IN_PLACE && pack_in_place(s, c->size, &rd, &sd) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    const coll_sites_t *S = coll_use_sites(c);
    coll_trace_note(comm_is_inter(c) ? "inter" : S ? "sites" : "p2p",
                    comm_is_inter(c) || S ? "-" : coll_algo_name(COMM_OP_ALLTOALLV, pick_v()), 0);
    if (S)
        return site_alltoall(s, c, S, &sd, &rd, blk, NULL, NULL, 0);
    exchange(s, c, &sd, &rd, pick_v());
    return MPI_SUCCESS;
}

int coll_alltoallw(icoll_sched_t *s, comm_t *c, const void *sbuf, const int *scounts,
                   const int *sdispls, dtype_t *const *stypes, void *rbuf, const int *rcounts,
                   const int *rdispls, dtype_t *const *rtypes)
{
    int n = comm_peer_size(c), inplace = sbuf == COLL_IN_PLACE;
    for (int i = 0; i < n; i++) {
        if (!inplace && scounts[i])
            icoll_sched_hold_dtype(s, stypes[i]);
        if (rcounts[i])
            icoll_sched_hold_dtype(s, rtypes[i]);
    }
    side_t rd = { .kind = SIDE_W, .base = rbuf, .counts = rcounts, .displs = rdispls,
                  .types = rtypes };
    side_t sd = { .kind = SIDE_W, .base = (char *)(uintptr_t)sbuf, .counts = scounts,
                  .displs = sdispls, .types = stypes };
    if (inplace && pack_in_place(s, n, &rd, &sd) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    const coll_sites_t *S = coll_use_sites(c);
    coll_trace_note(comm_is_inter(c) ? "inter" : S ? "sites" : "p2p",
                    comm_is_inter(c) || S ? "-" : coll_algo_name(COMM_OP_ALLTOALLV, pick_v()), 0);
    if (S)
        return site_alltoall(s, c, S, &sd, &rd, blk, NULL, NULL, 0);
    exchange(s, c, &sd, &rd, pick_v());
    return MPI_SUCCESS;
}
