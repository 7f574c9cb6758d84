/* Graph topologies (MPI-3.1 §7.5.3, §7.5.5, §7.5.7): MPI_Graph_create for a ring (messages
 * along every edge), the standard's 4-node example, a random graph with self-loops and
 * repeated edges, graphs smaller than the communicator (MPI_COMM_NULL for the rest, none at
 * all for 0 nodes), a graph on a communicator that already has a topology; every query
 * (Graphdims_get, Graph_get, Graph_neighbors_count, Graph_neighbors for every node,
 * Topo_test), MPI_Graph_map, and duplicates that keep the graph. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

/* Every query of a graph communicator against the description it was created from. */
static void check_graph(MPI_Comm g, int nnodes, const int *index, const int *edges)
{
    int status, nn, ne, nedges = nnodes ? index[nnodes - 1] : 0;
    CHECK_RC(MPI_Topo_test(g, &status), MPI_SUCCESS);
    CHECK(status == MPI_GRAPH);
    int gsize, grank;
    MPI_Comm_size(g, &gsize);
    MPI_Comm_rank(g, &grank);
    CHECK(gsize == nnodes);
    CHECK(grank == rank);
    CHECK_RC(MPI_Graphdims_get(g, &nn, &ne), MPI_SUCCESS);
    CHECK(nn == nnodes && ne == nedges);
    int *gi = malloc((size_t)(nnodes + 1) * sizeof *gi);
    int *ge = malloc((size_t)(nedges + 1) * sizeof *ge);
    CHECK_RC(MPI_Graph_get(g, nnodes, nedges, gi, ge), MPI_SUCCESS);
    CHECK(memcmp(gi, index, (size_t)nnodes * sizeof *gi) == 0);
    CHECK(memcmp(ge, edges, (size_t)nedges * sizeof *ge) == 0);
    for (int r = 0; r < nnodes; r++) {
        int first = r ? index[r - 1] : 0, count = index[r] - first, n = -1;
        CHECK_RC(MPI_Graph_neighbors_count(g, r, &n), MPI_SUCCESS);
        CHECK(n == count);
        memset(ge, 0xff, (size_t)(nedges + 1) * sizeof *ge);
        CHECK_RC(MPI_Graph_neighbors(g, r, count, ge), MPI_SUCCESS);
        CHECK(memcmp(ge, edges + first, (size_t)count * sizeof *ge) == 0);
        CHECK(ge[count] == -1); /* nothing past the neighbours */
    }
    free(gi);
    free(ge);
}

/* Creates the graph on comm_old (the first nnodes processes), checks it, and checks that
 * duplicates keep it; returns the communicator (or MPI_COMM_NULL). */
static MPI_Comm make_graph(MPI_Comm comm_old, int nnodes, const int *index, const int *edges)
{
    MPI_Comm g;
    CHECK_RC(MPI_Graph_create(comm_old, nnodes, index, edges, 1, &g), MPI_SUCCESS);
    int mapped;
    CHECK_RC(MPI_Graph_map(comm_old, nnodes, index, edges, &mapped), MPI_SUCCESS);
    if (rank >= nnodes) {
        CHECK(g == MPI_COMM_NULL);
        CHECK(mapped == MPI_UNDEFINED);
        return MPI_COMM_NULL;
    }
    CHECK(g != MPI_COMM_NULL);
    CHECK(mapped == rank);
    check_graph(g, nnodes, index, edges);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(g, &dup), MPI_SUCCESS);
    check_graph(dup, nnodes, index, edges);
    MPI_Comm_free(&dup);
    return g;
}

/* A ring: node i's neighbours are i+1 and i-1 (the same node twice for 2 nodes, itself twice
 * for 1). Every process sends its rank along each edge and hears from each neighbour. */
static void test_ring(void)
{
    int *index = malloc((size_t)size * sizeof *index), *edges = malloc((size_t)size * 2 * sizeof *edges);
    for (int i = 0; i < size; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + 1) % size;
        edges[2 * i + 1] = (i - 1 + size) % size;
    }
    MPI_Comm g = make_graph(MPI_COMM_WORLD, size, index, edges);
    int nb[2], n;
    CHECK_RC(MPI_Graph_neighbors_count(g, rank, &n), MPI_SUCCESS);
    CHECK(n == 2);
    CHECK_RC(MPI_Graph_neighbors(g, rank, 2, nb), MPI_SUCCESS);
    MPI_Request req[2];
    int got[2] = { -1, -1 };
    for (int i = 0; i < 2; i++)
        CHECK_RC(MPI_Isend(&rank, 1, MPI_INT, nb[i], 5, g, &req[i]), MPI_SUCCESS);
    for (int i = 0; i < 2; i++)
        CHECK_RC(MPI_Recv(&got[i], 1, MPI_INT, nb[i], 5, g, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(got[0] == nb[0] && got[1] == nb[1]);
    MPI_Comm_free(&g);
    free(index);
    free(edges);
}

/* The standard's example: 0-{1,3}, 1-{0}, 2-{3}, 3-{0,2}, and the same graph built on a
 * Cartesian communicator (the new one has the graph topology only). */
static void test_example(void)
{
    if (size < 4)
        return;
    int index[4] = { 2, 3, 4, 6 }, edges[6] = { 1, 3, 0, 3, 0, 2 };
    MPI_Comm g = make_graph(MPI_COMM_WORLD, 4, index, edges);
    if (g != MPI_COMM_NULL)
        MPI_Comm_free(&g);
    MPI_Comm cart;
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    g = make_graph(cart, 4, index, edges);
    if (g != MPI_COMM_NULL)
        MPI_Comm_free(&g);
    MPI_Comm_free(&cart);
}

/* A random graph (the same on every process: one seed), with self-loops, repeated edges and
 * nodes without neighbours, over all processes and over all but the last. */
static void test_random(void)
{
    srand(4242);
    for (int round = 0; round < 6; round++) {
        int nnodes = round % 2 ? size : size - 1;
        if (nnodes == 0)
            continue;
        int *index = malloc((size_t)nnodes * sizeof *index);
        int *edges = malloc((size_t)nnodes * 6 * sizeof *edges), k = 0;
        for (int i = 0; i < nnodes; i++) {
            int deg = rand() % 6;
            for (int j = 0; j < deg; j++)
                edges[k++] = rand() % nnodes;
            index[i] = k;
        }
        MPI_Comm g = make_graph(MPI_COMM_WORLD, nnodes, index, edges);
        if (g != MPI_COMM_NULL)
            MPI_Comm_free(&g);
        free(index);
        free(edges);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_ring();
    test_example();
    test_random();
    /* no nodes: no process gets a communicator */
    MPI_Comm g;
    int dummy = 0, mapped;
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, 0, &dummy, &dummy, 0, &g), MPI_SUCCESS);
    CHECK(g == MPI_COMM_NULL);
    CHECK_RC(MPI_Graph_map(MPI_COMM_WORLD, 0, &dummy, &dummy, &mapped), MPI_SUCCESS);
    CHECK(mapped == MPI_UNDEFINED);
    MPI_Finalize();
    return 0;
}
