/* Neighbourhood collectives (MPI-3.1 §7.6): MPI_Neighbor_allgather(v) and
 * MPI_Neighbor_alltoall(v,w) on Cartesian communicators (1-, 2- and 3-D, periodic and not: a
 * non-periodic edge has MPI_PROC_NULL neighbours, whose receive blocks must stay untouched),
 * on a graph communicator (a symmetric multigraph with a repeated edge, a self-loop and an
 * isolated node) and on distributed graphs (adjacent: random directed multigraphs with
 * self-loops, repeated edges and a process without neighbours, unweighted and weighted;
 * non-adjacent: MPI_Dist_graph_create, neighbour order as MPI_Dist_graph_neighbors reports).
 * Counts per edge are random (0 included) up to 64 KiB, derived layouts on both sides (per
 * neighbour for alltoallw), displacements in a random order with gaps.
 *
 * Which block arrives where: for graphs the k-th message from s to d goes to d's receive slot
 * of the k-th occurrence of s among its sources (as if every process posted its receives and
 * sends in neighbour order); on a Cartesian communicator the block a process sends in the
 * positive direction of a dimension arrives in the receiver's negative-direction slot and
 * vice versa — where both neighbours of a dimension are the same process (a periodic
 * dimension of size 1 or 2) the two blocks may arrive in either order.
 *
 *   coll_neighbor [nb]     nb: through the MPI_Ineighbor_* forms
 */
#include "coll_check.h"

#define MAXDEG 64
#define AGB 63 /* the block index of neighbor_allgather data */

typedef struct {
    MPI_Comm comm;
    const char *name;
    int cart, ndims; /* Cartesian: slots 2i, 2i+1 are dimension i */
    int dist;        /* a distributed graph */
    int n, me, indeg, outdeg;
    int src[MAXDEG], dst[MAXDEG];
    int *alldeg, *alloff, *alldst; /* every process's out-neighbours */
    int sblock[MAXDEG]; /* the sender's block arriving in each receive slot (-1: none) */
    int amb[MAXDEG];    /* 1: slot pair of a dimension whose neighbours coincide */
} topo_t;

static int wrank, wsize;

/* Fills degrees, neighbour lists, every process's out-lists and the block matching. */
static void topo_fill(topo_t *t)
{
    MPI_Comm_size(t->comm, &t->n);
    MPI_Comm_rank(t->comm, &t->me);
    int status;
    CHECK_RC(MPI_Topo_test(t->comm, &status), MPI_SUCCESS);
    t->cart = status == MPI_CART;
    if (status == MPI_CART) {
        CHECK_RC(MPI_Cartdim_get(t->comm, &t->ndims), MPI_SUCCESS);
        t->indeg = t->outdeg = 2 * t->ndims;
        for (int i = 0; i < t->ndims; i++) {
            CHECK_RC(MPI_Cart_shift(t->comm, i, 1, &t->src[2 * i], &t->src[2 * i + 1]),
                     MPI_SUCCESS);
            t->dst[2 * i] = t->src[2 * i], t->dst[2 * i + 1] = t->src[2 * i + 1];
        }
    } else if (status == MPI_GRAPH) {
        CHECK_RC(MPI_Graph_neighbors_count(t->comm, t->me, &t->indeg), MPI_SUCCESS);
        CHECK(t->indeg <= MAXDEG);
        t->outdeg = t->indeg;
        CHECK_RC(MPI_Graph_neighbors(t->comm, t->me, MAXDEG, t->src), MPI_SUCCESS);
        memcpy(t->dst, t->src, sizeof t->src);
    } else {
        CHECK(status == MPI_DIST_GRAPH);
        t->dist = 1;
        int weighted;
        CHECK_RC(MPI_Dist_graph_neighbors_count(t->comm, &t->indeg, &t->outdeg, &weighted),
                 MPI_SUCCESS);
        CHECK(t->indeg <= MAXDEG && t->outdeg <= MAXDEG);
        int w1[MAXDEG], w2[MAXDEG];
        CHECK_RC(MPI_Dist_graph_neighbors(t->comm, t->indeg, t->src, w1, t->outdeg, t->dst, w2),
                 MPI_SUCCESS);
    }
    t->alldeg = malloc((size_t)t->n * sizeof(int));
    t->alloff = malloc(((size_t)t->n + 1) * sizeof(int));
    CHECK_RC(MPI_Allgather(&t->outdeg, 1, MPI_INT, t->alldeg, 1, MPI_INT, t->comm), MPI_SUCCESS);
    t->alloff[0] = 0;
    for (int r = 0; r < t->n; r++)
        t->alloff[r + 1] = t->alloff[r] + t->alldeg[r];
    t->alldst = malloc(((size_t)t->alloff[t->n] + 1) * sizeof(int));
    CHECK_RC(MPI_Allgatherv(t->dst, t->outdeg, MPI_INT, t->alldst, t->alldeg, t->alloff,
                            MPI_INT, t->comm),
             MPI_SUCCESS);
    for (int k = 0; k < t->indeg; k++) {
        int s = t->src[k];
        t->amb[k] = 0;
        t->sblock[k] = -1;
        if (s == MPI_PROC_NULL)
            continue;
        if (t->cart) {
            int other = t->src[k ^ 1];
            t->sblock[k] = k ^ 1; /* sent in the opposite direction */
            t->amb[k] = other == s;
            continue;
        }
        int occ = 0; /* the occurrence of s among my sources */
        for (int j = 0; j < k; j++)
            occ += t->src[j] == s;
        for (int j = 0; j < t->alldeg[s]; j++)
            if (t->alldst[t->alloff[s] + j] == t->me && occ-- == 0) {
                t->sblock[k] = j;
                break;
            }
        CHECK(t->sblock[k] >= 0); /* the graph is consistent */
    }
}

