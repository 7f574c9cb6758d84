/* The data-movement collectives on inter-communicators (MPI-3.1 §5.2.2): rooted ones with
 * MPI_ROOT / MPI_PROC_NULL / the remote root, from either group and every root; the
 * all-to-all ones between groups of different sizes; blocking and I-forms; different layouts;
 * zero counts; MPI_IN_PLACE refused. Two inter-communicators: a small and a large left group. */
#include "common.h"

static MPI_Comm inter;
static int grp, lrank, lsize, rsize;

/* a process's identity across both groups */
static int gid(int group, int rank)
{
    return group * 1000 + rank;
}

/* root argument for a collective rooted at rank r of group g */
static int root_arg(int g, int r)
{
    return grp == g ? (lrank == r ? MPI_ROOT : MPI_PROC_NULL) : r;
}

static void bcast(int g, int r, long k, int iter)
{
    int nb = iter & 1, root = root_arg(g, r);
    const layout_t *l = &L[(lrank + grp + iter) % NLAYOUTS];
    int *b = lalloc(l, k);
    if (root == MPI_ROOT)
        for (long i = 0; i < k; i++)
            LAT(l, b, i) = val(gid(g, r), 0, i, iter);
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Ibcast(b, (int)k, l->type, root, inter, &req)
                        : MPI_Bcast(b, (int)k, l->type, root, inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (root != MPI_PROC_NULL)
        for (long i = 0; i < k; i++)
            CHECK(LAT(l, b, i) == val(gid(g, r), 0, i, iter));
    CHECK(lholes_ok(l, b, root == MPI_PROC_NULL ? 0 : k));
    free(b);
}

static void gather_scatter(int g, int r, long k, int iter)
{
    int nb = iter & 1, root = root_arg(g, r);
    const layout_t *ls = &L[(lrank + iter) % NLAYOUTS], *lr = &L[(lrank + iter + 1) % NLAYOUTS];
    /* gather: the root receives rsize blocks */
    int *sb = lalloc(ls, k), *rb = lalloc(lr, root == MPI_ROOT ? k * rsize : 0);
    for (long i = 0; i < k; i++)
        LAT(ls, sb, i) = val(gid(grp, lrank), 0, i, iter);
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Igather(sb, (int)k, ls->type, rb, (int)k, lr->type, root, inter,
                                      &req)
                        : MPI_Gather(sb, (int)k, ls->type, rb, (int)k, lr->type, root, inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (root == MPI_ROOT) {
        for (int q = 0; q < rsize; q++)
            for (long i = 0; i < k; i++)
                CHECK(LAT(lr, rb, q * k + i) == val(gid(!grp, q), 0, i, iter));
        CHECK(lholes_ok(lr, rb, k * rsize));
    }
    free(sb);
    free(rb);
    /* scatter: the root sends rsize blocks */
    sb = lalloc(ls, root == MPI_ROOT ? k * rsize : 0);
    rb = lalloc(lr, k);
    if (root == MPI_ROOT)
        for (int q = 0; q < rsize; q++)
            for (long i = 0; i < k; i++)
                LAT(ls, sb, q * k + i) = val(gid(grp, lrank), gid(!grp, q), i, iter);
    CHECK_RC(wait_or(nb ? MPI_Iscatter(sb, (int)k, ls->type, rb, (int)k, lr->type, root, inter,
                                       &req)
                        : MPI_Scatter(sb, (int)k, ls->type, rb, (int)k, lr->type, root, inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (root >= 0)
        for (long i = 0; i < k; i++)
            CHECK(LAT(lr, rb, i) == val(gid(g, r), gid(grp, lrank), i, iter));
    CHECK(lholes_ok(lr, rb, root >= 0 ? k : 0));
    free(sb);
    free(rb);
}

static int vcount(int from, int to, int iter, long scale)
{
    return (int)(((from * 3 + to * 5 + iter) % 4) * scale);
}

/* counts/displacements for blocks from or to each remote rank, reverse order, gaps of 1 */
static long vlayout(int *counts, int *displs, int send, int iter, long scale)
{
    long total = 0;
    for (int j = rsize - 1; j >= 0; j--) {
        int me = gid(grp, lrank), other = gid(!grp, j);
        counts[j] = send ? vcount(me, other, iter, scale) : vcount(other, me, iter, scale);
        displs[j] = (int)total;
        total += counts[j] + 1;
    }
    return total;
}

static void gatherv_scatterv(int g, int r, long scale, int iter)
{
    int nb = iter & 1, root = root_arg(g, r), me = gid(grp, lrank);
    const layout_t *ls = &L[(lrank + iter) % NLAYOUTS], *lr = &L[(lrank + iter + 2) % NLAYOUTS];
    int *counts = malloc(rsize * sizeof(int)), *displs = malloc(rsize * sizeof(int));
    /* gatherv: the root receives block j of vcount(j, root) elements */
    long total = vlayout(counts, displs, 0, iter, scale);
    int k = root >= 0 ? vcount(me, gid(g, r), iter, scale) : 0;
    int *sb = lalloc(ls, k), *rb = lalloc(lr, root == MPI_ROOT ? total : 0);
    for (long i = 0; i < k; i++)
        LAT(ls, sb, i) = val(me, 0, i, iter);
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Igatherv(sb, k, ls->type, rb, counts, displs, lr->type, root,
                                       inter, &req)
                        : MPI_Gatherv(sb, k, ls->type, rb, counts, displs, lr->type, root,
                                      inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    if (root == MPI_ROOT) {
        for (int q = 0; q < rsize; q++)
            for (long i = 0; i < counts[q]; i++)
                CHECK(LAT(lr, rb, displs[q] + i) == val(gid(!grp, q), 0, i, iter));
        CHECK(lholes_ok(lr, rb, total));
    }
    free(sb);
    free(rb);
    /* scatterv: the root sends block j of vcount(root, j) elements */
    total = vlayout(counts, displs, 1, iter, scale);
    k = root >= 0 ? vcount(gid(g, r), me, iter, scale) : 0;
    sb = lalloc(ls, root == MPI_ROOT ? total : 0);
    rb = lalloc(lr, k);
    if (root == MPI_ROOT)
        for (int q = 0; q < rsize; q++)
            for (long i = 0; i < counts[q]; i++)
                LAT(ls, sb, displs[q] + i) = val(me, gid(!grp, q), i, iter);
    CHECK_RC(wait_or(nb ? MPI_Iscatterv(sb, counts, displs, ls->type, rb, k, lr->type, root,
                                        inter, &req)
                        : MPI_Scatterv(sb, counts, displs, ls->type, rb, k, lr->type, root,
                                       inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (long i = 0; i < k; i++)
        CHECK(LAT(lr, rb, i) == val(gid(g, r), me, i, iter));
    CHECK(lholes_ok(lr, rb, k));
    free(sb), free(rb), free(counts), free(displs);
}

/* each group's block size its own (group 1 sends k1 = 2 * k0 + 1 unless k0 is 0) */
static void allgather(long k0, int iter)
{
    int nb = iter & 1, me = gid(grp, lrank);
    long ks = grp ? (k0 ? 2 * k0 + 1 : 0) : k0, kr = grp ? k0 : (k0 ? 2 * k0 + 1 : 0);
    const layout_t *ls = &L[(lrank + iter) % NLAYOUTS], *lr = &L[(lrank + iter + 1) % NLAYOUTS];
    int *sb = lalloc(ls, ks), *rb = lalloc(lr, kr * rsize);
    for (long i = 0; i < ks; i++)
        LAT(ls, sb, i) = val(me, 0, i, iter);
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Iallgather(sb, (int)ks, ls->type, rb, (int)kr, lr->type, inter,
                                         &req)
                        : MPI_Allgather(sb, (int)ks, ls->type, rb, (int)kr, lr->type, inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int q = 0; q < rsize; q++)
        for (long i = 0; i < kr; i++)
            CHECK(LAT(lr, rb, q * kr + i) == val(gid(!grp, q), 0, i, iter));
    CHECK(lholes_ok(lr, rb, kr * rsize));
    free(sb);
    free(rb);
    /* v-form: remote j contributes vcount(j, 0) */
    int *counts = malloc(rsize * sizeof(int)), *displs = malloc(rsize * sizeof(int));
    long total = 0;
    for (int j = rsize - 1; j >= 0; j--) {
        counts[j] = vcount(gid(!grp, j), 0, iter, k0);
        displs[j] = (int)total;
        total += counts[j] + 1;
    }
    int k = vcount(me, 0, iter, k0);
    sb = lalloc(ls, k);
    rb = lalloc(lr, total);
    for (long i = 0; i < k; i++)
        LAT(ls, sb, i) = val(me, 1, i, iter);
    CHECK_RC(wait_or(nb ? MPI_Iallgatherv(sb, k, ls->type, rb, counts, displs, lr->type, inter,
                                          &req)
                        : MPI_Allgatherv(sb, k, ls->type, rb, counts, displs, lr->type, inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int q = 0; q < rsize; q++)
        for (long i = 0; i < counts[q]; i++)
            CHECK(LAT(lr, rb, displs[q] + i) == val(gid(!grp, q), 1, i, iter));
    CHECK(lholes_ok(lr, rb, total));
    free(sb), free(rb), free(counts), free(displs);
}

static void alltoall(long k0, int iter)
{
    int nb = iter & 1, me = gid(grp, lrank);
    long ks = grp ? (k0 ? 2 * k0 + 1 : 0) : k0, kr = grp ? k0 : (k0 ? 2 * k0 + 1 : 0);
    const layout_t *ls = &L[(lrank + iter) % NLAYOUTS], *lr = &L[(lrank + iter + 1) % NLAYOUTS];
    int *sb = lalloc(ls, ks * rsize), *rb = lalloc(lr, kr * rsize);
    for (int q = 0; q < rsize; q++)
        for (long i = 0; i < ks; i++)
            LAT(ls, sb, q * ks + i) = val(me, gid(!grp, q), i, iter);
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Ialltoall(sb, (int)ks, ls->type, rb, (int)kr, lr->type, inter,
                                        &req)
                        : MPI_Alltoall(sb, (int)ks, ls->type, rb, (int)kr, lr->type, inter),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int q = 0; q < rsize; q++)
        for (long i = 0; i < kr; i++)
            CHECK(LAT(lr, rb, q * kr + i) == val(gid(!grp, q), me, i, iter));
    CHECK(lholes_ok(lr, rb, kr * rsize));
    free(sb);
    free(rb);
    /* v and w forms */
    int *sc = malloc(rsize * sizeof(int)), *sd = malloc(rsize * sizeof(int));
    int *rc = malloc(rsize * sizeof(int)), *rd = malloc(rsize * sizeof(int));
    long stot = vlayout(sc, sd, 1, iter, k0), rtot = vlayout(rc, rd, 0, iter, k0);
    for (int w = 0; w < 2; w++) {
        sb = lalloc(ls, stot);
        rb = lalloc(lr, rtot);
        for (int q = 0; q < rsize; q++)
            for (long i = 0; i < sc[q]; i++)
                LAT(ls, sb, sd[q] + i) = val(me, gid(!grp, q), i, iter + w);
        if (w == 0) {
            CHECK_RC(wait_or(nb ? MPI_Ialltoallv(sb, sc, sd, ls->type, rb, rc, rd, lr->type,
                                                 inter, &req)
                                : MPI_Alltoallv(sb, sc, sd, ls->type, rb, rc, rd, lr->type,
                                                inter),
                             nb ? &req : NULL),
                     MPI_SUCCESS);
        } else { /* the same through Alltoallw: byte displacements, a type per peer */
            int *sdb = malloc(rsize * sizeof(int)), *rdb = malloc(rsize * sizeof(int));
            MPI_Datatype *st = malloc(rsize * sizeof *st), *rt = malloc(rsize * sizeof *rt);
            for (int q = 0; q < rsize; q++) {
                MPI_Aint lb, sext, rext;
                MPI_Type_get_extent(ls->type, &lb, &sext);
                MPI_Type_get_extent(lr->type, &lb, &rext);
                sdb[q] = (int)(sd[q] * sext);
                rdb[q] = (int)(rd[q] * rext);
                st[q] = ls->type;
                rt[q] = lr->type;
            }
            CHECK_RC(wait_or(nb ? MPI_Ialltoallw(sb, sc, sdb, st, rb, rc, rdb, rt, inter, &req)
                                : MPI_Alltoallw(sb, sc, sdb, st, rb, rc, rdb, rt, inter),
                             nb ? &req : NULL),
                     MPI_SUCCESS);
            free(sdb), free(rdb), free(st), free(rt);
        }
        for (int q = 0; q < rsize; q++)
            for (long i = 0; i < rc[q]; i++)
                CHECK(LAT(lr, rb, rd[q] + i) == val(gid(!grp, q), me, i, iter + w));
        CHECK(lholes_ok(lr, rb, rtot));
        free(sb);
        free(rb);
    }
    free(sc), free(sd), free(rc), free(rd);
}

/* MPI_IN_PLACE has no meaning between groups */
static void in_place_refused(void)
{
    int x[4] = { 0 }, y[4] = { 0 }, ones[1] = { 1 }, zero[1] = { 0 };
    MPI_Datatype t[1] = { MPI_INT };
    (void)ones;
    MPI_Request req;
    CHECK_RC(MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT, inter), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Iallgatherv(MPI_IN_PLACE, 1, MPI_INT, x, zero, zero, MPI_INT, inter, &req),
             MPI_ERR_BUFFER);
    CHECK_RC(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT, inter), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Alltoallv(MPI_IN_PLACE, zero, zero, MPI_INT, x, zero, zero, MPI_INT, inter),
             MPI_ERR_BUFFER);
    CHECK_RC(MPI_Alltoallw(MPI_IN_PLACE, zero, zero, t, x, zero, zero, t, inter),
             MPI_ERR_BUFFER);
    CHECK_RC(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, 0, inter), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Scatter(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, 0, inter), MPI_ERR_BUFFER);
    /* a root that is neither MPI_ROOT, MPI_PROC_NULL nor a remote rank */
    CHECK_RC(MPI_Bcast(x, 1, MPI_INT, rsize, inter), MPI_ERR_ROOT);
    CHECK_RC(MPI_Bcast(x, 1, MPI_INT, -5, inter), MPI_ERR_ROOT);
}

static void run(int left)
{
    int me = rank_of(MPI_COMM_WORLD), n = size_of(MPI_COMM_WORLD);
    grp = me >= left;
    MPI_Comm local;
    MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp ? 0 : left, 77, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    lrank = rank_of(local);
    lsize = size_of(local);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(lsize + rsize == n);
    static const long sizes[] = { 0, 1, 7, 500, 30000 };
    int iter = 0;
    for (int g = 0; g < 2; g++)
        for (int r = 0; r < (g == grp ? lsize : rsize); r++)
            for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                bcast(g, r, sizes[k], iter++);
                gather_scatter(g, r, sizes[k], iter++);
                gatherv_scatterv(g, r, sizes[k], iter++);
            }
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int q = 0; q < 2; q++) {
            allgather(sizes[k], iter++);
            alltoall(sizes[k], iter++);
        }
    in_place_refused();
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    layouts_init();
    int n = size_of(MPI_COMM_WORLD);
    if (n >= 2) {
        run(n / 3 > 0 ? n / 3 : 1);
        run(n - (n / 3 > 0 ? n / 3 : 1));
    }
    layouts_free();
    MPI_Finalize();
    return 0;
}
