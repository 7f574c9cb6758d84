/* Cartesian topologies (MPI-3.1 §7.5.1, §7.5.5–7.5.7): MPI_Cart_create on grids of 0 to 3
 * dimensions (from MPI_Dims_create, and grids smaller than the communicator), periodic,
 * non-periodic and mixed; every rank's coordinates and back (MPI_Cart_coords/Cart_rank, with
 * periodic wrap-around), MPI_Cart_shift against the grid arithmetic and through messages,
 * MPI_Cart_get/Cartdim_get/Topo_test, MPI_Cart_map, MPI_Cart_sub for every subset of
 * dimensions (membership checked by exchanging coordinates), and duplicates that keep the
 * topology while splits drop it. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

/* row-major coordinates of r in a grid of ndims dims */
static void coords_of(int r, int ndims, const int *dims, int *c)
{
    for (int i = ndims - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int rank_of(int ndims, const int *dims, const int *c)
{
    int r = 0;
    for (int i = 0; i < ndims; i++)
        r = r * dims[i] + c[i];
    return r;
}

static int product(int ndims, const int *dims)
{
    int p = 1;
    for (int i = 0; i < ndims; i++)
        p *= dims[i];
    return p;
}

/* Everything a Cartesian communicator must answer, and messages along every direction. */
static void check_cart(MPI_Comm cart, int ndims, const int *dims, const int *periods,
                       int expect_rank)
{
    int n = product(ndims, dims), crank, csize, status, nd;
    MPI_Comm_rank(cart, &crank);
    MPI_Comm_size(cart, &csize);
    CHECK(csize == n);
    CHECK(crank == expect_rank); /* reorder may keep ranks, and metampi does */
    CHECK_RC(MPI_Topo_test(cart, &status), MPI_SUCCESS);
    CHECK(status == MPI_CART);
    CHECK_RC(MPI_Cartdim_get(cart, &nd), MPI_SUCCESS);
    CHECK(nd == ndims);

    int gd[3], gp[3], gc[3], mine[3];
    CHECK_RC(MPI_Cart_get(cart, 3, gd, gp, gc), MPI_SUCCESS);
    coords_of(crank, ndims, dims, mine);
    for (int i = 0; i < ndims; i++) {
        CHECK(gd[i] == dims[i]);
        CHECK(!gp[i] == !periods[i]);
        CHECK(gc[i] == mine[i]);
    }

    for (int r = 0; r < n; r++) {
        int c[3], want[3], back = -1;
        CHECK_RC(MPI_Cart_coords(cart, r, ndims, c), MPI_SUCCESS);
        coords_of(r, ndims, dims, want);
        CHECK(memcmp(c, want, (size_t)ndims * sizeof(int)) == 0);
        CHECK_RC(MPI_Cart_rank(cart, c, &back), MPI_SUCCESS);
        CHECK(back == r);
        /* periodic dimensions wrap in both directions */
        for (int i = 0; i < ndims; i++)
            if (periods[i]) {
                int w[3];
                memcpy(w, c, sizeof w);
                w[i] = c[i] + 3 * dims[i];
                CHECK_RC(MPI_Cart_rank(cart, w, &back), MPI_SUCCESS);
                CHECK(back == r);
                w[i] = c[i] - 2 * dims[i];
                CHECK_RC(MPI_Cart_rank(cart, w, &back), MPI_SUCCESS);
                CHECK(back == r);
            }
    }

    for (int dir = 0; dir < ndims; dir++) {
        for (int disp = -dims[dir] - 1; disp <= dims[dir] + 1; disp++) {
            int src, dst, want_src, want_dst, c[3];
            CHECK_RC(MPI_Cart_shift(cart, dir, disp, &src, &dst), MPI_SUCCESS);
            memcpy(c, mine, sizeof c);
            int to = mine[dir] + disp, from = mine[dir] - disp, d = dims[dir];
            if (periods[dir] || (to >= 0 && to < d)) {
                c[dir] = ((to % d) + d) % d;
                want_dst = rank_of(ndims, dims, c);
            } else {
                want_dst = MPI_PROC_NULL;
            }
            if (periods[dir] || (from >= 0 && from < d)) {
                c[dir] = ((from % d) + d) % d;
                want_src = rank_of(ndims, dims, c);
            } else {
                want_src = MPI_PROC_NULL;
            }
            CHECK(src == want_src);
            CHECK(dst == want_dst);
        }
        /* a halo exchange along dir: each process hears from its source */
        int src, dst, got = -7;
        CHECK_RC(MPI_Cart_shift(cart, dir, 1, &src, &dst), MPI_SUCCESS);
        CHECK_RC(MPI_Sendrecv(&crank, 1, MPI_INT, dst, dir, &got, 1, MPI_INT, src, dir, cart,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(got == (src == MPI_PROC_NULL ? -7 : src));
    }
}

/* MPI_Cart_create on the first product(dims) ranks of MPI_COMM_WORLD, checked. */
static void test_grid(int ndims, const int *dims, const int *periods)
{
    MPI_Comm cart;
    int n = product(ndims, dims);
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &cart), MPI_SUCCESS);
    if (rank >= n) {
        CHECK(cart == MPI_COMM_NULL);
        return;
    }
    CHECK(cart != MPI_COMM_NULL);
    check_cart(cart, ndims, dims, periods, rank);

    int mapped;
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, ndims, dims, periods, &mapped), MPI_SUCCESS);
    CHECK(mapped == rank);

    /* duplicates keep the topology (and get a new context: messages do not cross) */
    MPI_Comm dup, dupi, split;
    CHECK_RC(MPI_Comm_dup(cart, &dup), MPI_SUCCESS);
    check_cart(dup, ndims, dims, periods, rank);
    MPI_Info info;
    MPI_Info_create(&info);
    CHECK_RC(MPI_Comm_dup_with_info(cart, info, &dupi), MPI_SUCCESS);
    MPI_Info_free(&info);
    check_cart(dupi, ndims, dims, periods, rank);
    MPI_Comm idup;
    MPI_Request req;
    CHECK_RC(MPI_Comm_idup(cart, &idup, &req), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_cart(idup, ndims, dims, periods, rank);
    MPI_Comm_free(&idup);
    /* a split is a plain communicator */
    int status;
    CHECK_RC(MPI_Comm_split(cart, 0, rank, &split), MPI_SUCCESS);
    CHECK_RC(MPI_Topo_test(split, &status), MPI_SUCCESS);
    CHECK(status == MPI_UNDEFINED);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dupi);
    MPI_Comm_free(&dup);
    CHECK_RC(MPI_Comm_free(&cart), MPI_SUCCESS);
}