static void topo_free(topo_t *t)
{
    free(t->alldeg), free(t->alloff), free(t->alldst);
    MPI_Comm_free(&t->comm);
}

/* Ints of the message from process s to process d in case key (at most maxc). */
static int edge_ints(int key, int s, int d, int maxc)
{
    uint32_t h = mix3((uint32_t)key, (uint32_t)s, (uint32_t)d);
    return h % 4 == 0 ? 0 : 2 * (1 + (int)((h >> 4) % (uint32_t)(maxc / 2 > 0 ? maxc / 2 : 1)));
}

/* MPICH 4.0.2 matches the repeated edges between two processes in reverse order (and on a
 * Cartesian communicator mixes the blocks of different dimensions when one process is the
 * neighbour in several): under MPICH the messages between two processes may arrive in any
 * order among the slots of that sender. */
#ifdef METAMPI
#define LOOSE_ORDER 0
#else
#define LOOSE_ORDER 1
#endif

/* Compares the receive buffer with the expected image; where a slot differs, tries the
 * other blocks its sender may have sent there (the swapped pair of an ambiguous Cartesian
 * dimension; any block of that sender to this process under LOOSE_ORDER), each block used
 * once. roff/rlen: each slot's area in ints. */
static void check_slots(const topo_t *t, const int *rbuf, int *exp, size_t rspan,
                        const size_t *roff, const size_t *rlen, const lay_t **rl, const int *rc,
                        int key, int gather, const char *what)
{
    if (gather || memcmp(rbuf, exp, (rspan + GUARD) * sizeof(int)) == 0) {
        check_ints(rbuf, exp, rspan, what);
        return;
    }
    int chosen[MAXDEG], ok[MAXDEG];
    for (int k = 0; k < t->indeg; k++) {
        chosen[k] = t->sblock[k];
        ok[k] = t->sblock[k] < 0 ||
                memcmp(rbuf + roff[k], exp + roff[k], rlen[k] * sizeof(int)) == 0;
    }
    for (int k = 0; k < t->indeg; k++) {
        if (ok[k])
            continue;
        int s = t->src[k];
        for (int j = 0; j < t->alldeg[s] && !ok[k]; j++) {
            if (t->alldst[t->alloff[s] + j] != t->me)
                continue;
            int allowed = LOOSE_ORDER || (t->cart && t->amb[k] && j == k);
            for (int q = 0; q < t->indeg; q++) /* each block of s once */
                if (q != k && t->src[q] == s && ok[q] && chosen[q] == j)
                    allowed = 0;
            if (!allowed)
                continue;
            lay_put(rl[k], exp + roff[k], rc[k], key, s * 64 + j, 0);
            if (memcmp(rbuf + roff[k], exp + roff[k], rlen[k] * sizeof(int)) == 0)
                ok[k] = 1, chosen[k] = j;
        }
        if (!ok[k]) /* report it with the expected block */
            lay_put(rl[k], exp + roff[k], rc[k], key, s * 64 + t->sblock[k], 0);
    }
    check_ints(rbuf, exp, rspan, what);
}

