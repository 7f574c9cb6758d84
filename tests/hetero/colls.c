/* Collectives on a communicator of unlike architectures (tests/hetero): with predefined
 * datatypes every collective delivers values (the point-to-point algorithms' typed receives
 * convert them), whichever algorithm is forced (METAMPI_COLL_*); a distributed graph's
 * edges named by other ranks; derived datatypes: colls_derived.c. */
#include "../mpi/check.h"

#include <stdlib.h>

enum { N = 300 };   /* elements per block: eager; and BIG for the rendezvous path */
enum { BIG = 40000 };

static double dval(int r, int i) { return r * 1000.5 + i * 0.25; }
static long lval(int r, int i) { return ((long)r << 35) + i - 7; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *d = malloc(sizeof *d * BIG * (size_t)size), *e = malloc(sizeof *e * BIG * (size_t)size);
    long *l = malloc(sizeof *l * N * (size_t)size), *m = malloc(sizeof *m * N * (size_t)size);
    CHECK(d && e && l && m);

    /* Bcast of doubles from every root, eager and rendezvous sizes */
    for (int root = 0; root < size; root++)
        for (int n = N; n <= BIG; n += BIG - N) {
            for (int i = 0; i < n; i++)
                d[i] = rank == root ? dval(root, i) : 0;
            MPI_Bcast(d, n, MPI_DOUBLE, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(d[i] == dval(root, i));
        }
    /* Allreduce: SUM of longs, MAX of doubles, MINLOC of (double, int) pairs */
    for (int i = 0; i < N; i++)
        l[i] = lval(rank, i), d[i] = dval(rank, i);
    MPI_Allreduce(l, m, N, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        long want = 0;
        for (int r = 0; r < size; r++)
            want += lval(r, i);
        CHECK(m[i] == want);
    }
    MPI_Allreduce(d, e, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(e[i] == dval(size - 1, i));
    struct { double v; int r; } p = { -dval(rank, 1), rank }, q;
    MPI_Allreduce(&p, &q, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(q.r == size - 1 && q.v == -dval(size - 1, 1));
    /* Reduce to the last rank, Scan and Exscan of ints */
    int x = rank + 1, y = -1, z = -1;
    MPI_Reduce(&x, &y, 1, MPI_INT, MPI_PROD, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1) {
        int f = 1;
        for (int r = 1; r <= size; r++)
            f *= r;
        CHECK(y == f);
    }
    MPI_Scan(&x, &z, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(z == (rank + 1) * (rank + 2) / 2);
    MPI_Exscan(&x, &z, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank > 0)
        CHECK(z == rank * (rank + 1) / 2);
    /* Gather, Scatter, Allgather, Alltoall of longs; Reduce_scatter_block of doubles */
    for (int i = 0; i < N; i++)
        l[i] = lval(rank, i);
    MPI_Gather(l, N, MPI_LONG, m, N, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                CHECK(m[(size_t)r * N + i] == lval(r, i));
    if (rank == size - 1)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                m[(size_t)r * N + i] = lval(r + 100, i);
    MPI_Scatter(m, N, MPI_LONG, l, N, MPI_LONG, size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(l[i] == lval(rank + 100, i));
    for (int i = 0; i < N; i++)
        l[i] = lval(rank, i);
    MPI_Allgather(l, N, MPI_LONG, m, N, MPI_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            CHECK(m[(size_t)r * N + i] == lval(r, i));
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            l[(size_t)r * N + i] = lval(rank * size + r, i);
    MPI_Alltoall(l, N, MPI_LONG, m, N, MPI_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            CHECK(m[(size_t)r * N + i] == lval(r * size + rank, i));
    for (int i = 0; i < N * size; i++)
        d[i] = dval(rank, i);
    MPI_Reduce_scatter_block(d, e, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        double want = 0;
        for (int r = 0; r < size; r++)
            want += dval(r, rank * N + i);
        CHECK(e[i] == want);
    }
    /* one element per block: the small-block algorithms (trees, Bruck) */
    long one = lval(rank, 3), *all = m;
    MPI_Gather(&one, 1, MPI_LONG, all, 1, MPI_LONG, size - 1, MPI_COMM_WORLD);
    if (rank == size - 1)
        for (int r = 0; r < size; r++)
            CHECK(all[r] == lval(r, 3));
    MPI_Allgather(&one, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        CHECK(all[r] == lval(r, 3));
    for (int r = 0; r < size; r++)
        l[r] = lval(rank * size + r, 5);
    MPI_Alltoall(l, 1, MPI_LONG, all, 1, MPI_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        CHECK(all[r] == lval(r * size + rank, 5));
    if (rank == 0)
        for (int r = 0; r < size; r++)
            l[r] = lval(r, 9);
    MPI_Scatter(l, 1, MPI_LONG, &one, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    CHECK(one == lval(rank, 9));
    MPI_Barrier(MPI_COMM_WORLD);

    /* a distributed graph made by the library's own exchange (edges named by other ranks):
     * each rank names the edge from its left neighbour to itself, weight left + 1 */
    int left = (rank + size - 1) % size, right = (rank + 1) % size, deg = 1, wgt = left + 1;
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &left, &deg, &rank, &wgt, MPI_INFO_NULL,
                                   0, &g), MPI_SUCCESS);
    int indeg, outdeg, weighted, src, srcw, dst, dstw;
    MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted);
    CHECK(indeg == 1 && outdeg == 1 && weighted);
    MPI_Dist_graph_neighbors(g, 1, &src, &srcw, 1, &dst, &dstw);
    CHECK(src == left && srcw == left + 1 && dst == right && dstw == rank + 1);
    long from = 0, mine = lval(rank, 3);
    MPI_Neighbor_allgather(&mine, 1, MPI_LONG, &from, 1, MPI_LONG, g);
    CHECK(from == lval(left, 3));
    MPI_Comm_free(&g);

    free(d);
    free(e);
    free(l);
    free(m);
    if (rank == 0)
        printf("hetero colls: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
