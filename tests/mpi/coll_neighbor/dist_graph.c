/* Neighbourhood collectives on distributed-graph communicators (MPI-3.1 §7.6: sources and
 * destinations in the order of MPI_Dist_graph_neighbors): adjacent graphs with repeated
 * edges, self-loops, a rank without any neighbour and lists in different orders at the two
 * ends; 40 edges per process (more than the builders keep on the stack); a directed chain
 * (the first rank has no sources, the last no destinations); MPI_Dist_graph_create with
 * edges named by processes other than their ends (weighted and not); no edges. Every
 * collective is checked with nbr.h (the j-th edge from p to q matches the j-th edge from p
 * at q). */
#include "nbr.h"

static int rank, size;

typedef struct edge {
    int s, d;
} edge_t;

/* A distributed graph from the global edge list e[0..ne-1], each process passing its own
 * lists: destinations in list order rotated by rot, sources in reverse list order. */
static void adjacent(const edge_t *e, int ne, int rot)
{
    int *src = nbr_ints(ne), *dst = nbr_ints(ne), nin = 0, nout = 0;
    for (int i = ne - 1; i >= 0; i--)
        if (e[i].d == rank)
            src[nin++] = e[i].s;
    int *tmp = nbr_ints(ne);
    for (int i = 0; i < ne; i++)
        if (e[i].s == rank)
            tmp[nout++] = e[i].d;
    for (int k = 0; k < nout; k++)
        dst[k] = tmp[(k + rot) % nout];
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, MPI_UNWEIGHTED, nout, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
             MPI_SUCCESS);
    nbr_check_all(g);
    MPI_Comm_free(&g);
    free(src);
    free(dst);
    free(tmp);
}

/* MPI_Dist_graph_create: process r names the edges e[i] with i % size == r. */
static void general(const edge_t *e, int ne, int weighted)
{
    int n = 0, *srcs = nbr_ints(ne), *deg = nbr_ints(ne), *dsts = nbr_ints(ne);
    int *w = nbr_ints(ne);
    for (int i = rank; i < ne; i += size) {
        srcs[n] = e[i].s;
        deg[n] = 1;
        dsts[n] = e[i].d;
        w[n] = i;
        n++;
    }
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, n, srcs, deg, dsts,
                                   weighted ? w : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
             MPI_SUCCESS);
    nbr_check_all(g);
    MPI_Comm_free(&g);
    free(srcs);
    free(deg);
    free(dsts);
    free(w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nbr_types();
    int n = size, ne = 0;
    edge_t *e = malloc((size_t)(8 * n + 8) * sizeof *e);
    CHECK(e);

    /* rank n - 1 (for n > 2) has no neighbours at all */
    int live = n > 2 ? n - 1 : n;
    for (int i = 0; i < live; i++) {
        e[ne++] = (edge_t){ i, (i + 1) % live };
        if (i % 2 == 0)
            e[ne++] = (edge_t){ i, (i + 1) % live };
        if (i % 3 == 0)
            e[ne++] = (edge_t){ i, i };
        e[ne++] = (edge_t){ i, (i + 2) % live };
        if (i % 3 == 0)
            e[ne++] = (edge_t){ i, i };
    }
    adjacent(e, ne, 0);
    adjacent(e, ne, 1);
    general(e, ne, 0);
    general(e, ne, 1);

    /* a directed chain */
    ne = 0;
    for (int i = 0; i + 1 < n; i++)
        e[ne++] = (edge_t){ i, i + 1 };
    adjacent(e, ne, 0);
    general(e, ne, 0);

    /* many edges: 40 to the next processes in turn (repeated when size < 40) */
    ne = 0;
    edge_t *many = malloc((size_t)(40 * n) * sizeof *many);
    CHECK(many);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 40; j++)
            many[ne++] = (edge_t){ i, (i + j) % n };
    adjacent(many, ne, 3);
    general(many, ne, 0);
    free(many);

    /* no edges */
    adjacent(e, 0, 0);

    free(e);
    nbr_types_free();
    MPI_Finalize();
    return 0;
}