/* One operation: 0 allgather, 1 allgatherv, 2 alltoall, 3 alltoallv, 4 alltoallw. */
static void run_op(const topo_t *t, int op, int maxc, int key)
{
    static const char *names[5] = {"neighbor_allgather", "neighbor_allgatherv",
                                   "neighbor_alltoall", "neighbor_alltoallv",
                                   "neighbor_alltoallw"};
    int me = t->me, in = t->indeg, out = t->outdeg;
    const lay_t *sl[MAXDEG], *rl[MAXDEG];
    int sc[MAXDEG], rc[MAXDEG], sd[MAXDEG], rd[MAXDEG];
    size_t soff[MAXDEG], roff[MAXDEG], rlen[MAXDEG];
    MPI_Aint sdb[MAXDEG], rdb[MAXDEG];
    MPI_Datatype st[MAXDEG], rt[MAXDEG];
    int uniform = op == 0 || op == 2, gather = op <= 1;
    /* ints per message: uniform ops use one size (from the key), the others per edge; for
     * allgather(v) a sender's ints go to every out-neighbour */
    int u = edge_ints(key, 0, 0, maxc);
    size_t spos = 0, rpos = 0;
    const lay_t *lsu = pick(key, me, 2), *lru = pick(key + 1, me, 2);
    int sd_order[MAXDEG], rd_order[MAXDEG];
    for (int k = 0; k < MAXDEG; k++)
        sd_order[k] = rd_order[k] = k;
    if (op != 4) { /* v forms: blocks in a random (local) order */
        rng_t g = {(uint64_t)key * 31 + (uint64_t)me};
        for (int k = out - 1; k > 0; k--) {
            int j = rng_int(&g, k + 1), x = sd_order[k];
            sd_order[k] = sd_order[j], sd_order[j] = x;
        }
        for (int k = in - 1; k > 0; k--) {
            int j = rng_int(&g, k + 1), x = rd_order[k];
            rd_order[k] = rd_order[j], rd_order[j] = x;
        }
    }
    /* send side */
    int nsend = gather ? 1 : out;
    for (int b = 0; b < nsend; b++) {
        int k = op == 3 ? sd_order[b] : b;
        int d = gather ? -1 : t->dst[k];
        int ints = uniform ? u : gather ? edge_ints(key, me, -1, maxc)
                   : d == MPI_PROC_NULL ? 2 : edge_ints(key, me, d, maxc);
        sl[k] = op == 4 ? pick(key, me * 64 + k, 2) : lsu;
        sc[k] = lay_count(sl[k], ints);
        if (op == 3 || op == 4)
            spos += (size_t)(b % 3);
        if (op == 3) /* displacements in elements: a multiple of the extent */
            spos = (spos + (size_t)lsu->extent - 1) / (size_t)lsu->extent * (size_t)lsu->extent;
        soff[k] = spos;
        sd[k] = (int)(spos / (size_t)sl[k]->extent);
        sdb[k] = (MPI_Aint)(spos * sizeof(int));
        st[k] = sl[k]->type;
        spos += lay_span(sl[k], sc[k]);
    }
    /* receive side */
    for (int b = 0; b < in; b++) {
        int k = op == 1 || op == 3 ? rd_order[b] : b;
        int s = t->src[k];
        int ints = uniform ? u
                   : s == MPI_PROC_NULL ? 2
                   : gather ? edge_ints(key, s, -1, maxc) : edge_ints(key, s, me, maxc);
        rl[k] = op == 4 ? pick(key + 1, me * 64 + k, 2) : lru;
        rc[k] = lay_count(rl[k], ints);
        if (op == 1 || op == 3 || op == 4)
            rpos += (size_t)((b + 1) % 3);
        if (op == 1 || op == 3)
            rpos = (rpos + (size_t)lru->extent - 1) / (size_t)lru->extent * (size_t)lru->extent;
        roff[k] = rpos;
        rd[k] = (int)(rpos / (size_t)rl[k]->extent);
        rdb[k] = (MPI_Aint)(rpos * sizeof(int));
        rt[k] = rl[k]->type;
        rlen[k] = lay_span(rl[k], rc[k]);
        rpos += rlen[k];
    }
    int *sbuf = ibuf(spos), *sexp = ibuf(spos), *rbuf = ibuf(rpos), *exp = ibuf(rpos);
    for (int k = 0; k < nsend; k++)
        lay_put(sl[k], sbuf + soff[k], sc[k], key, me * 64 + (gather ? AGB : k), 0);
    memcpy(sexp, sbuf, (spos + GUARD) * sizeof *sbuf);
    for (int k = 0; k < in; k++)
        if (t->sblock[k] >= 0)
            lay_put(rl[k], exp + roff[k], rc[k], key,
                    t->src[k] * 64 + (gather ? AGB : t->sblock[k]), 0);
    int r;
    switch (op) {
    case 0:
        r = c_neighbor_allgather(sbuf, sc[0], lsu->type, rbuf, in ? rc[0] : lay_count(lru, u),
                                 lru->type, t->comm);
        break;
    case 1:
        r = c_neighbor_allgatherv(sbuf, sc[0], lsu->type, rbuf, rc, rd, lru->type, t->comm);
        break;
    case 2:
        r = c_neighbor_alltoall(sbuf, out ? sc[0] : lay_count(lsu, u), lsu->type, rbuf,
                                in ? rc[0] : lay_count(lru, u), lru->type, t->comm);
        break;
    case 3:
        r = c_neighbor_alltoallv(sbuf, sc, sd, lsu->type, rbuf, rc, rd, lru->type, t->comm);
        break;
    default:
        r = c_neighbor_alltoallw(sbuf, sc, sdb, st, rbuf, rc, rdb, rt, t->comm);
        break;
    }
    CHECK_RC(r, MPI_SUCCESS);
    check_slots(t, rbuf, exp, rpos, roff, rlen, rl, rc, key, gather, names[op]);
    check_ints(sbuf, sexp, spos, "neighbor sendbuf");
    free(sbuf), free(sexp), free(rbuf), free(exp);
}

