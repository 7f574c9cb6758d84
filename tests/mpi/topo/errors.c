/* Error paths of the topology calls, with MPI_ERRORS_RETURN: communicators without (or with
 * the wrong) topology (MPI_ERR_TOPOLOGY), bad dimensions (MPI_ERR_DIMS), bad arguments
 * (MPI_ERR_ARG), ranks outside the communicator (MPI_ERR_RANK), inter-communicators and
 * invalid handles (MPI_ERR_COMM), bad info (MPI_ERR_INFO). Every process makes the same
 * erroneous call, so collective constructors fail everywhere before communicating. The error
 * goes to the handler of the communicator named in the call. Checks MPICH does not make (it
 * returns success, another class, or crashes) are under #ifdef METAMPI. */
#include "../check.h"

#include <stdlib.h>

static int rank, size;

static int err_class(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT_ERR(call, cls) CHECK(err_class(call) == (cls))
#ifdef METAMPI
#define EXPECT_ERR_METAMPI(call, cls) EXPECT_ERR(call, cls)
#else
#define EXPECT_ERR_METAMPI(call, cls)                                                          \
    do {                                                                                       \
        if (0)                                                                                 \
            (void)(call); /* not made: its arguments still count as used */                    \
    } while (0)
#endif

static int handler_calls;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

/* Queries that need a topology the communicator does not have. */
static void expect_no_cart(MPI_Comm c)
{
    int i, a[4];
    MPI_Comm nc;
    EXPECT_ERR(MPI_Cartdim_get(c, &i), MPI_ERR_TOPOLOGY);
    EXPECT_ERR_METAMPI(MPI_Cart_get(c, 4, a, a, a), MPI_ERR_TOPOLOGY); /* MPICH crashes */
    EXPECT_ERR(MPI_Cart_coords(c, 0, 4, a), MPI_ERR_TOPOLOGY);
    a[0] = a[1] = 0;
    EXPECT_ERR(MPI_Cart_rank(c, a, &i), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Cart_shift(c, 0, 1, &i, &i), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Cart_sub(c, a, &nc), MPI_ERR_TOPOLOGY);
}

static void expect_no_graph(MPI_Comm c)
{
    int i, j, a[4];
    EXPECT_ERR(MPI_Graphdims_get(c, &i, &j), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Graph_get(c, 4, 4, a, a), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Graph_neighbors_count(c, 0, &i), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Graph_neighbors(c, 0, 4, a), MPI_ERR_TOPOLOGY);
}

static void expect_no_dist_graph(MPI_Comm c)
{
    int i, j, k, a[4];
    EXPECT_ERR(MPI_Dist_graph_neighbors_count(c, &i, &j, &k), MPI_ERR_TOPOLOGY);
    EXPECT_ERR(MPI_Dist_graph_neighbors(c, 4, a, a, 4, a, a), MPI_ERR_TOPOLOGY);
}

static void test_constructors(void)
{
    MPI_Comm nc = MPI_COMM_WORLD;
    int dims[2] = { size, 1 }, periods[2] = { 0, 0 }, r;
    int big[2] = { size + 1, 1 }, zero[2] = { 0, 1 }, neg[2] = { size, -1 };
    EXPECT_ERR(MPI_Cart_create(MPI_COMM_NULL, 2, dims, periods, 0, &nc), MPI_ERR_COMM);
    EXPECT_ERR(MPI_Cart_map(MPI_COMM_WORLD, 2, big, periods, &r), MPI_ERR_DIMS);
    EXPECT_ERR_METAMPI(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &nc), MPI_ERR_DIMS);
    EXPECT_ERR_METAMPI(MPI_Cart_create(MPI_COMM_WORLD, 2, big, periods, 0, &nc), MPI_ERR_DIMS);
    EXPECT_ERR_METAMPI(MPI_Cart_create(MPI_COMM_WORLD, 2, zero, periods, 0, &nc), MPI_ERR_DIMS);
    EXPECT_ERR_METAMPI(MPI_Cart_create(MPI_COMM_WORLD, 2, neg, periods, 0, &nc), MPI_ERR_DIMS);
    EXPECT_ERR_METAMPI(MPI_Cart_create(MPI_COMM_WORLD, 2, NULL, periods, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR_METAMPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, NULL), MPI_ERR_ARG);
    EXPECT_ERR_METAMPI(MPI_Cart_map(MPI_COMM_WORLD, -1, dims, periods, &r), MPI_ERR_DIMS);
    EXPECT_ERR_METAMPI(MPI_Cart_map(MPI_COMM_WORLD, 2, neg, periods, &r), MPI_ERR_DIMS);
    CHECK(nc == MPI_COMM_WORLD); /* untouched by the failed calls */

    int index[2] = { 1, 2 }, edges[2] = { 1, 0 }, down[2] = { 2, 1 }, far[2] = { 1, size + 3 };
    /* nodes 2 and size of a 2-node graph (MPICH takes them when they are ranks or size) */
    int outside[2] = { 1, 2 }, edge_size[2] = { 1, size };
    EXPECT_ERR(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Graph_map(MPI_COMM_WORLD, size + 1, index, edges, &r), MPI_ERR_ARG);
    if (size >= 2) {
        EXPECT_ERR(MPI_Graph_create(MPI_COMM_WORLD, 2, down, edges, 0, &nc), MPI_ERR_ARG);
        EXPECT_ERR(MPI_Graph_create(MPI_COMM_WORLD, 2, index, far, 0, &nc), MPI_ERR_ARG);
        EXPECT_ERR_METAMPI(MPI_Graph_create(MPI_COMM_WORLD, 2, index, outside, 0, &nc),
                           MPI_ERR_ARG);
        EXPECT_ERR_METAMPI(MPI_Graph_create(MPI_COMM_WORLD, 2, index, edge_size, 0, &nc),
                           MPI_ERR_ARG);
        EXPECT_ERR_METAMPI(MPI_Graph_map(MPI_COMM_WORLD, 2, index, far, &r), MPI_ERR_ARG);
        EXPECT_ERR_METAMPI(MPI_Graph_map(MPI_COMM_WORLD, 2, down, edges, &r), MPI_ERR_ARG);
    }
    EXPECT_ERR_METAMPI(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR_METAMPI(MPI_Graph_create(MPI_COMM_WORLD, 1, NULL, edges, 0, &nc), MPI_ERR_ARG);

    int one = 1, zero1 = 0, self = rank, out = size, negw = -1, negd = -1;
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, &self, &one, &self, &one,
                                     MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, &self, &one, 1, &self, &one,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, &one, -1, &self, &one,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
#ifdef METAMPI
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &out, &one, &self, &one, MPI_INFO_NULL,
                                     0, &nc), MPI_ERR_RANK);
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &self, &one, &out, &one, MPI_INFO_NULL,
                                     0, &nc), MPI_ERR_RANK);
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &self, &negd, &self, &one,
                                     MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &self, &one, &self, &negw,
                                     MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &self, &one, &self, MPI_WEIGHTS_EMPTY,
                                     MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, NULL, &one, &self, &one,
                                     MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &out, &one, 0, NULL, &zero1,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_RANK);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, &negw, 1, &self, &one,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, MPI_UNWEIGHTED, 1,
                                              &self, &one, MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, NULL, 1, &self, &one,
                                              MPI_INFO_NULL, 0, &nc), MPI_ERR_ARG);
    /* an info handle that is not one (a freed one) */
    MPI_Info info, freed;
    MPI_Info_create(&info);
    freed = info;
    MPI_Info_free(&info);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                              MPI_UNWEIGHTED, freed, 0, &nc), MPI_ERR_INFO);
    EXPECT_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, freed,
                                     0, &nc), MPI_ERR_INFO);
