/* Shared by the neighbourhood-collective tests: every collective of MPI-3.1 §7.6 (blocking and
 * I-form) run on a communicator with a topology and checked block by block against what the
 * standard says must arrive where.
 *
 * Which block arrives in which receive block:
 *   Cartesian: the block a process sends as its block k lands in its neighbour's block k ^ 1
 *     (negative direction <-> positive direction), also when both neighbours of a dimension
 *     are one process (periodic extent 1 or 2): MPI-3.1 errata (MPI-4.0 Annex B.1.1), MPI-4.1
 *     Example 8.10.
 *   graph, distributed graph: the j-th edge from p to q (p's destination list) matches the
 *     j-th edge from p in q's source list.
 * Each block is identified by a key both sides compute (the block number for Cartesian, the
 * receiver and the occurrence j for graphs); data values and v-form counts are functions of
 * (sender, key), so every element is checked and nothing needs a reference run.
 *
 * Buffers hold ints; the "strided" type is one int with an extent of two ints, so derived
 * (non-contiguous) layouts are exercised on either side. Untouched areas (gaps between
 * blocks, MPI_PROC_NULL neighbours' blocks, holes of the strided layout) must keep their
 * sentinel. */
#ifndef NBR_TEST_H
#define NBR_TEST_H

#include "../check.h"

#include <stdlib.h>
#include <string.h>

typedef struct nbr {
    MPI_Comm comm;
    int rank, cart;
    int indeg, outdeg;
    int *srcs, *dsts;
} nbr_t;

static MPI_Datatype nbr_strided; /* one int, extent 2 ints */

static void nbr_types(void)
{
    MPI_Datatype v;
    CHECK_RC(MPI_Type_vector(1, 1, 2, MPI_INT, &v), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &nbr_strided),
             MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&nbr_strided), MPI_SUCCESS);
    MPI_Type_free(&v);
}

static void nbr_types_free(void)
{
    MPI_Type_free(&nbr_strided);
}

static MPI_Datatype nbr_type(int kind)
{
    return kind ? nbr_strided : MPI_INT;
}

static int nbr_stride(int kind)
{
    return kind ? 2 : 1;
}

static int *nbr_ints(int n)
{
    int *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    CHECK(p);
    return p;
}

/* The neighbour lists of comm in the standard's order. */
static void nbr_init(nbr_t *n, MPI_Comm comm)
{
    int status;
    memset(n, 0, sizeof *n);
    n->comm = comm;
    MPI_Comm_rank(comm, &n->rank);
    CHECK_RC(MPI_Topo_test(comm, &status), MPI_SUCCESS);
    if (status == MPI_CART) {
        int nd;
        MPI_Cartdim_get(comm, &nd);
        n->cart = 1;
        n->indeg = n->outdeg = 2 * nd;
        n->srcs = nbr_ints(2 * nd);
        for (int d = 0; d < nd; d++)
            CHECK_RC(MPI_Cart_shift(comm, d, 1, &n->srcs[2 * d], &n->srcs[2 * d + 1]),
                     MPI_SUCCESS);
        n->dsts = nbr_ints(2 * nd);
        memcpy(n->dsts, n->srcs, (size_t)(2 * nd) * sizeof(int));
    } else if (status == MPI_GRAPH) {
        int k;
        MPI_Graph_neighbors_count(comm, n->rank, &k);
        n->indeg = n->outdeg = k;
        n->srcs = nbr_ints(k);
        n->dsts = nbr_ints(k);
        MPI_Graph_neighbors(comm, n->rank, k, n->srcs);
        memcpy(n->dsts, n->srcs, (size_t)k * sizeof(int));
    } else {
        int w;
        CHECK(status == MPI_DIST_GRAPH);
        MPI_Dist_graph_neighbors_count(comm, &n->indeg, &n->outdeg, &w);
        n->srcs = nbr_ints(n->indeg);
        n->dsts = nbr_ints(n->outdeg);
        MPI_Dist_graph_neighbors(comm, n->indeg, n->srcs, MPI_UNWEIGHTED, n->outdeg, n->dsts,
                                 MPI_UNWEIGHTED);
    }
}

static void nbr_free(nbr_t *n)
{
    free(n->srcs);
    free(n->dsts);
}

