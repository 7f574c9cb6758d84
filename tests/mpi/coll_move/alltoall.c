/* MPI_Alltoall(v,w) / MPI_Ialltoall(v,w) on intra-communicators: block sizes from 0 up,
 * MPI_IN_PLACE, different layouts on the two sides and at different ranks, v-form blocks of
 * different sizes (zeros among them) in a rank-specific order with gaps, w-form blocks each
 * with its own type, and on a split communicator. */
#include "common.h"

static void alltoall(MPI_Comm comm, long k, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 1) % NLAYOUTS];
    int *sb = lalloc(ls, k * n), *rb = lalloc(lr, k * n);
    for (int j = 0; j < n; j++)
        for (long i = 0; i < k; i++) {
            LAT(ls, sb, j * k + i) = val(me, j, i, iter);
            if (inplace)
                LAT(lr, rb, j * k + i) = val(me, j, i, iter);
        }
    const void *s = inplace ? MPI_IN_PLACE : sb;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Ialltoall(s, (int)k, ls->type, rb, (int)k, lr->type, comm, &req)
                        : MPI_Alltoall(s, (int)k, ls->type, rb, (int)k, lr->type, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int r = 0; r < n; r++)
        for (long i = 0; i < k; i++)
            CHECK(LAT(lr, rb, r * k + i) == val(r, me, i, iter));
    CHECK(lholes_ok(lr, rb, k * n));
    free(sb);
    free(rb);
}

/* elements from a to b */
static int vcount(int a, int b, int iter, long scale)
{
    return (int)(((a * 5 + b * 3 + iter) % 4) * scale);
}

/* counts and displacements of one side: blocks in an order of this rank's own, with one int
 * of gap after each; returns the total span */
static long vlayout(int me, int n, int *counts, int *displs)
{
    long total = 0;
    for (int j = 0; j < n; j++) {
        int r = (n - 1 - j + me) % n;
        displs[r] = (int)total;
        total += counts[r] + 1;
    }
    return total;
}

static void alltoallv(MPI_Comm comm, long scale, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 2) % NLAYOUTS];
    int *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int));
    int *rc = malloc(n * sizeof(int)), *rd = malloc(n * sizeof(int));
    for (int j = 0; j < n; j++) {
        sc[j] = vcount(me, j, iter, scale);
        rc[j] = vcount(j, me, iter, scale);
    }
    if (inplace) /* in place, what goes to j is what comes from j */
        for (int j = 0; j < n; j++)
            rc[j] = sc[j] = vcount(me < j ? me : j, me < j ? j : me, iter, scale);
    long stot = vlayout(me, n, sc, sd), rtot = vlayout(me + 1, n, rc, rd);
    int *sb = lalloc(ls, stot), *rb = lalloc(lr, rtot);
    for (int j = 0; j < n; j++)
        for (long i = 0; i < sc[j]; i++) {
            LAT(ls, sb, sd[j] + i) = val(me, j, i, iter);
            if (inplace)
                LAT(lr, rb, rd[j] + i) = val(me, j, i, iter);
        }
    const void *s = inplace ? MPI_IN_PLACE : sb;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Ialltoallv(s, sc, sd, ls->type, rb, rc, rd, lr->type, comm, &req)
                        : MPI_Alltoallv(s, sc, sd, ls->type, rb, rc, rd, lr->type, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int r = 0; r < n; r++) {
        for (long i = 0; i < rc[r]; i++)
            CHECK(LAT(lr, rb, rd[r] + i) == val(r, me, i, iter));
        CHECK(LAT(lr, rb, rd[r] + rc[r]) == HOLE);
    }
    CHECK(lholes_ok(lr, rb, rtot));
    free(sb), free(rb), free(sc), free(sd), free(rc), free(rd);
}

/* Alltoallw: block j in its own region of the buffer, in layout (me + j) % 3 (send) and
 * (me + j + 1) % 3 (receive); displacements in bytes */
static void alltoallw(MPI_Comm comm, long scale, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    int *sc = malloc(n * sizeof(int)), *sd = malloc(n * sizeof(int));
    int *rc = malloc(n * sizeof(int)), *rd = malloc(n * sizeof(int));
    MPI_Datatype *st = malloc(n * sizeof *st), *rt = malloc(n * sizeof *rt);
    const layout_t **sl = malloc(n * sizeof *sl), **rl = malloc(n * sizeof *rl);
    long region = 3 * 3 * scale + 4; /* ints: room for the widest layout */
    for (int j = 0; j < n; j++) {
        sc[j] = vcount(me, j, iter, scale);
        rc[j] = vcount(j, me, iter, scale);
        if (inplace)
            rc[j] = sc[j] = vcount(me < j ? me : j, me < j ? j : me, iter, scale);
        sl[j] = &L[(me + j) % NLAYOUTS];
        rl[j] = inplace ? sl[j] : &L[(me + j + 1) % NLAYOUTS];
        st[j] = sc[j] ? sl[j]->type : MPI_DATATYPE_NULL; /* ignored with a zero count */
        rt[j] = rl[j]->type;
        sd[j] = (int)((n - 1 - j) * region * sizeof(int));
        rd[j] = (int)(j * region * sizeof(int));
    }
    int *sb = malloc(n * region * sizeof(int)), *rb = malloc(n * region * sizeof(int));
    for (long i = 0; i < n * region; i++)
        sb[i] = rb[i] = HOLE;
    for (int j = 0; j < n; j++)
        for (long i = 0; i < sc[j]; i++) {
            int *sblk = sb + sd[j] / sizeof(int), *rblk = rb + rd[j] / sizeof(int);
            LAT(sl[j], sblk, i) = val(me, j, i, iter);
            if (inplace)
                LAT(rl[j], rblk, i) = val(me, j, i, iter);
        }
    const void *s = inplace ? MPI_IN_PLACE : sb;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Ialltoallw(s, sc, sd, st, rb, rc, rd, rt, comm, &req)
                        : MPI_Alltoallw(s, sc, sd, st, rb, rc, rd, rt, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int r = 0; r < n; r++) {
        int *rblk = rb + rd[r] / sizeof(int);
        for (long i = 0; i < rc[r]; i++)
            CHECK(LAT(rl[r], rblk, i) == val(r, me, i, iter));
        CHECK(lholes_ok(rl[r], rblk, rc[r]));
    }
    free(sb), free(rb), free(sc), free(sd), free(rc), free(rd);
    free(st), free(rt), free(sl), free(rl);
}

static void all(MPI_Comm comm)
{
    static const long sizes[] = { 0, 1, 5, 300, 20000 };
    int iter = 0;
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int inplace = 0; inplace < 2; inplace++) {
            alltoall(comm, sizes[k], inplace, iter++);
            alltoall(comm, sizes[k], inplace, iter++);
        }
    static const long scales[] = { 0, 1, 30, 10000 };
    for (unsigned k = 0; k < sizeof scales / sizeof *scales; k++)
        for (int inplace = 0; inplace < 2; inplace++)
            for (int q = 0; q < 2; q++) {
                alltoallv(comm, scales[k], inplace, iter++);
                alltoallw(comm, scales[k], inplace, iter++);
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