static void test_shapes(void)
{
    static const int period_sets[4][3] = { { 0, 0, 0 }, { 1, 1, 1 }, { 1, 0, 1 }, { 0, 1, 0 } };
    for (int ndims = 1; ndims <= 3; ndims++) {
        int dims[3] = { 0, 0, 0 };
        CHECK_RC(MPI_Dims_create(size, ndims, dims), MPI_SUCCESS);
        for (int p = 0; p < 4; p++)
            test_grid(ndims, dims, period_sets[p]);
        /* the transposed grid */
        int rev[3];
        for (int i = 0; i < ndims; i++)
            rev[i] = dims[ndims - 1 - i];
        test_grid(ndims, rev, period_sets[2]);
    }
    /* grids smaller than the communicator: the others get MPI_COMM_NULL */
    if (size > 1) {
        int d1[1] = { size - 1 }, p1[1] = { 1 };
        test_grid(1, d1, p1);
    }
    if (size >= 3) {
        int d2[2] = { size / 2, 2 }, p2[2] = { 0, 1 };
        test_grid(2, d2, p2);
    }
    int ones[3] = { 1, 1, 1 }, per[3] = { 1, 0, 1 };
    test_grid(3, ones, per); /* a single point; periodic shifts lead back to it */
    test_grid(0, NULL, NULL); /* zero dimensions: one process, rank 0 */

    /* MPI_Cart_map of a grid smaller than the communicator */
    int mapped, d[1] = { 1 }, p[1] = { 0 };
    CHECK_RC(MPI_Cart_map(MPI_COMM_WORLD, 1, d, p, &mapped), MPI_SUCCESS);
    CHECK(mapped == (rank == 0 ? 0 : MPI_UNDEFINED));
}

