/*
 * Inter-communicator forms of the synchronisation and reduction collectives (MPI-3.1
 * §5.2.2): each group works within itself over the inter-communicator's local_comm (an
 * intra-communicator of its own context), and only the two groups' rank 0 talk across.
 *
 *   Barrier         fan-in to local 0; the two rank 0 exchange zero bytes; fan-out.
 *   Reduce          the sending group reduces to its rank 0 (same table as intra), which
 *                   sends to the root; the root receives; MPI_PROC_NULL members do nothing.
 *   Allreduce       each group reduces to its rank 0; the two exchange; each broadcasts
 *                   the other group's result within its group.
 *   Reduce_scatter  each group reduces its whole vector to rank 0; the two exchange; each
 *                   rank 0 scatters the other group's result over its group.
 */
#include "coll/red.h"

/* The remote group as a team: messages over the inter-communicator to remote ranks. */
static coll_team_t remote(comm_t *c)
{
    return (coll_team_t){ .c = c, .size = comm_peer_size(c), .rank = -1, .ranks = NULL };
}

void red_inter_barrier(icoll_sched_t *s, comm_t *c)
{
    coll_team_t l = coll_team_all(c->local_comm);
    red_fan_in(s, &l);
    if (l.rank == 0) {
        icoll_sched_send(s, c, 0, NULL, 0);
        icoll_sched_recv(s, c, 0, NULL, 0);
        icoll_sched_fence(s);
    }
    red_fan_out(s, &l);
}

/* The reduction of the local group's in at local rank 0: in itself when the group has one
 * member, else a temporary (NULL at other ranks, and when out of memory). */
static const void *local_reduce(icoll_sched_t *s, comm_t *c, const void *in, size_t count,
                                dtype_t *dt, op_t *op)
{
    coll_team_t l = coll_team_all(c->local_comm);
    if (l.size == 1)
        return in;
    void *tmp = NULL;
    if (l.rank == 0 && !(tmp = red_temp(s, count, dt)))
        return NULL;
    red_reduce_team(s, &l, in, tmp, count, dt, op, 0);
    icoll_sched_fence(s); /* the result is complete before it is sent */
    return tmp;
}

void red_inter_reduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                      dtype_t *dt, op_t *op, int root)
{
    coll_team_t r = remote(c);
    if (count == 0 || root == MPI_PROC_NULL)
        return;
    if (root == MPI_ROOT) {
        red_recv(s, &r, 0, out, 0, count, dt);
        return;
    }
    const void *acc = local_reduce(s, c, in, count, dt, op);
    if (c->local_comm->rank == 0 && acc)
        red_send(s, &r, root, acc, 0, count, dt);
}

void red_inter_allreduce(icoll_sched_t *s, comm_t *c, const void *in, void *out, size_t count,
                         dtype_t *dt, op_t *op)
{
    coll_team_t r = remote(c), l = coll_team_all(c->local_comm);
    if (count == 0)
        return;
    const void *acc = local_reduce(s, c, in, count, dt, op);
    if (l.rank == 0) {
        if (!acc)
            return;
        red_send(s, &r, 0, acc, 0, count, dt);
        red_recv(s, &r, 0, out, 0, count, dt);
        icoll_sched_fence(s);
    }
    red_bcast_binomial(s, &l, out, count, dt, 0);
}

void red_inter_reduce_scatter(icoll_sched_t *s, comm_t *c, const void *in, void *out,
                              const size_t *cnts, dtype_t *dt, op_t *op)
{
    coll_team_t r = remote(c), l = coll_team_all(c->local_comm);
    size_t total = 0;
    for (int i = 0; i < l.size; i++)
        total += cnts[i];
    if (total == 0)
        return;
    const void *acc = local_reduce(s, c, in, total, dt, op);
    if (l.rank != 0) {
        red_recv(s, &l, 0, out, 0, cnts[l.rank], dt);
        return;
    }
    void *theirs = red_temp(s, total, dt);
    if (!acc || !theirs)
        return;
    red_send(s, &r, 0, acc, 0, total, dt);
    red_recv(s, &r, 0, theirs, 0, total, dt);
    icoll_sched_fence(s);
    size_t off = cnts[0];
    for (int j = 1; j < l.size; j++) {
        red_send(s, &l, j, theirs, off, cnts[j], dt);
        off += cnts[j];
    }
    red_copy(s, theirs, 0, out, 0, cnts[0], dt);
}
