/* Distributed graph topologies (MPI-3.1 §7.5.4, §7.5.5): MPI_Dist_graph_create_adjacent for
 * a weighted ring (neighbours in the order given), unweighted (MPI_UNWEIGHTED) and empty
 * (MPI_WEIGHTS_EMPTY) adjacency; MPI_Dist_graph_create with every process naming its own
 * edges, and with a random graph whose edges are named by random processes (some name none),
 * weighted and unweighted: each process must learn exactly its in- and out-edges with their
 * weights. Messages travel along every edge; duplicates keep the graph. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

typedef struct edge {
    int peer, weight;
} edge_t;

static int cmp_edge(const void *a, const void *b)
{
    const edge_t *x = a, *y = b;
    return x->peer != y->peer ? (x->peer > y->peer) - (x->peer < y->peer)
                              : (x->weight > y->weight) - (x->weight < y->weight);
}

/* The neighbour lists of g; *in, *out are malloc'd (weights 0 when unweighted). */
static void get_lists(MPI_Comm g, int *indeg, edge_t **in, int *outdeg, edge_t **out,
                      int *weighted)
{
    int status;
    CHECK_RC(MPI_Topo_test(g, &status), MPI_SUCCESS);
    CHECK(status == MPI_DIST_GRAPH);
    CHECK_RC(MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted), MPI_SUCCESS);
    int ni = *indeg, no = *outdeg;
    int *s = malloc((size_t)(ni + 1) * sizeof *s), *sw = calloc((size_t)ni + 1, sizeof *sw);
    int *d = malloc((size_t)(no + 1) * sizeof *d), *dw = calloc((size_t)no + 1, sizeof *dw);
    CHECK_RC(MPI_Dist_graph_neighbors(g, ni, s, *weighted ? sw : MPI_UNWEIGHTED, no, d,
                                      *weighted ? dw : MPI_UNWEIGHTED), MPI_SUCCESS);
    *in = malloc((size_t)(ni + 1) * sizeof **in);
    *out = malloc((size_t)(no + 1) * sizeof **out);
    for (int i = 0; i < ni; i++)
        (*in)[i] = (edge_t){ s[i], sw[i] };
    for (int i = 0; i < no; i++)
        (*out)[i] = (edge_t){ d[i], dw[i] };
    free(s);
    free(sw);
    free(d);
    free(dw);
}

/* One message along every edge: to each out-neighbour, from each in-neighbour. */
static void send_along_edges(MPI_Comm g, int ni, const edge_t *in, int no, const edge_t *out)
{
    MPI_Request *req = malloc((size_t)(no + 1) * sizeof *req);
    for (int i = 0; i < no; i++)
        CHECK_RC(MPI_Isend(&rank, 1, MPI_INT, out[i].peer, 9, g, &req[i]), MPI_SUCCESS);
    for (int i = 0; i < ni; i++) {
        int got = -1;
        CHECK_RC(MPI_Recv(&got, 1, MPI_INT, in[i].peer, 9, g, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(got == in[i].peer);
    }
    CHECK_RC(MPI_Waitall(no, req, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    free(req);
}

/* g's lists equal the expected ones: in order when ordered, else as multisets. */
static void check_lists(MPI_Comm g, int ni, edge_t *in, int no, edge_t *out, int weighted,
                        int ordered)
{
    int gi, go, gw;
    edge_t *gin, *gout;
    get_lists(g, &gi, &gin, &go, &gout, &gw);
    CHECK(gi == ni && go == no);
    CHECK(!gw == !weighted);
    send_along_edges(g, gi, gin, go, gout);
    if (!weighted) {
        for (int i = 0; i < ni; i++)
            in[i].weight = gin[i].weight = 0;
        for (int i = 0; i < no; i++)
            out[i].weight = gout[i].weight = 0;
    }
    if (!ordered) {
        qsort(in, (size_t)ni, sizeof *in, cmp_edge);
        qsort(gin, (size_t)ni, sizeof *gin, cmp_edge);
        qsort(out, (size_t)no, sizeof *out, cmp_edge);
        qsort(gout, (size_t)no, sizeof *gout, cmp_edge);
    }
    CHECK(memcmp(gin, in, (size_t)ni * sizeof *in) == 0);
    CHECK(memcmp(gout, out, (size_t)no * sizeof *out) == 0);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(g, &dup), MPI_SUCCESS);
    int di, dout, dw;
    CHECK_RC(MPI_Dist_graph_neighbors_count(dup, &di, &dout, &dw), MPI_SUCCESS);
    CHECK(di == ni && dout == no && !dw == !weighted);
    MPI_Comm_free(&dup);
    free(gin);
    free(gout);
}

static int weight_of(int from, int to)
{
    return 1000 * from + to;
}

static void test_adjacent(MPI_Comm comm_old)
{
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int src[2] = { left, right }, sw[2] = { weight_of(left, rank), weight_of(right, rank) };
    int dst[2] = { right, left }, dw[2] = { weight_of(rank, right), weight_of(rank, left) };
    edge_t in[2] = { { left, sw[0] }, { right, sw[1] } }, out[2] = { { right, dw[0] }, { left, dw[1] } };
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create_adjacent(comm_old, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 1,
                                            &g), MPI_SUCCESS);
    check_lists(g, 2, in, 2, out, 1, 1);
    MPI_Comm_free(&g);

    CHECK_RC(MPI_Dist_graph_create_adjacent(comm_old, 2, src, MPI_UNWEIGHTED, 2, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g), MPI_SUCCESS);
    check_lists(g, 2, in, 2, out, 0, 1);
    MPI_Comm_free(&g);

    /* only out-edges to the right (in-edges from the left), with an info object */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_such_hint", "ignored");
    edge_t in1 = { left, weight_of(left, rank) }, out1 = { right, weight_of(rank, right) };
    CHECK_RC(MPI_Dist_graph_create_adjacent(comm_old, 1, &in1.peer, &in1.weight, 1, &out1.peer,
                                            &out1.weight, info, 0, &g), MPI_SUCCESS);
    MPI_Info_free(&info);
    check_lists(g, 1, &in1, 1, &out1, 1, 1);
    MPI_Comm_free(&g);

    /* no edges at all: weighted with MPI_WEIGHTS_EMPTY, not with MPI_UNWEIGHTED */
    edge_t none[1];
    CHECK_RC(MPI_Dist_graph_create_adjacent(comm_old, 0, NULL, MPI_WEIGHTS_EMPTY, 0, NULL,
                                            MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &g), MPI_SUCCESS);
    check_lists(g, 0, none, 0, none, 1, 1);
    MPI_Comm_free(&g);
    CHECK_RC(MPI_Dist_graph_create_adjacent(comm_old, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g), MPI_SUCCESS);
    check_lists(g, 0, none, 0, none, 0, 1);
    MPI_Comm_free(&g);
}

/* Every process names its own ring edges (n = 1 source: itself, degree 2). */
static void test_create_own(void)
{
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int src = rank, deg = 2, dst[2] = { right, left };
    int w[2] = { weight_of(rank, right), weight_of(rank, left) };
    edge_t in[2] = { { left, weight_of(left, rank) }, { right, weight_of(right, rank) } };
    edge_t out[2] = { { right, w[0] }, { left, w[1] } };
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &src, &deg, dst, w, MPI_INFO_NULL, 0,
                                   &g), MPI_SUCCESS);
    check_lists(g, 2, in, 2, out, 1, 0);
    MPI_Comm_free(&g);
}