/* all[3r..3r+2] = the three ints of member r of c (point-to-point: collectives are another
 * chapter) */
static void allgather3(const int *mine, int *all, MPI_Comm c)
{
    int n, me;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    MPI_Request *reqs = malloc((size_t)n * sizeof *reqs);
    for (int r = 0; r < n; r++)
        CHECK_RC(MPI_Isend(mine, 3, MPI_INT, r, 11, c, &reqs[r]), MPI_SUCCESS);
    for (int r = 0; r < n; r++)
        CHECK_RC(MPI_Recv(all + 3 * r, 3, MPI_INT, r, 11, c, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    free(reqs);
}

/* MPI_Cart_sub for every subset of the dimensions of a 3-D grid over all processes. */
static void test_sub(void)
{
    int dims[3] = { 0, 0, 0 }, periods[3] = { 1, 0, 1 }, mine[3];
    MPI_Dims_create(size, 3, dims);
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart), MPI_SUCCESS);
    coords_of(rank, 3, dims, mine);
    for (int mask = 0; mask < 8; mask++) {
        int remain[3], sd[3], sp[3], sc[3], k = 0;
        for (int i = 0; i < 3; i++) {
            remain[i] = (mask >> i) & 1;
            if (remain[i]) {
                sd[k] = dims[i];
                sp[k] = periods[i];
                sc[k++] = mine[i];
            }
        }
        MPI_Comm sub;
        CHECK_RC(MPI_Cart_sub(cart, remain, &sub), MPI_SUCCESS);
#ifndef METAMPI
        /* MPICH gives the zero-dimensional sub-grid to rank 0 only; MPI-3.1 §7.5.7 makes
         * every process one (the sub-grids partition the grid). */
        if (mask == 0 && sub == MPI_COMM_NULL)
            continue;
#endif
        CHECK(sub != MPI_COMM_NULL);
        /* rank in the sub-grid: row-major in the kept coordinates */
        int srank;
        MPI_Comm_rank(sub, &srank);
        CHECK(srank == rank_of(k, sd, sc));
        check_cart(sub, k, sd, sp, srank);
        /* members are exactly the processes that share the dropped coordinates */
        int ssize;
        MPI_Comm_size(sub, &ssize);
        int *all = malloc((size_t)ssize * 3 * sizeof *all);
        allgather3(mine, all, sub);
        for (int r = 0; r < ssize; r++) {
            int kc[3], kk = 0;
            for (int i = 0; i < 3; i++) {
                if (!remain[i])
                    CHECK(all[r * 3 + i] == mine[i]);
                else
                    kc[kk++] = all[r * 3 + i];
            }
            CHECK(rank_of(k, sd, kc) == r);
        }
        free(all);
        /* a sub-grid of the sub-grid: keep its first dimension */
        if (k >= 1) {
            int rem2[3] = { 1, 0, 0 };
            MPI_Comm sub2;
            CHECK_RC(MPI_Cart_sub(sub, rem2, &sub2), MPI_SUCCESS);
            check_cart(sub2, 1, sd, sp, sc[0]);
            MPI_Comm_free(&sub2);
        }
        MPI_Comm_free(&sub);
    }
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int status;
    CHECK_RC(MPI_Topo_test(MPI_COMM_WORLD, &status), MPI_SUCCESS);
    CHECK(status == MPI_UNDEFINED);
    test_shapes();
    test_sub();
    MPI_Finalize();
    return 0;
}
