/* The typed internal collectives (icoll.h): words in host order at both ends, little-endian
 * on the wire, so that members of unlike byte order agree (docs/heterogeneity.md). Each turns
 * its buffers to little-endian in place around the byte collective and back. */
#include "core/icoll.h"

static icoll_sched_t *new_op(comm_t *c)
{
    return icoll_sched_new_op(c, COMM_BLOCKING, COMM_OP_INTERNAL);
}

static int run(icoll_sched_t *s)
{
    return s ? icoll_sched_run(s) : MPI_ERR_NO_MEM;
}

int icoll_allreduce_int(comm_t *c, int *vals, int n, icoll_op_t op)
{
    icoll_le32(vals, (size_t)n);
    icoll_sched_t *s = new_op(c);
    if (s)
        icoll_sched_allreduce(s, c, vals, n, ICOLL_INT, op, NULL);
    int rc = run(s);
    icoll_le32(vals, (size_t)n);
    return rc;
}

int icoll_allreduce_u64(comm_t *c, uint64_t *vals, int n, icoll_op_t op)
{
    icoll_le64(vals, (size_t)n);
    icoll_sched_t *s = new_op(c);
    if (s)
        icoll_sched_allreduce(s, c, vals, n, ICOLL_U64, op, NULL);
    int rc = run(s);
    icoll_le64(vals, (size_t)n);
    return rc;
}

int icoll_bcast_ints(comm_t *c, int *vals, int n, int root)
{
    icoll_le32(vals, (size_t)n);
    int rc = icoll_bcast(c, vals, (size_t)n * sizeof *vals, root);
    icoll_le32(vals, (size_t)n);
    return rc;
}

int icoll_bcast_i64(comm_t *c, int64_t *vals, int n, int root)
{
    icoll_le64(vals, (size_t)n);
    int rc = icoll_bcast(c, vals, (size_t)n * sizeof *vals, root);
    icoll_le64(vals, (size_t)n);
    return rc;
}

int icoll_allgather_ints(comm_t *c, int *send, size_t n, int *recv)
{
    icoll_le32(send, n);
    int rc = icoll_allgather(c, send, n * sizeof *send, recv);
    icoll_le32(send, n);
    icoll_le32(recv, n * (size_t)c->size);
    return rc;
}

int icoll_allgather_u64(comm_t *c, uint64_t *send, size_t n, uint64_t *recv)
{
    icoll_le64(send, n);
    int rc = icoll_allgather(c, send, n * sizeof *send, recv);
    icoll_le64(send, n);
    icoll_le64(recv, n * (size_t)c->size);
    return rc;
}

int icoll_alltoall_u64(comm_t *c, uint64_t *send, size_t n, uint64_t *recv)
{
    size_t all = n * (size_t)c->size;
    icoll_le64(send, all);
    int rc = icoll_alltoall(c, send, n * sizeof *send, recv);
    icoll_le64(send, all);
    icoll_le64(recv, all);
    return rc;
}

/* Swaps each block of send and recv that the byte counts name (words of the given size). */
static void blocks_le(int nblocks, void *buf, const size_t *counts, const size_t *displs,
                      size_t word)
{
    for (int p = 0; buf && p < nblocks; p++) {
        if (counts[p] == 0)
            continue;
        void *at = (char *)buf + displs[p];
        if (word == 4)
            icoll_le32(at, counts[p] / 4);
        else
            icoll_le64(at, counts[p] / 8);
    }
}

static int alltoallv_words(comm_t *c, void *send, const size_t *scounts, const size_t *sdispls,
                           void *recv, const size_t *rcounts, const size_t *rdispls, size_t word)
{
    blocks_le(c->size, send, scounts, sdispls, word);
    int rc = icoll_alltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls);
    blocks_le(c->size, send, scounts, sdispls, word);
    blocks_le(c->size, recv, rcounts, rdispls, word);
    return rc;
}

int icoll_alltoallv_u32(comm_t *c, void *send, const size_t *scounts, const size_t *sdispls,
                        void *recv, const size_t *rcounts, const size_t *rdispls)
{
    return alltoallv_words(c, send, scounts, sdispls, recv, rcounts, rdispls, 4);
}

int icoll_alltoallv_u64(comm_t *c, void *send, const size_t *scounts, const size_t *sdispls,
                        void *recv, const size_t *rcounts, const size_t *rdispls)
{
    return alltoallv_words(c, send, scounts, sdispls, recv, rcounts, rdispls, 8);
}

int icoll_sendrecv_ints(comm_t *c, int partner, int tag, int *send, size_t n, int *recv,
                        size_t rn)
{
    icoll_sched_t *s = icoll_sched_new(tag);
    if (!s)
        return MPI_ERR_NO_MEM;
    icoll_le32(send, n);
    icoll_sched_send(s, c, partner, send, n * sizeof *send);
    icoll_sched_recv(s, c, partner, recv, rn * sizeof *recv);
    int rc = icoll_sched_run(s);
    icoll_le32(send, n);
    icoll_le32(recv, rn);
    return rc;
}