/* A random multigraph (self-loops and repeated edges included), the same on every process,
 * whose edges are named by randomly chosen processes. */
static void test_create_random(int weighted, int nedges, unsigned seed)
{
    srand(seed);
    int *es = malloc((size_t)nedges * sizeof *es), *ed = malloc((size_t)nedges * sizeof *ed);
    int *ew = malloc((size_t)nedges * sizeof *ew), *owner = malloc((size_t)nedges * sizeof *owner);
    for (int e = 0; e < nedges; e++) {
        es[e] = rand() % size;
        ed[e] = rand() % size;
        ew[e] = rand() % 100;
        owner[e] = rand() % size;
    }
    /* My arguments: on even ranks one source entry per edge; on odd ranks runs of edges with
     * the same source share one entry (n < number of edges). */
    int n = 0, *sources = malloc((size_t)(nedges + 1) * sizeof *sources);
    int *degrees = malloc((size_t)(nedges + 1) * sizeof *degrees);
    int *dests = malloc((size_t)(nedges + 1) * sizeof *dests), k = 0;
    int *weights = malloc((size_t)(nedges + 1) * sizeof *weights);
    for (int e = 0; e < nedges; e++) {
        if (owner[e] != rank)
            continue;
        if (rank % 2 && n > 0 && sources[n - 1] == es[e]) {
            degrees[n - 1]++;
        } else {
            sources[n] = es[e];
            degrees[n++] = 1;
        }
        dests[k] = ed[e];
        weights[k++] = ew[e];
    }
    int ni = 0, no = 0;
    edge_t *in = malloc((size_t)(nedges + 1) * sizeof *in);
    edge_t *out = malloc((size_t)(nedges + 1) * sizeof *out);
    for (int e = 0; e < nedges; e++) {
        if (ed[e] == rank)
            in[ni++] = (edge_t){ es[e], ew[e] };
        if (es[e] == rank)
            out[no++] = (edge_t){ ed[e], ew[e] };
    }
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests,
                                   weighted ? weights : MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &g),
             MPI_SUCCESS);
    check_lists(g, ni, in, no, out, weighted, 0);
    MPI_Comm_free(&g);
    free(es);
    free(ed);
    free(ew);
    free(owner);
    free(sources);
    free(degrees);
    free(dests);
    free(weights);
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_adjacent(MPI_COMM_WORLD);
    /* on a communicator that has a topology already: the new one has only the graph */
    MPI_Comm cart;
    int dims[1] = { size }, periods[1] = { 0 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    test_adjacent(cart);
    MPI_Comm_free(&cart);
    test_create_own();
    for (int round = 0; round < 4; round++) {
        test_create_random(1, 5 * size, 100u + round);
        test_create_random(0, 3 * size, 200u + round);
    }
    test_create_random(1, 0, 7); /* nobody names an edge */
    test_create_random(1, 1, 8); /* one edge */
    MPI_Finalize();
    return 0;
}