#endif
    (void)zero1;
    (void)out;
    (void)negw;
    (void)negd;
    CHECK(nc == MPI_COMM_WORLD);
}

static void test_cart_queries(void)
{
    int dims[2] = { size, 1 }, periods[2] = { 0, 1 }, a[4], i, j;
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_SUCCESS);
    /* the new communicator inherits MPI_ERRORS_RETURN; now count what reaches it */
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(cart, eh);
    MPI_Errhandler_free(&eh);
    handler_calls = 0;
    EXPECT_ERR(MPI_Cart_coords(cart, size, 2, a), MPI_ERR_RANK);
    EXPECT_ERR(MPI_Cart_coords(cart, -1, 2, a), MPI_ERR_RANK);
    EXPECT_ERR(MPI_Cart_coords(cart, 0, 1, a), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Cart_shift(cart, 2, 1, &i, &j), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Cart_shift(cart, -1, 1, &i, &j), MPI_ERR_ARG);
    CHECK(handler_calls == 5);
    int bad[2] = { size, 0 }, wrap[2] = { 0, 7 };
    CHECK_RC(MPI_Cart_rank(cart, wrap, &i), MPI_SUCCESS); /* periodic: wraps */
    CHECK(i == 0);
#ifdef METAMPI
    EXPECT_ERR(MPI_Cart_rank(cart, bad, &i), MPI_ERR_RANK); /* MPICH: MPI_ERR_ARG */
    bad[0] = -1;
    EXPECT_ERR(MPI_Cart_rank(cart, bad, &i), MPI_ERR_RANK);
    EXPECT_ERR(MPI_Cart_get(cart, 1, a, a, a), MPI_ERR_ARG); /* MPICH: success */
    EXPECT_ERR(MPI_Cart_get(cart, 2, a, NULL, a), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Cartdim_get(cart, NULL), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Cart_shift(cart, 0, 1, NULL, &j), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Topo_test(cart, NULL), MPI_ERR_ARG);
    CHECK(handler_calls == 12);
