/*
 * Topology internals: topo_dims_create against an exhaustive reference (every nonincreasing
 * factorisation, ranked by the definition in core/topo_dims.c), with presets and extreme
 * sizes; Cartesian coordinates, ranks and shifts against direct arithmetic; graph and
 * distributed-graph storage.
 */
#include "core/topo_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"


/* ---- reference: all nonincreasing factorisations ------------------------------------ */
typedef struct ref {
    int k, cur[64], best[64], found;
    long long range, sum;
} ref_t;

/* Ranks a complete candidate: smaller range, then smaller sum, then lexicographically
 * larger. */
static void ref_visit(ref_t *r)
{
    long long range = r->cur[0] - r->cur[r->k - 1], sum = 0;
    for (int i = 0; i < r->k; i++)
        sum += r->cur[i];
    int better = !r->found || range < r->range || (range == r->range && sum < r->sum);
    if (r->found && range == r->range && sum == r->sum)
        for (int i = 0; i < r->k; i++)
            if (r->cur[i] != r->best[i]) {
                better = r->cur[i] > r->best[i];
                break;
            }
    if (better) {
        r->found = 1;
        r->range = range;
        r->sum = sum;
        memcpy(r->best, r->cur, sizeof r->cur);
    }
}

static void ref_search(ref_t *r, int depth, int rem, int maxd)
{
    if (depth == r->k - 1) {
        if (rem <= maxd) {
            r->cur[depth] = rem;
            ref_visit(r);
        }
        return;
    }
    for (int d = 1; d <= maxd && d <= rem; d++)
        if (rem % d == 0) {
            r->cur[depth] = d;
            ref_search(r, depth + 1, rem / d, d);
        }
}

static void check_dims(int n, int k)
{
    ref_t r = { .k = k };
    ref_search(&r, 0, n, n);
    int dims[64] = { 0 };
    EXPECT(topo_dims_create(n, k, dims) == 0);
    if (memcmp(dims, r.best, (size_t)k * sizeof(int)) != 0) {
        fprintf(stderr, "FAIL dims_create(%d, %d):", n, k);
        for (int i = 0; i < k; i++)
            fprintf(stderr, " %d/%d", dims[i], r.best[i]);
        fprintf(stderr, " (got/want)\n");
        if (++failures > 20)
            exit(1);
    }
}

static void expect_dims(int n, int k, const int *preset, const int *want)
{
    int dims[16];
    memcpy(dims, preset, (size_t)k * sizeof(int));
    int rc = topo_dims_create(n, k, dims);
    if (!want) {
        EXPECT(rc != 0);
        return;
    }
    EXPECT(rc == 0);
    EXPECT(memcmp(dims, want, (size_t)k * sizeof(int)) == 0);
}

static void test_dims(void)
{
    for (int k = 1; k <= 5; k++)
        for (int n = 1; n <= (k <= 3 ? 3000 : 1200); n++)
            check_dims(n, k);
    for (int n = 1; n <= 300; n++)
        check_dims(n, 9);
    srand(7); /* larger sizes, sampled */
    for (int i = 0; i < 300; i++)
        check_dims(1 + rand() % 200000, 2 + i % 3);
    /* the exact search finds what a greedy one misses */
    expect_dims(360, 3, (int[]){ 0, 0, 0 }, (int[]){ 10, 6, 6 });
    expect_dims(20, 4, (int[]){ 0, 0, 0, 0 }, (int[]){ 5, 2, 2, 1 });
    /* presets: fixed entries stay, the rest get the balanced split of the quotient */
    expect_dims(24, 3, (int[]){ 0, 3, 0 }, (int[]){ 4, 3, 2 });
    expect_dims(12, 3, (int[]){ 2, 0, 0 }, (int[]){ 2, 3, 2 });
    expect_dims(12, 2, (int[]){ 3, 4 }, (int[]){ 3, 4 });
    expect_dims(7, 2, (int[]){ 7, 0 }, (int[]){ 7, 1 });
    expect_dims(12, 2, (int[]){ 5, 0 }, NULL); /* not a multiple */
    expect_dims(12, 2, (int[]){ 2, 2 }, NULL); /* all fixed, product 4 */
    expect_dims(12, 2, (int[]){ 24, 0 }, NULL);
    expect_dims(1, 0, (int[]){ 0 }, (int[]){ 0 });
    expect_dims(5, 0, (int[]){ 0 }, NULL); /* a zero-dimensional grid has one point */
    /* extremes: a large prime, a power of two, a highly composite number, many dimensions */
    expect_dims(2147483647, 3, (int[]){ 0, 0, 0 }, (int[]){ 2147483647, 1, 1 });
    expect_dims(1 << 30, 3, (int[]){ 0, 0, 0 }, (int[]){ 1024, 1024, 1024 });
    expect_dims(1 << 30, 16, (int[16]){ 0 },
                (int[]){ 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2 });
    int big[1000] = { 0 };
    EXPECT(topo_dims_create(735134400, 1000, big) == 0);
    long long prod = 1;
    for (int i = 0; i < 1000; i++) {
        prod *= big[i];
        EXPECT(i == 0 || big[i] <= big[i - 1]);
    }
    EXPECT(prod == 735134400);
    EXPECT(big[0] == 7 || big[0] <= 17); /* balanced: no huge factor */
    int hc[6] = { 0 };
    EXPECT(topo_dims_create(735134400, 6, hc) == 0);
    EXPECT((long long)hc[0] * hc[1] * hc[2] * hc[3] * hc[4] * hc[5] == 735134400);
}

