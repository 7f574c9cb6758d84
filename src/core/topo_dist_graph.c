/*
 * MPI_Dist_graph_create's exchange: any process may name any edge, so each edge (s, d, w) is
 * sent as an out-edge record to s and as an in-edge record to d, in one all-to-all (counts)
 * and one all-to-allv (records). A process then lists its neighbours in the order of the
 * rank that named the edge, and within one rank in the order of its arguments — a
 * deterministic order, which the neighbourhood collectives follow.
 */
#include "core/icoll.h"
#include "core/topo_ops.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

enum { EDGE_IN, EDGE_OUT };

/* Exchanged as three little-endian 32-bit words (the members may differ in byte order), as
 * are the counts (64-bit words). */
typedef struct edge_rec {
    int dir;    /* EDGE_IN: an edge from peer to the receiver; EDGE_OUT: to peer */
    int peer;
    int weight; /* 0 for an unweighted graph */
} edge_rec_t;
_Static_assert(sizeof(edge_rec_t) == 3 * sizeof(uint32_t), "an edge is three 32-bit words");

typedef struct exchange {
    size_t *scounts, *sdispls, *rcounts, *rdispls; /* in bytes, per process */
    uint64_t *nsend, *nrecv;                        /* in records, per process */
    edge_rec_t *send, *recv;
    int *in, *inw, *out, *outw;
} exchange_t;

static void exchange_free(exchange_t *x)
{
    free(x->scounts);
    free(x->sdispls);
    free(x->rcounts);
    free(x->rdispls);
    free(x->nsend);
    free(x->nrecv);
    free(x->send);
    free(x->recv);
    free(x->in);
    free(x->inw);
    free(x->out);
    free(x->outw);
}

/* malloc that gives a block even for 0 bytes (NULL means no memory) */
static void *alloc(size_t n, size_t size)
{
    return malloc(n > 0 ? n * size : 1);
}

/* Lays out the records for each process, in the order of the arguments. */
static int pack(exchange_t *x, int size, int n, const int sources[], const int degrees[],
                const int destinations[], const int *weights, int weighted)
{
    size_t k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            x->nsend[sources[i]]++;
            x->nsend[destinations[k]]++;
        }
    size_t total = 0;
    for (int p = 0; p < size; p++) {
        x->sdispls[p] = total * sizeof(edge_rec_t);
        x->scounts[p] = (size_t)x->nsend[p] * sizeof(edge_rec_t);
        total += x->nsend[p];
    }
    x->send = alloc(total, sizeof(edge_rec_t));
    if (!x->send)
        return MPI_ERR_NO_MEM;
    size_t *fill = x->rdispls; /* scratch until the receive side is laid out */
    for (int p = 0; p < size; p++)
        fill[p] = x->sdispls[p] / sizeof(edge_rec_t);
    k = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int s = sources[i], d = destinations[k], w = weighted ? weights[k] : 0;
            x->send[fill[s]++] = (edge_rec_t){ EDGE_OUT, d, w };
            x->send[fill[d]++] = (edge_rec_t){ EDGE_IN, s, w };
        }
    return MPI_SUCCESS;
}

/* Sorts the received records into the in- and out-lists. */
static int unpack(exchange_t *x, size_t total, int weighted, topo_t **out)
{
    size_t nin = 0, nout = 0;
    for (size_t i = 0; i < total; i++)
        *(x->recv[i].dir == EDGE_IN ? &nin : &nout) += 1;
    if (nin > INT_MAX || nout > INT_MAX)
        return MPI_ERR_NO_MEM; /* a degree must fit an int */
    x->in = alloc(nin, sizeof(int));
    x->inw = alloc(nin, sizeof(int));
    x->out = alloc(nout, sizeof(int));
    x->outw = alloc(nout, sizeof(int));
    if (!x->in || !x->inw || !x->out || !x->outw)
        return MPI_ERR_NO_MEM;
    nin = nout = 0;
    for (size_t i = 0; i < total; i++) {
        const edge_rec_t *r = &x->recv[i];
        if (r->dir == EDGE_IN) {
            x->in[nin] = r->peer;
            x->inw[nin++] = r->weight;
        } else {
            x->out[nout] = r->peer;
            x->outw[nout++] = r->weight;
        }
    }
    *out = topo_dist_graph_new((int)nin, x->in, x->inw, (int)nout, x->out, x->outw, weighted);
    return *out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int topo_dist_graph_exchange(comm_t *c, int n, const int sources[], const int degrees[],
                             const int destinations[], const int *weights, int weighted,
                             topo_t **out)
{
    int size = c->size, rc;
    exchange_t x = { 0 };
    *out = NULL;
    x.scounts = alloc((size_t)size, sizeof(size_t));
    x.sdispls = alloc((size_t)size, sizeof(size_t));
    x.rcounts = alloc((size_t)size, sizeof(size_t));
    x.rdispls = alloc((size_t)size, sizeof(size_t));
    x.nsend = calloc((size_t)size, sizeof(uint64_t));
    x.nrecv = alloc((size_t)size, sizeof(uint64_t));
    if (!x.scounts || !x.sdispls || !x.rcounts || !x.rdispls || !x.nsend || !x.nrecv) {
        exchange_free(&x);
        return MPI_ERR_NO_MEM;
    }
    /* A process without memory for its records still takes part, sending none, so the
     * others finish the exchange. */
    int local_rc = pack(&x, size, n, sources, degrees, destinations, weights, weighted);
    if (local_rc != MPI_SUCCESS)
        for (int p = 0; p < size; p++)
            x.nsend[p] = x.scounts[p] = 0;
    rc = icoll_alltoall_u64(c, x.nsend, 1, x.nrecv);
    if (rc != MPI_SUCCESS)
        goto done;
    size_t total = 0;
    for (int p = 0; p < size; p++) {
        x.rdispls[p] = total * sizeof(edge_rec_t);
        x.rcounts[p] = (size_t)x.nrecv[p] * sizeof(edge_rec_t);
        total += x.nrecv[p];
    }
    x.recv = alloc(total, sizeof(edge_rec_t));
    if (!x.recv) {
        rc = MPI_ERR_NO_MEM;
        goto done;
    }
    rc = icoll_alltoallv_u32(c, x.send, x.scounts, x.sdispls, x.recv, x.rcounts, x.rdispls);
    if (rc == MPI_SUCCESS)
        rc = local_rc != MPI_SUCCESS ? local_rc : unpack(&x, total, weighted, out);
done:
    exchange_free(&x);
    return rc;
}