/* earlier entries of list equal to list[i] */
static int nbr_occ(const int *list, int i)
{
    int j = 0;
    for (int x = 0; x < i; x++)
        j += list[x] == list[i];
    return j;
}

/* The key of send block k and of the block that must arrive in receive block l. */
static int nbr_skey(const nbr_t *n, int k)
{
    return n->cart ? k : n->dsts[k] * 64 + nbr_occ(n->dsts, k);
}

static int nbr_rkey(const nbr_t *n, int l)
{
    return n->cart ? l ^ 1 : n->rank * 64 + nbr_occ(n->srcs, l);
}

/* The key v-form counts depend on. With metampi the block's key; with other libraries only
 * the receiver, so that the sizes of messages between two processes are the same whichever
 * way repeated neighbours are paired (see nbr_checked). */
static int nbr_skey_count(const nbr_t *n, int k)
{
#ifdef METAMPI
    return nbr_skey(n, k);
#else
    return n->dsts[k] * 64;
#endif
}

static int nbr_rkey_count(const nbr_t *n, int l)
{
#ifdef METAMPI
    return nbr_rkey(n, l);
#else
    (void)l;
    return n->rank * 64;
#endif
}

static int nbr_val(int sender, int key, int e)
{
    return (sender + 1) * 1000003 + key * 1009 + e + 1;
}

/* elements of a v-form block (0..3) */
static int nbr_count(int sender, int key, int salt)
{
    return ((sender * 5 + key * 3 + salt) % 4 + 4) % 4; /* key < 0 for MPI_PROC_NULL */
}

enum { SENTINEL = -1, SEND_FILL = -7 };

static void nbr_fill(int *buf, int n, int v)
{
    for (int i = 0; i < n; i++)
        buf[i] = v;
}

/* count elements of kind at element displacement disp: value of element e is val(sender,
 * key, e) */
static void nbr_put(int *buf, int kind, int disp, int count, int sender, int key)
{
    for (int e = 0; e < count; e++)
        buf[(disp + e) * nbr_stride(kind)] = nbr_val(sender, key, e);
}

/* Whether receive block l is checked: always with metampi; with other libraries only when
 * its source is a neighbour once (MPICH 4.0 pairs repeated neighbours the pre-errata way:
 * neighbor_alltoall receives in reversed list order, alltoallv/w in list order, both for
 * every topology; MPICH PRs 5777 and 7945 change it). */
static int nbr_checked(const nbr_t *n, int l)
{
#ifdef METAMPI
    (void)n;
    (void)l;
    return 1;
#else
    for (int x = 0; x < n->indeg; x++)
        if (x != l && n->srcs[x] == n->srcs[l])
            return 0;
    return 1;
#endif
}

/* The expected block l: the sender's data, or whatever arrived when the block is not checked
 * (the rest of the buffer is still checked). */
static void nbr_want(const nbr_t *n, int l, int *want, const int *got, int kind, int disp,
                     int count, int key)
{
    if (n->srcs[l] == MPI_PROC_NULL)
        return;
    if (nbr_checked(n, l)) {
        nbr_put(want, kind, disp, count, n->srcs[l], key);
        return;
    }
    for (int e = 0; e < count; e++) {
        int i = (disp + e) * nbr_stride(kind);
        want[i] = got[i];
    }
}