static void run_all(topo_t *t, int key0)
{
    topo_fill(t);
    coll_ctx = t->name;
    static const int maxc[] = {0, 6, 200, 16384};
    int key = key0;
    for (int m = 0; m < 4; m++)
        for (int op = 0; op < 5; op++) {
            key++;
#ifndef METAMPI
            /* MPICH 4.0.2's MPI_Neighbor_alltoallw loses and misplaces blocks when a process's
             * in- and out-degrees differ (MPI_Neighbor_alltoallv is right) */
            if (op == 4 && t->dist)
                continue;
#endif
            run_op(t, op, maxc[m], key);
        }
    topo_free(t);
}

/* ---- the topologies ----------------------------------------------------------------------- */

static void cart(int ndims, const int *periods, int reorder, const char *name, int key)
{
    int dims[3] = {0, 0, 0};
    CHECK_RC(MPI_Dims_create(wsize, ndims, dims), MPI_SUCCESS);
    topo_t t = {.name = name};
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, reorder, &t.comm),
             MPI_SUCCESS);
    run_all(&t, key);
}

/* A symmetric multigraph on the first m nodes (m = n - 1 from 3 processes on, so the last
 * node is isolated): a ring, the edge 0-1 twice more, a self-loop at 0. */
static void graph(int key)
{
    int n = wsize, m = n >= 3 ? n - 1 : n;
    int *index = malloc((size_t)n * sizeof *index), *edges = malloc(8 * (size_t)n * sizeof *edges);
    int ne = 0;
    for (int i = 0; i < n; i++) {
        if (i < m && m > 1) {
            edges[ne++] = (i + 1) % m;
            if (m > 2)
                edges[ne++] = (i + m - 1) % m;
            if (i <= 1) /* the repeated edge 0-1 (1-0 from node 1) */
                edges[ne++] = 1 - i, edges[ne++] = 1 - i;
        }
        if (i == 0)
            edges[ne++] = 0;
        index[i] = ne;
    }
    topo_t t = {.name = "graph"};
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &t.comm), MPI_SUCCESS);
    run_all(&t, key);
    free(index), free(edges);
}

