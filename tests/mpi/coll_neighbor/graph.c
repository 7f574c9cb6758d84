/* Neighbourhood collectives on graph communicators (MPI_Graph_create, MPI-3.1 §7.6: the
 * adjacency must be symmetric; neighbours in MPI_Graph_neighbors order): a ring, the same
 * ring with repeated edges and self-loops (several edges between one pair, listed in a
 * different order at each end), a star, a graph without edges, and a graph of fewer nodes
 * than MPI_COMM_WORLD. Every collective is checked with nbr.h (the j-th edge from p to q
 * matches the j-th edge from p at q). */
#include "nbr.h"

static int rank, size;

/* Creates the graph of n nodes whose symmetric adjacency counts are a[i * n + j]; node i
 * lists its neighbours starting at j = (i + rot) % n. */
static void graph(int n, const int *a, int rot)
{
    int *index = nbr_ints(n), nedges = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            nedges += a[i * n + j];
    int *edges = nbr_ints(nedges), e = 0;
    for (int i = 0; i < n; i++) {
        for (int x = 0; x < n; x++) {
            int j = (i + rot + x) % n;
            for (int m = 0; m < a[i * n + j]; m++)
                edges[e++] = j;
        }
        index[i] = e;
    }
    MPI_Comm g;
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g), MPI_SUCCESS);
    if (g != MPI_COMM_NULL) {
        nbr_check_all(g);
        MPI_Comm_free(&g);
    }
    free(index);
    free(edges);
}

static void link2(int *a, int n, int i, int j, int m)
{
    a[i * n + j] += m;
    if (i != j)
        a[j * n + i] += m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nbr_types();
    int n = size, *a = calloc((size_t)n * n, sizeof *a);
    CHECK(a);

    /* ring (at n = 2 the two edges join the same pair, at n = 1 it is a self-loop twice) */
    for (int i = 0; i < n; i++)
        link2(a, n, i, (i + 1) % n, 1);
    graph(n, a, 0);

    /* repeated edges and self-loops, neighbour lists rotated */
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            link2(a, n, i, (i + 1) % n, 2);
        if (i % 3 == 0)
            link2(a, n, i, i, 1 + i % 2);
    }
    graph(n, a, 1);
    graph(n, a, n / 2);

    /* star around node 0 */
    memset(a, 0, (size_t)n * n * sizeof *a);
    for (int i = 1; i < n; i++)
        link2(a, n, 0, i, 1);
    graph(n, a, 0);

    /* no edges */
    memset(a, 0, (size_t)n * n * sizeof *a);
    graph(n, a, 0);

    /* fewer nodes than processes: a ring of n - 1 */
    if (n > 2) {
        int m = n - 1, *b = calloc((size_t)m * m, sizeof *b);
        CHECK(b);
        for (int i = 0; i < m; i++)
            link2(b, m, i, (i + 1) % m, 1);
        graph(m, b, 0);
        free(b);
    }

    free(a);
    nbr_types_free();
    MPI_Finalize();
    return 0;
}
