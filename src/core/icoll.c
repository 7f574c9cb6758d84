/* The library's own collectives (icoll.h): simple algorithms appended to a schedule. */
#include "core/icoll.h"

/* ---- collectives as schedule entries --------------------------------------------------- */

icoll_team_t icoll_team_all(comm_t *c)
{
    return (icoll_team_t){ c, c->size, c->rank, NULL };
}

static int peer_of(const icoll_team_t *t, int i)
{
    return t->ranks ? t->ranks[i] : i;
}

/* Binomial tree rooted at root: receive from the parent, then send to the children. */
void icoll_sched_bcast_team(icoll_sched_t *s, const icoll_team_t *t, void *buf, size_t bytes,
                            int root)
{
    int n = t->size, rel = (t->rank - root + n) % n, mask = 1;
    for (; mask < n; mask <<= 1)
        if (rel & mask) {
            icoll_sched_recv(s, t->c, peer_of(t, (rel - mask + root) % n), buf, bytes);
            icoll_sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n)
            icoll_sched_send(s, t->c, peer_of(t, (rel + mask + root) % n), buf, bytes);
    icoll_sched_fence(s);
}

void icoll_sched_bcast(icoll_sched_t *s, comm_t *c, void *buf, size_t bytes, int root)
{
    icoll_team_t t = icoll_team_all(c);
    icoll_sched_bcast_team(s, &t, buf, bytes, root);
}

static size_t type_size(icoll_type_t type)
{
    return type == ICOLL_INT ? sizeof(int) : sizeof(uint64_t);
}

/* Binomial reduction to index 0 of team t (result valid there only), receiving into tmp
 * (each partial is combined before the next receive is started into it). */
static void sched_reduce0(icoll_sched_t *s, const icoll_team_t *t, void *vals, int n,
                          icoll_type_t type, icoll_op_t op, void *tmp)
{
    size_t bytes = (size_t)n * type_size(type);
    for (int mask = 1; mask < t->size; mask <<= 1) {
        if (t->rank & mask) {
            icoll_sched_send(s, t->c, peer_of(t, t->rank - mask), vals, bytes);
            break;
        }
        if (t->rank + mask < t->size) {
            icoll_sched_recv(s, t->c, peer_of(t, t->rank + mask), tmp, bytes);
            icoll_sched_reduce(s, tmp, vals, n, type, op);
        }
    }
    icoll_sched_fence(s);
}

void icoll_sched_allreduce_team(icoll_sched_t *s, const icoll_team_t *t, void *vals, int n,
                                icoll_type_t type, icoll_op_t op, void *scratch)
{
    size_t bytes = (size_t)n * type_size(type);
    if (!scratch && t->size > 1 && !(scratch = icoll_sched_alloc(s, bytes)))
        return;
    sched_reduce0(s, t, vals, n, type, op, scratch);
    icoll_sched_bcast_team(s, t, vals, bytes, 0);
}

void icoll_sched_allreduce(icoll_sched_t *s, comm_t *c, void *vals, int n, icoll_type_t type,
                           icoll_op_t op, void *scratch)
{
    if (!comm_is_inter(c)) {
        icoll_team_t t = icoll_team_all(c);
        icoll_sched_allreduce_team(s, &t, vals, n, type, op, scratch);
        return;
    }
    /* each group reduces to its leader, the leaders swap and combine, each broadcasts (one
     * temporary: the fence ending the reduction separates its two uses) */
    size_t bytes = (size_t)n * type_size(type);
    icoll_team_t local = icoll_team_all(c->local_comm);
    void *tmp = scratch ? scratch : icoll_sched_alloc(s, bytes);
    if (!tmp)
        return;
    sched_reduce0(s, &local, vals, n, type, op, tmp);
    if (local.rank == 0) {
        icoll_sched_send(s, c, 0, vals, bytes);
        icoll_sched_recv(s, c, 0, tmp, bytes);
        icoll_sched_reduce(s, tmp, vals, n, type, op);
    }
    icoll_sched_bcast_team(s, &local, vals, bytes, 0);
}

/* Everyone's block to rank 0, then the whole to everyone. */
void icoll_sched_allgather(icoll_sched_t *s, comm_t *c, const void *send, size_t bytes,
                           void *recv)
{
    if (c->rank == 0) {
        icoll_sched_copy(s, send, recv, bytes);
        for (int i = 1; i < c->size; i++)
            icoll_sched_recv(s, c, i, (char *)recv + (size_t)i * bytes, bytes);
    } else {
        icoll_sched_send(s, c, 0, send, bytes);
    }
    icoll_sched_fence(s);
    icoll_sched_bcast(s, c, recv, (size_t)c->size * bytes, 0);
}

void icoll_sched_alltoallv(icoll_sched_t *s, comm_t *c, const void *send, const size_t *scounts,
                           const size_t *sdispls, void *recv, const size_t *rcounts,
                           const size_t *rdispls)
{
    int me = c->rank;
    icoll_sched_copy(s, (const char *)send + sdispls[me], (char *)recv + rdispls[me],
                     scounts[me] < rcounts[me] ? scounts[me] : rcounts[me]);
    for (int k = 1; k < c->size; k++) {
        int to = (me + k) % c->size, from = (me - k + c->size) % c->size;
        if (rcounts[from])
            icoll_sched_recv(s, c, from, (char *)recv + rdispls[from], rcounts[from]);
        if (scounts[to])
            icoll_sched_send(s, c, to, (const char *)send + sdispls[to], scounts[to]);
    }
    icoll_sched_fence(s);
}

/* ---- blocking collectives ---------------------------------------------------------------- */

static icoll_sched_t *new_op(comm_t *c)
{
    return icoll_sched_new_op(c, COMM_BLOCKING, COMM_OP_INTERNAL);
}

static int run(icoll_sched_t *s)
{
    return s ? icoll_sched_run(s) : MPI_ERR_NO_MEM;
}

int icoll_barrier(comm_t *c)
{
    icoll_sched_t *s = new_op(c);
    if (s)
        icoll_sched_allreduce(s, c, NULL, 0, ICOLL_INT, ICOLL_SUM, NULL);
    return run(s);
}

int icoll_bcast(comm_t *c, void *buf, size_t bytes, int root)
{
    icoll_sched_t *s = new_op(c);
    if (s)
        icoll_sched_bcast(s, c, buf, bytes, root);
    return run(s);
}

int icoll_allgather(comm_t *c, const void *send, size_t bytes, void *recv)
{
    icoll_sched_t *s = new_op(c);
    if (s)
        icoll_sched_allgather(s, c, send, bytes, recv);
    return run(s);
}

int icoll_alltoall(comm_t *c, const void *send, size_t bytes, void *recv)
{
    icoll_sched_t *s = new_op(c);
    if (!s)
        return MPI_ERR_NO_MEM;
    size_t *v = icoll_sched_alloc(s, 2 * (size_t)c->size * sizeof *v);
    if (v) {
        for (int i = 0; i < c->size; i++) {
            v[i] = bytes;
            v[c->size + i] = (size_t)i * bytes;
        }
        icoll_sched_alltoallv(s, c, send, v, v + c->size, recv, v, v + c->size);
    }
    return run(s);
}

int icoll_alltoallv(comm_t *c, const void *send, const size_t *scounts, const size_t *sdispls,
                    void *recv, const size_t *rcounts, const size_t *rdispls)
{
    icoll_sched_t *s = new_op(c);
    if (s)
        icoll_sched_alltoallv(s, c, send, scounts, sdispls, recv, rcounts, rdispls);
    return run(s);
}