static void nbr_compare(const char *what, const nbr_t *n, const int *got, const int *want,
                        int len)
{
    for (int i = 0; i < len; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "FAIL rank %d %s (cart %d, indeg %d, outdeg %d): int %d is %d, "
                            "expected %d\n", check_rank_(), what, n->cart, n->indeg,
                    n->outdeg, i, got[i], want[i]);
            for (int l = 0; l < n->indeg; l++)
                fprintf(stderr, "  src[%d] = %d\n", l, n->srcs[l]);
            for (int k = 0; k < n->outdeg; k++)
                fprintf(stderr, "  dst[%d] = %d\n", k, n->dsts[k]);
            fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static void nbr_wait(MPI_Request *req)
{
    CHECK(*req != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Wait(req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(*req == MPI_REQUEST_NULL);
}

/* ---- the five collectives ---------------------------------------------------------------- */

static void nbr_allgather(const nbr_t *n, int nb, int skind, int rkind, int count)
{
    int *sb = nbr_ints(count * 2), rlen = n->indeg * count * 2 + 1;
    int *rb = nbr_ints(rlen), *want = nbr_ints(rlen);
    nbr_fill(sb, count * 2, SEND_FILL);
    nbr_put(sb, skind, 0, count, n->rank, 0);
    nbr_fill(rb, rlen, SENTINEL);
    nbr_fill(want, rlen, SENTINEL);
    for (int l = 0; l < n->indeg; l++)
        if (n->srcs[l] != MPI_PROC_NULL)
            nbr_put(want, rkind, l * count, count, n->srcs[l], 0);
    if (nb) {
        MPI_Request r = MPI_REQUEST_NULL;
        CHECK_RC(MPI_Ineighbor_allgather(sb, count, nbr_type(skind), rb, count,
                                         nbr_type(rkind), n->comm, &r), MPI_SUCCESS);
        nbr_wait(&r);
    } else {
        CHECK_RC(MPI_Neighbor_allgather(sb, count, nbr_type(skind), rb, count, nbr_type(rkind),
                                        n->comm), MPI_SUCCESS);
    }
    nbr_compare(nb ? "Ineighbor_allgather" : "Neighbor_allgather", n, rb, want, rlen);
    free(sb);
    free(rb);
    free(want);
}

/* v-form receive layout: blocks in reverse order with a gap of one element; returns the
 * number of elements */
static int nbr_layout(const int *counts, int nblocks, int *displs)
{
    int pos = 0;
    for (int i = nblocks - 1; i >= 0; i--) {
        displs[i] = pos;
        pos += counts[i] + 1;
    }
    return pos;
}

static void nbr_allgatherv(const nbr_t *n, int nb, int skind, int rkind, int salt)
{
    int scount = nbr_count(n->rank, 0, salt);
    int *sb = nbr_ints(scount * 2);
    nbr_fill(sb, scount * 2, SEND_FILL);
    nbr_put(sb, skind, 0, scount, n->rank, 0);
    int *rcounts = nbr_ints(n->indeg), *displs = nbr_ints(n->indeg);
    for (int l = 0; l < n->indeg; l++)
        rcounts[l] = n->srcs[l] == MPI_PROC_NULL ? 2 : nbr_count(n->srcs[l], 0, salt);
    int rlen = nbr_layout(rcounts, n->indeg, displs) * 2 + 1;
    int *rb = nbr_ints(rlen), *want = nbr_ints(rlen);
    nbr_fill(rb, rlen, SENTINEL);
    nbr_fill(want, rlen, SENTINEL);
    for (int l = 0; l < n->indeg; l++)
        if (n->srcs[l] != MPI_PROC_NULL)
            nbr_put(want, rkind, displs[l], rcounts[l], n->srcs[l], 0);
    if (nb) {
        MPI_Request r = MPI_REQUEST_NULL;
        CHECK_RC(MPI_Ineighbor_allgatherv(sb, scount, nbr_type(skind), rb, rcounts, displs,
                                          nbr_type(rkind), n->comm, &r), MPI_SUCCESS);
        nbr_wait(&r);
    } else {
        CHECK_RC(MPI_Neighbor_allgatherv(sb, scount, nbr_type(skind), rb, rcounts, displs,
                                         nbr_type(rkind), n->comm), MPI_SUCCESS);
    }
    nbr_compare(nb ? "Ineighbor_allgatherv" : "Neighbor_allgatherv", n, rb, want, rlen);
    free(sb);
    free(rb);
    free(want);
    free(rcounts);
    free(displs);
}

static void nbr_alltoall(const nbr_t *n, int nb, int skind, int rkind, int count)
{
    int slen = n->outdeg * count * 2 + 1, rlen = n->indeg * count * 2 + 1;
    int *sb = nbr_ints(slen), *rb = nbr_ints(rlen), *want = nbr_ints(rlen);
    nbr_fill(sb, slen, SEND_FILL);
    for (int k = 0; k < n->outdeg; k++)
        nbr_put(sb, skind, k * count, count, n->rank, nbr_skey(n, k));
    nbr_fill(rb, rlen, SENTINEL);
    if (nb) {
        MPI_Request r = MPI_REQUEST_NULL;
        CHECK_RC(MPI_Ineighbor_alltoall(sb, count, nbr_type(skind), rb, count, nbr_type(rkind),
                                        n->comm, &r), MPI_SUCCESS);
        nbr_wait(&r);
    } else {
        CHECK_RC(MPI_Neighbor_alltoall(sb, count, nbr_type(skind), rb, count, nbr_type(rkind),
                                       n->comm), MPI_SUCCESS);
    }
    nbr_fill(want, rlen, SENTINEL);
    for (int l = 0; l < n->indeg; l++)
        nbr_want(n, l, want, rb, rkind, l * count, count, nbr_rkey(n, l));
    nbr_compare(nb ? "Ineighbor_alltoall" : "Neighbor_alltoall", n, rb, want, rlen);
    free(sb);
    free(rb);
    free(want);
}

static void nbr_alltoallv(const nbr_t *n, int nb, int skind, int rkind, int salt)
{
    int *scounts = nbr_ints(n->outdeg), *sdispls = nbr_ints(n->outdeg);
    int *rcounts = nbr_ints(n->indeg), *rdispls = nbr_ints(n->indeg);
    for (int k = 0; k < n->outdeg; k++)
        scounts[k] = nbr_count(n->rank, nbr_skey_count(n, k), salt);
    for (int l = 0; l < n->indeg; l++)
        rcounts[l] = n->srcs[l] == MPI_PROC_NULL
                         ? 2
                         : nbr_count(n->srcs[l], nbr_rkey_count(n, l), salt);
    int slen = nbr_layout(scounts, n->outdeg, sdispls) * 2 + 1;
    int rlen = nbr_layout(rcounts, n->indeg, rdispls) * 2 + 1;
    int *sb = nbr_ints(slen), *rb = nbr_ints(rlen), *want = nbr_ints(rlen);
    nbr_fill(sb, slen, SEND_FILL);
    for (int k = 0; k < n->outdeg; k++)
        nbr_put(sb, skind, sdispls[k], scounts[k], n->rank, nbr_skey(n, k));
    nbr_fill(rb, rlen, SENTINEL);
    if (nb) {
        MPI_Request r = MPI_REQUEST_NULL;
        CHECK_RC(MPI_Ineighbor_alltoallv(sb, scounts, sdispls, nbr_type(skind), rb, rcounts,
                                         rdispls, nbr_type(rkind), n->comm, &r), MPI_SUCCESS);
        nbr_wait(&r);
    } else {
        CHECK_RC(MPI_Neighbor_alltoallv(sb, scounts, sdispls, nbr_type(skind), rb, rcounts,
                                        rdispls, nbr_type(rkind), n->comm), MPI_SUCCESS);
    }
    nbr_fill(want, rlen, SENTINEL);
    for (int l = 0; l < n->indeg; l++)
        nbr_want(n, l, want, rb, rkind, rdispls[l], rcounts[l], nbr_rkey(n, l));
    nbr_compare(nb ? "Ineighbor_alltoallv" : "Neighbor_alltoallv", n, rb, want, rlen);
    free(sb);
    free(rb);
    free(want);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
}

/* w-form layout: block i of kind kinds[i] at byte displacement displs[i], blocks in reverse
 * order with one int between them; returns the ints used */
static int nbr_wlayout(const int *counts, const int *kinds, int nblocks, MPI_Aint *displs)
{
    int pos = 0;
    for (int i = nblocks - 1; i >= 0; i--) {
        displs[i] = (MPI_Aint)pos * (MPI_Aint)sizeof(int);
        pos += counts[i] * nbr_stride(kinds[i]) + 1;
    }
    return pos;
}

static void nbr_alltoallw(const nbr_t *n, int nb, int salt)
{
#ifndef METAMPI
    /* MPICH 4.0 mixes up in- and out-degree in MPI_Neighbor_alltoallw's count arrays (MPICH
     * issue 6233, fixed by PR 6250): skip graphs where they differ anywhere */
    int unequal = n->indeg != n->outdeg, any;
    MPI_Allreduce(&unequal, &any, 1, MPI_INT, MPI_MAX, n->comm);
    if (any)
        return;
#endif
    int *scounts = nbr_ints(n->outdeg), *skinds = nbr_ints(n->outdeg);
    int *rcounts = nbr_ints(n->indeg), *rkinds = nbr_ints(n->indeg);
    MPI_Aint *sdispls = malloc((size_t)(n->outdeg + 1) * sizeof(MPI_Aint));
    MPI_Aint *rdispls = malloc((size_t)(n->indeg + 1) * sizeof(MPI_Aint));
    MPI_Datatype *stypes = malloc((size_t)(n->outdeg + 1) * sizeof(MPI_Datatype));
    MPI_Datatype *rtypes = malloc((size_t)(n->indeg + 1) * sizeof(MPI_Datatype));
    CHECK(sdispls && rdispls && stypes && rtypes);
    for (int k = 0; k < n->outdeg; k++) {
        scounts[k] = nbr_count(n->rank, nbr_skey_count(n, k), salt);
        skinds[k] = (k + salt) % 2;
        stypes[k] = nbr_type(skinds[k]);
    }
    for (int l = 0; l < n->indeg; l++) {
        rcounts[l] = n->srcs[l] == MPI_PROC_NULL
                         ? 2
                         : nbr_count(n->srcs[l], nbr_rkey_count(n, l), salt);
        rkinds[l] = (l + salt + 1) % 2;
        rtypes[l] = nbr_type(rkinds[l]);
    }
    int slen = nbr_wlayout(scounts, skinds, n->outdeg, sdispls) + 1;
    int rlen = nbr_wlayout(rcounts, rkinds, n->indeg, rdispls) + 1;
    int *sb = nbr_ints(slen), *rb = nbr_ints(rlen), *want = nbr_ints(rlen);
    nbr_fill(sb, slen, SEND_FILL);
    for (int k = 0; k < n->outdeg; k++)
        nbr_put(sb + sdispls[k] / (MPI_Aint)sizeof(int), skinds[k], 0, scounts[k], n->rank,
                nbr_skey(n, k));
    nbr_fill(rb, rlen, SENTINEL);
    if (nb) {
        MPI_Request r = MPI_REQUEST_NULL;
        CHECK_RC(MPI_Ineighbor_alltoallw(sb, scounts, sdispls, stypes, rb, rcounts, rdispls,
                                         rtypes, n->comm, &r), MPI_SUCCESS);
        nbr_wait(&r);
    } else {
        CHECK_RC(MPI_Neighbor_alltoallw(sb, scounts, sdispls, stypes, rb, rcounts, rdispls,
                                        rtypes, n->comm), MPI_SUCCESS);
    }
    nbr_fill(want, rlen, SENTINEL);
    for (int l = 0; l < n->indeg; l++) {
        MPI_Aint at = rdispls[l] / (MPI_Aint)sizeof(int);
        nbr_want(n, l, want + at, rb + at, rkinds[l], 0, rcounts[l], nbr_rkey(n, l));
    }
    nbr_compare(nb ? "Ineighbor_alltoallw" : "Neighbor_alltoallw", n, rb, want, rlen);
    free(sb);
    free(rb);
    free(want);
    free(scounts);
    free(skinds);
    free(rcounts);
    free(rkinds);
    free(sdispls);
    free(rdispls);
    free(stypes);
    free(rtypes);
}

/* Every collective, blocking and I-form, with each pair of layouts (contiguous and strided on
 * either side) and counts 0 and 3. Collective on comm. */
static void nbr_check_all(MPI_Comm comm)
{
    nbr_t n;
    nbr_init(&n, comm);
    for (int nb = 0; nb < 2; nb++)
        for (int v = 0; v < 3; v++) {
            int skind = v == 1, rkind = v == 2;
            nbr_allgather(&n, nb, skind, rkind, 3);
            nbr_allgather(&n, nb, skind, rkind, v == 0 ? 0 : 1);
            nbr_allgatherv(&n, nb, skind, rkind, v);
            nbr_alltoall(&n, nb, skind, rkind, 3);
            nbr_alltoall(&n, nb, skind, rkind, v == 0 ? 0 : 1);
            nbr_alltoallv(&n, nb, skind, rkind, v);
            nbr_alltoallw(&n, nb, v);
        }
    nbr_free(&n);
}

#endif