/* A random directed multigraph (the same on every process) with self-loops and repeated
 * edges; the last process (from 3 on) has no edge at all. */
static int random_edges(int seed, int n, int *es, int *ed)
{
    rng_t g = {(uint64_t)seed};
    int m = n >= 3 ? n - 1 : n, ne = 0;
    for (int i = 0; i < 3 * m; i++) {
        es[ne] = rng_int(&g, m), ed[ne] = rng_int(&g, m);
        ne++;
        if (i % 5 == 0) /* repeat it */
            es[ne] = es[ne - 1], ed[ne] = ed[ne - 1], ne++;
    }
    return ne;
}

static void dist_adjacent(int weighted, int key)
{
    int n = wsize, me = wrank;
    int *es = malloc(8 * (size_t)n * sizeof *es), *ed = malloc(8 * (size_t)n * sizeof *ed);
    int ne = random_edges(key, n, es, ed);
    int src[MAXDEG], dst[MAXDEG], sw[MAXDEG], dw[MAXDEG], in = 0, out = 0;
    for (int e = 0; e < ne; e++) {
        if (ed[e] == me && in < MAXDEG)
            sw[in] = e + 1, src[in++] = es[e];
        if (es[e] == me && out < MAXDEG)
            dw[out] = e + 1, dst[out++] = ed[e];
    }
    CHECK(in < MAXDEG && out < MAXDEG);
    topo_t t = {.name = weighted ? "dist graph adjacent, weighted" : "dist graph adjacent"};
    const int *swp = weighted ? (in ? sw : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
    const int *dwp = weighted ? (out ? dw : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, swp, out, dst, dwp,
                                            MPI_INFO_NULL, 0, &t.comm),
             MPI_SUCCESS);
    run_all(&t, key);
    free(es), free(ed);
}

/* MPI_Dist_graph_create: process r names the edges r -> (r + k) % n for its k in a random
 * set (no repeated edges: their matching would depend on the order the library chose). */
static void dist_general(int key)
{
    int n = wsize, me = wrank;
    rng_t g = {(uint64_t)key * 7 + (uint64_t)me};
    int dst[MAXDEG], w[MAXDEG], deg = 0;
    for (int k = 0; k < n && deg < 6; k++)
        if (rng_int(&g, 3) == 0)
            w[deg] = k, dst[deg++] = (me + k) % n;
    int src = me;
    topo_t t = {.name = "dist graph"};
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, deg ? 1 : 0, &src, &deg, dst,
                                   deg ? w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 1, &t.comm),
             MPI_SUCCESS);
    run_all(&t, key);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    coll_args(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    lay_init();
    static const int p1[1] = {1}, p0[1] = {0}, p10[2] = {1, 0}, p00[2] = {0, 0},
                     p110[3] = {1, 1, 0};
    cart(1, p1, 0, "cart 1-D periodic", 1 << 16);
    cart(1, p0, 0, "cart 1-D", 2 << 16);
    cart(2, p10, 1, "cart 2-D periodic x open", 3 << 16);
    cart(2, p00, 0, "cart 2-D open", 4 << 16);
    cart(3, p110, 0, "cart 3-D", 5 << 16);
    graph(6 << 16);
    dist_adjacent(0, 7 << 16);
    dist_adjacent(1, 8 << 16);
    dist_general(9 << 16);
    lay_free();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_neighbor%s: ok\n", coll_nb ? " (nonblocking)" : "");
    return 0;
}
