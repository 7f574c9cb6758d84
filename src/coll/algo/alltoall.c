/* Alltoall(v,w) algorithms over a communicator (coll/algo/alltoall.h). */
#include "coll/algo/alltoall.h"

#include "coll/select.h"

p2p_data_t a2a_blk(const side_t *x, int i)
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
int a2a_pack_in_place(icoll_sched_t *s, int n, const side_t *rd, side_t *sd)
{
    size_t *off = icoll_sched_alloc(s, ((size_t)n + 1) * sizeof *off);
    if (!off)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        off[i + 1] = off[i] + a2a_blk(rd, i).bytes;
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
        p2p_data_t from = a2a_blk(rd, i), to = a2a_blk(sd, i);
        mv_copy(s, &from, &to);
    }
    return MPI_SUCCESS;
}

/* Linear or pairwise exchange over an intra- or inter-communicator. Pairwise rounds need
 * every pair to meet in the same round, which groups of different sizes cannot: between
 * groups it is always linear. */
void a2a_exchange(icoll_sched_t *s, comm_t *c, const side_t *sd, const side_t *rd, int algo)
{
    int inter = comm_is_inter(c), n = comm_peer_size(c), me = c->rank;
    if (inter)
        algo = COLL_A2A_LINEAR;
    for (int k = inter ? 0 : 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k % n + n) % n;
        p2p_data_t r = a2a_blk(rd, from), d = a2a_blk(sd, to);
        if (r.bytes)
            icoll_sched_recv_data(s, c, from, &r);
        if (d.bytes)
            icoll_sched_send_data(s, c, to, &d);
        if (algo == COLL_A2A_PAIRWISE)
            icoll_sched_fence(s);
    }
    if (!inter) { /* a local step: after the messages */
        p2p_data_t from = a2a_blk(sd, me), to = a2a_blk(rd, me);
        mv_copy(s, &from, &to);
    }
}

/* Bruck (uniform sides): T[i] = my block for me + i; round d moves the blocks with bit d set
 * to me + d; in the end T[i] is the block from me - i. */
int a2a_bruck(icoll_sched_t *s, comm_t *c, const side_t *sd, const side_t *rd, size_t bb)
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
        p2p_data_t from = mv_data(tmp + (size_t)i * bb, bb), to = a2a_blk(rd, (me - i + n) % n);
        mv_copy(s, &from, &to);
    }
    return MPI_SUCCESS;
}