/* ---- Cartesian ---------------------------------------------------------------------- */
static void test_cart(void)
{
    int dims[3] = { 3, 4, 5 }, periods[3] = { 1, 0, 7 };
    EXPECT(topo_cart_size(3, dims, 1000) == 60);
    EXPECT(topo_cart_size(3, dims, 59) == -1);
    EXPECT(topo_cart_size(0, dims, 1) == 1);
    int big[3] = { 1 << 20, 1 << 20, 1 << 20 };
    EXPECT(topo_cart_size(3, big, 1 << 30) == -1);
    for (int r = 0; r < 60; r++) {
        topo_t *t = topo_cart_new(3, dims, periods, r);
        EXPECT(t && t->kind == MPI_CART && t->ndims == 3);
        EXPECT(t->periods[2] == 1);
        int c[3];
        topo_cart_coords(t, r, c);
        EXPECT(c[0] == r / 20 && c[1] == r / 5 % 4 && c[2] == r % 5);
        EXPECT(memcmp(c, t->coords, sizeof c) == 0);
        EXPECT(topo_cart_rank(t, c) == r);
        int w[3] = { c[0] + 3 * 7, c[1], c[2] - 5 * 3 }; /* periodic wrap */
        EXPECT(topo_cart_rank(t, w) == r);
        int out[3] = { c[0], -1, c[2] };
        EXPECT(topo_cart_rank(t, out) == -1);
        out[1] = 4;
        EXPECT(topo_cart_rank(t, out) == -1);
        for (int disp = -7; disp <= 7; disp++) {
            int src, dst;
            topo_cart_shift(t, 0, disp, &src, &dst); /* periodic, stride 20 */
            EXPECT(dst == ((c[0] + disp) % 3 + 3) % 3 * 20 + r % 20);
            EXPECT(src == ((c[0] - disp) % 3 + 3) % 3 * 20 + r % 20);
            topo_cart_shift(t, 1, disp, &src, &dst); /* non-periodic, stride 5 */
            int to = c[1] + disp, from = c[1] - disp;
            EXPECT(dst == (to < 0 || to > 3 ? MPI_PROC_NULL : r + disp * 5));
            EXPECT(src == (from < 0 || from > 3 ? MPI_PROC_NULL : r - disp * 5));
        }
        int src, dst;
        topo_cart_shift(t, 2, 2147483647, &src, &dst); /* no overflow */
        EXPECT(dst == r - c[2] + (int)((c[2] + 2147483647LL) % 5));
        topo_cart_shift(t, 1, -2147483647 - 1, &src, &dst);
        EXPECT(src == MPI_PROC_NULL && dst == MPI_PROC_NULL);
        topo_t *copy = topo_copy(t);
        EXPECT(copy && copy->coords[1] == c[1]);
        topo_free(copy);
        topo_free(t);
    }
    topo_t *z = topo_cart_new(0, NULL, NULL, 0);
    EXPECT(z && z->ndims == 0 && topo_cart_rank(z, NULL) == 0);
    topo_free(z);
}

/* ---- graphs ------------------------------------------------------------------------- */
static void test_graph(void)
{
    /* the standard's example: 0-{1,3}, 1-{0}, 2-{3}, 3-{0,2} */
    int index[4] = { 2, 3, 4, 6 }, edges[6] = { 1, 3, 0, 3, 0, 2 };
    topo_t *t = topo_graph_new(4, index, edges);
    EXPECT(t && t->kind == MPI_GRAPH && t->nnodes == 4 && t->nedges == 6);
    const int *nb;
    int n;
    topo_graph_neighbors(t, 0, &nb, &n);
    EXPECT(n == 2 && nb[0] == 1 && nb[1] == 3);
    topo_graph_neighbors(t, 2, &nb, &n);
    EXPECT(n == 1 && nb[0] == 3);
    topo_graph_neighbors(t, 3, &nb, &n);
    EXPECT(n == 2 && nb[0] == 0 && nb[1] == 2);
    topo_free(t);
    t = topo_graph_new(0, NULL, NULL);
    EXPECT(t && t->nnodes == 0 && t->nedges == 0);
    topo_free(t);

    int s[2] = { 4, 5 }, sw[2] = { 1, 2 }, d[1] = { 6 }, dw[1] = { 3 };
    t = topo_dist_graph_new(2, s, sw, 1, d, dw, 1);
    EXPECT(t && t->kind == MPI_DIST_GRAPH && t->weighted && t->indegree == 2);
    EXPECT(t->sources[1] == 5 && t->sourceweights[1] == 2 && t->destweights[0] == 3);
    topo_t *copy = topo_copy(t);
    EXPECT(copy && copy->destinations[0] == 6 && copy->sourceweights[0] == 1);
    topo_free(copy);
    topo_free(t);
    t = topo_dist_graph_new(2, s, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, 0);
    EXPECT(t && !t->weighted && !t->sourceweights && t->outdegree == 0);
    copy = topo_copy(t);
    EXPECT(copy && !copy->sourceweights && copy->sources[0] == 4);
    topo_free(copy);
    topo_free(t);
}

int main(void)
{
    test_dims();
    test_cart();
    test_graph();
    return expect_done("topo");
}