#endif
    (void)bad;
    expect_no_graph(cart);
    expect_no_dist_graph(cart);
    MPI_Comm_free(&cart);
    expect_no_cart(MPI_COMM_WORLD);
    expect_no_graph(MPI_COMM_WORLD);
    expect_no_dist_graph(MPI_COMM_WORLD);
    expect_no_cart(MPI_COMM_SELF);
}

static void test_graph_queries(void)
{
    /* a ring over all processes */
    int *index = malloc((size_t)size * sizeof *index), *edges = malloc((size_t)size * sizeof *edges);
    for (int i = 0; i < size; i++) {
        index[i] = i + 1;
        edges[i] = (i + 1) % size;
    }
    MPI_Comm g, d;
    CHECK_RC(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &g), MPI_SUCCESS);
    int n, a[4];
    EXPECT_ERR(MPI_Graph_neighbors_count(g, size, &n), MPI_ERR_RANK);
    EXPECT_ERR(MPI_Graph_neighbors(g, -1, 4, a), MPI_ERR_RANK);
    EXPECT_ERR_METAMPI(MPI_Graph_neighbors(g, 0, 0, a), MPI_ERR_ARG); /* MPICH: success */
    EXPECT_ERR(MPI_Graph_get(g, size - 1, size, a, a), MPI_ERR_ARG);
    EXPECT_ERR(MPI_Graph_get(g, size, size - 1, a, a), MPI_ERR_ARG);
    expect_no_cart(g);
    expect_no_dist_graph(g);
    MPI_Comm_free(&g);

    int self = rank;
    CHECK_RC(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &self, MPI_UNWEIGHTED, 1, &self,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d), MPI_SUCCESS);
    EXPECT_ERR(MPI_Dist_graph_neighbors(d, 0, a, MPI_UNWEIGHTED, 1, a, MPI_UNWEIGHTED),
               MPI_ERR_ARG);
    EXPECT_ERR(MPI_Dist_graph_neighbors(d, 1, a, MPI_UNWEIGHTED, 0, a, MPI_UNWEIGHTED),
               MPI_ERR_ARG);
    expect_no_cart(d);
    expect_no_graph(d);
    MPI_Comm_free(&d);
    free(index);
    free(edges);
}

/* Topologies are built on intra-communicators only. */
static void test_intercomm(void)
{
    if (size < 2)
        return;
    MPI_Comm half, inter, nc;
    int color = rank < size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? size / 2 : 0, 17, &inter),
             MPI_SUCCESS);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int dims[1] = { 1 }, periods[1] = { 0 }, r, status, idx[1] = { 0 }, one = 1, zero = 0;
    EXPECT_ERR(MPI_Cart_create(inter, 1, dims, periods, 0, &nc), MPI_ERR_COMM);
    /* MPICH does not check the maps */
    EXPECT_ERR_METAMPI(MPI_Cart_map(inter, 1, dims, periods, &r), MPI_ERR_COMM);
    EXPECT_ERR(MPI_Graph_create(inter, 1, &one, idx, 0, &nc), MPI_ERR_COMM);
    EXPECT_ERR_METAMPI(MPI_Graph_map(inter, 1, &one, idx, &r), MPI_ERR_COMM);
    EXPECT_ERR(MPI_Dist_graph_create_adjacent(inter, 0, &zero, MPI_UNWEIGHTED, 0, &zero,
                                              MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &nc),
               MPI_ERR_COMM);
    EXPECT_ERR(MPI_Dist_graph_create(inter, 0, &zero, &zero, &zero, MPI_UNWEIGHTED,
                                     MPI_INFO_NULL, 0, &nc), MPI_ERR_COMM);
    CHECK_RC(MPI_Topo_test(inter, &status), MPI_SUCCESS);
    CHECK(status == MPI_UNDEFINED);
    expect_no_cart(inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_constructors();
    test_cart_queries();
    test_graph_queries();
    test_intercomm();
#ifdef METAMPI
    /* a freed communicator is no communicator */
    MPI_Comm dup, freed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    freed = dup;
    MPI_Comm_free(&dup);
    int s, dims[1] = { 1 }, periods[1] = { 0 };
    EXPECT_ERR(MPI_Topo_test(freed, &s), MPI_ERR_COMM);
    EXPECT_ERR(MPI_Cart_create(freed, 1, dims, periods, 0, &dup), MPI_ERR_COMM);
    EXPECT_ERR(MPI_Cartdim_get(freed, &s), MPI_ERR_COMM);
#endif
    MPI_Finalize();
    return 0;
}
