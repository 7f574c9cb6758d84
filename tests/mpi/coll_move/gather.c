/* MPI_Gather(v), MPI_Scatter(v) and their I-forms on intra-communicators: every root, block
 * sizes from 0 past the linear threshold, MPI_IN_PLACE at the root, different layouts on the
 * two sides and at different ranks, v-form blocks of different sizes (zeros among them) in a
 * rank-specific order with gaps that must stay untouched, and on a split communicator. */
#include "common.h"

static void gather(MPI_Comm comm, int root, long k, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 1) % NLAYOUTS];
    int *sb = lalloc(ls, k), *rb = lalloc(lr, me == root ? k * n : 0);
    for (long i = 0; i < k; i++) {
        LAT(ls, sb, i) = val(me, root, i, iter);
        if (inplace && me == root)
            LAT(lr, rb, me * k + i) = val(me, root, i, iter);
    }
    const void *s = inplace && me == root ? MPI_IN_PLACE : sb;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Igather(s, (int)k, ls->type, rb, (int)k, lr->type, root, comm,
                                      &req)
                        : MPI_Gather(s, (int)k, ls->type, rb, (int)k, lr->type, root, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (me == root) {
        for (int r = 0; r < n; r++)
            for (long i = 0; i < k; i++)
                CHECK(LAT(lr, rb, r * k + i) == val(r, root, i, iter));
        CHECK(lholes_ok(lr, rb, k * n));
    } else {
        CHECK(lholes_ok(lr, rb, 0));
    }
    free(sb);
    free(rb);
}

static void scatter(MPI_Comm comm, int root, long k, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 1) % NLAYOUTS];
    int *sb = lalloc(ls, me == root ? k * n : 0), *rb = lalloc(lr, k);
    if (me == root)
        for (int r = 0; r < n; r++)
            for (long i = 0; i < k; i++)
                LAT(ls, sb, r * k + i) = val(root, r, i, iter);
    void *r = inplace && me == root ? MPI_IN_PLACE : rb;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Iscatter(sb, (int)k, ls->type, r, (int)k, lr->type, root, comm,
                                       &req)
                        : MPI_Scatter(sb, (int)k, ls->type, r, (int)k, lr->type, root, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (!(inplace && me == root))
        for (long i = 0; i < k; i++)
            CHECK(LAT(lr, rb, i) == val(root, me, i, iter));
    CHECK(lholes_ok(lr, rb, inplace && me == root ? 0 : k));
    if (me == root) /* the send buffer is left alone */
        for (int q = 0; q < n; q++)
            for (long i = 0; i < k; i++)
                CHECK(LAT(ls, sb, q * k + i) == val(root, q, i, iter));
    free(sb);
    free(rb);
}

static int vcount(int r, int iter, long scale)
{
    return (int)(((r * 3 + iter) % 5) * scale);
}

/* the root's counts and displacements: blocks in a root-specific order, one int of gap after
 * each; returns the span */
static long vlayout(int root, int n, int iter, long scale, int *counts, int *displs)
{
    long total = 0;
    for (int j = 0; j < n; j++) {
        int r = (n - 1 - j + root) % n;
        counts[r] = vcount(r, iter, scale);
        displs[r] = (int)total;
        total += counts[r] + 1;
    }
    return total;
}

static void gatherv(MPI_Comm comm, int root, long scale, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 2) % NLAYOUTS];
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    long total = vlayout(root, n, iter, scale, counts, displs);
    int k = vcount(me, iter, scale);
    int *sb = lalloc(ls, k), *rb = lalloc(lr, me == root ? total : 0);
    for (long i = 0; i < k; i++) {
        LAT(ls, sb, i) = val(me, root, i, iter);
        if (inplace && me == root)
            LAT(lr, rb, displs[me] + i) = val(me, root, i, iter);
    }
    const void *s = inplace && me == root ? MPI_IN_PLACE : sb;
    /* counts and displacements matter at the root only */
    const int *rc = me == root ? counts : NULL, *rd = me == root ? displs : NULL;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Igatherv(s, k, ls->type, rb, rc, rd, lr->type, root, comm, &req)
                        : MPI_Gatherv(s, k, ls->type, rb, rc, rd, lr->type, root, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (me == root) {
        for (int r = 0; r < n; r++) {
            for (long i = 0; i < counts[r]; i++)
                CHECK(LAT(lr, rb, displs[r] + i) == val(r, root, i, iter));
            CHECK(LAT(lr, rb, displs[r] + counts[r]) == HOLE);
        }
        CHECK(lholes_ok(lr, rb, total));
    }
    free(sb), free(rb), free(counts), free(displs);
}

static void scatterv(MPI_Comm comm, int root, long scale, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 2) % NLAYOUTS];
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    long total = vlayout(root, n, iter, scale, counts, displs);
    int k = vcount(me, iter, scale);
    int *sb = lalloc(ls, me == root ? total : 0), *rb = lalloc(lr, k);
    if (me == root)
        for (int r = 0; r < n; r++)
            for (long i = 0; i < counts[r]; i++)
                LAT(ls, sb, displs[r] + i) = val(root, r, i, iter);
    void *r = inplace && me == root ? MPI_IN_PLACE : rb;
    const int *sc = me == root ? counts : NULL, *sd = me == root ? displs : NULL;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Iscatterv(sb, sc, sd, ls->type, r, k, lr->type, root, comm, &req)
                        : MPI_Scatterv(sb, sc, sd, ls->type, r, k, lr->type, root, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (!(inplace && me == root))
        for (long i = 0; i < k; i++)
            CHECK(LAT(lr, rb, i) == val(root, me, i, iter));
    CHECK(lholes_ok(lr, rb, inplace && me == root ? 0 : k));
    free(sb), free(rb), free(counts), free(displs);
}

static void all(MPI_Comm comm)
{
    static const long sizes[] = { 0, 1, 5, 300, 6000 };
    static const long scales[] = { 0, 1, 40, 3000 };
    int n = size_of(comm), iter = 0;
    for (int root = 0; root < n; root++) {
        for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++)
            for (int inplace = 0; inplace < 2; inplace++) {
                gather(comm, root, sizes[k], inplace, iter++);
                scatter(comm, root, sizes[k], inplace, iter++);
            }
        for (unsigned k = 0; k < sizeof scales / sizeof *scales; k++)
            for (int inplace = 0; inplace < 2; inplace++) {
                gatherv(comm, root, scales[k], inplace, iter++);
                scatterv(comm, root, scales[k], inplace, iter++);
            }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    layouts_init();
    MPI_Comm c[NCOMMS];
    comms_create(c);
    for (int i = 0; i < NCOMMS; i++)
        all(c[i]);
    comms_free(c);
    layouts_free();
    MPI_Finalize();
    return 0;
}
