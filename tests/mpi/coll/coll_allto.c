/* The all-to-all data-movement collectives on intra-communicators (MPI-3.1 §5.7, §5.8):
 * MPI_Allgather(v), MPI_Alltoall(v,w), with seeded random counts including 0 (a random count
 * matrix for the v/w forms), sizes up to 1 MiB per rank (past every algorithm switch),
 * MPI_IN_PLACE (allowed at every rank for all five; for Alltoallv/w the counts are then
 * symmetric), and derived datatypes: every rank picks its own layouts of the same signature
 * (and for Alltoallw a layout per peer), displacements put blocks in a random order with
 * gaps. Whole receive buffers are compared with an expected image (gaps, guards untouched),
 * send buffers must be unchanged. Runs on MPI_COMM_WORLD, a duplicate, an odd/even split, a
 * split in reverse rank order and MPI_COMM_SELF.
 *
 *   coll_allto [nb]     nb: every collective through its I-form
 */
#include "coll_check.h"

/* MPICH 4.0.2 cuts its ring Allgatherv into chunks of a number of elements of the local
 * receive type computed from its extent, so processes whose receive types carry the same
 * signature with different extents mismatch ("Message truncated"): under MPICH every process
 * receives with the same layout. */
#ifdef METAMPI
#define MIXED_RECV 1
#else
#define MIXED_RECV 0
#endif

/* The data process src sends to process dst. */
#define PAIR(src, dst) ((src) * 4096 + (dst))

/* ---- allgather --------------------------------------------------------------------------- */

static void t_allgather(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    static const int fixed[] = {0, 1, 4, -1, -1, -2, 16384, 32768};
    for (int s = 0; s < (int)(sizeof fixed / sizeof *fixed); s++) {
        int nints = size_at(&g, fixed, s);
        if ((long)nints * n > 300000)
            nints /= 2; /* at most ~1 MiB received */
        for (int inplace = 0; inplace < 2; inplace++) {
            key++;
            const lay_t *ls = pick(key, me, nints), *lr = pick(key + 1, me, nints);
            int sc = lay_count(ls, nints), rc = lay_count(lr, nints);
            size_t sspan = lay_span(ls, sc), rblock = lay_span(lr, rc);
            size_t rspan = rblock * (size_t)n;
            int *sbuf = ibuf(sspan), *sexp = ibuf(sspan), *rbuf = ibuf(rspan),
                *rexp = ibuf(rspan);
            lay_put(ls, sbuf, sc, key, me, 0);
            memcpy(sexp, sbuf, (sspan + GUARD) * sizeof *sbuf);
            for (int j = 0; j < n; j++)
                lay_put(lr, rexp + (size_t)j * rblock, rc, key, j, 0);
            if (inplace)
                lay_put(lr, rbuf + (size_t)me * rblock, rc, key, me, 0);
            CHECK_RC(c_allgather(inplace ? MPI_IN_PLACE : sbuf, sc, ls->type, rbuf, rc,
                                 lr->type, c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, inplace ? "allgather in place" : "allgather");
            check_ints(sbuf, sexp, sspan, "allgather sendbuf");
            free(sbuf), free(sexp), free(rbuf), free(rexp);
        }
    }
}

static void t_allgatherv(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    int *cnt = malloc((size_t)n * sizeof *cnt), *rcounts = malloc((size_t)n * sizeof *cnt);
    int *displs = malloc((size_t)n * sizeof *cnt);
    static const int maxc[] = {1, 4, 40, 40, 500, 16384};
    for (int s = 0; s < (int)(sizeof maxc / sizeof *maxc); s++) {
        for (int inplace = 0; inplace < 2; inplace++) {
            key++;
            int even = key % 3 != 0;
            v_counts(&g, n, maxc[s], even, cnt);
            const lay_t *ls = even ? pick(key, me, 2) : &lays[LAY_INT];
            const lay_t *lr = even ? pick(key + 1, MIXED_RECV ? me : 0, 2) : &lays[LAY_INT];
            int relems = v_displs(key, me, n, cnt, lr->nint, displs);
#ifndef METAMPI
            if (n == 1) /* MPICH 4.0.2 ignores the displacement on one process */
                displs[0] = 0, relems = lay_count(lr, cnt[0]);
#endif
            int sc = lay_count(ls, cnt[me]);
            size_t sspan = lay_span(ls, sc), rspan = lay_span(lr, relems);
            int *sbuf = ibuf(sspan), *rbuf = ibuf(rspan), *rexp = ibuf(rspan);
            lay_put(ls, sbuf, sc, key, me, 0);
            for (int j = 0; j < n; j++) {
                rcounts[j] = lay_count(lr, cnt[j]);
                lay_put(lr, rexp + lay_span(lr, displs[j]), rcounts[j], key, j, 0);
            }
            if (inplace)
                lay_put(lr, rbuf + lay_span(lr, displs[me]), rcounts[me], key, me, 0);
            CHECK_RC(c_allgatherv(inplace ? MPI_IN_PLACE : sbuf, sc, ls->type, rbuf, rcounts,
                                  displs, lr->type, c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, inplace ? "allgatherv in place" : "allgatherv");
            free(sbuf), free(rbuf), free(rexp);
        }
    }
    free(cnt), free(rcounts), free(displs);
}

/* ---- alltoall ---------------------------------------------------------------------------- */

static void t_alltoall(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    static const int fixed[] = {0, 1, 3, -1, -1, -2, 8192, 32768};
    for (int s = 0; s < (int)(sizeof fixed / sizeof *fixed); s++) {
        int nints = size_at(&g, fixed, s);
        while ((long)nints * n > 300000)
            nints /= 2; /* at most ~1 MiB per rank */
        for (int inplace = 0; inplace < 2; inplace++) {
            key++;
            const lay_t *ls = pick(key, me, nints), *lr = pick(key + 1, me, nints);
            int sc = lay_count(ls, nints), rc = lay_count(lr, nints);
            size_t sblock = lay_span(ls, sc), rblock = lay_span(lr, rc);
            size_t sspan = sblock * (size_t)n, rspan = rblock * (size_t)n;
            int *sbuf = ibuf(sspan), *sexp = ibuf(sspan), *rbuf = ibuf(rspan),
                *rexp = ibuf(rspan);
            for (int j = 0; j < n; j++) {
                lay_put(ls, sbuf + (size_t)j * sblock, sc, key, PAIR(me, j), 0);
                lay_put(lr, rexp + (size_t)j * rblock, rc, key, PAIR(j, me), 0);
                if (inplace) /* the data to send, described by the receive arguments */
                    lay_put(lr, rbuf + (size_t)j * rblock, rc, key, PAIR(me, j), 0);
            }
            memcpy(sexp, sbuf, (sspan + GUARD) * sizeof *sbuf);
            CHECK_RC(c_alltoall(inplace ? MPI_IN_PLACE : sbuf, sc, ls->type, rbuf, rc,
                                lr->type, c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, inplace ? "alltoall in place" : "alltoall");
            check_ints(sbuf, sexp, sspan, "alltoall sendbuf");
            free(sbuf), free(sexp), free(rbuf), free(rexp);
        }
    }
}

/* A random n x n matrix of counts in ints (cnt[src * n + dst], even if `even`), symmetric if
 * `sym`; the same on every rank. */
static void count_matrix(rng_t *g, int n, int maxc, int even, int sym, int *cnt)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            cnt[i * n + j] = rng_count(g, maxc) * (even ? 2 : 1);
    if (sym)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                cnt[i * n + j] = cnt[j * n + i];
}

static void t_alltoallv(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    int *cnt = malloc((size_t)n * (size_t)n * sizeof *cnt);
    int *row = malloc((size_t)n * sizeof *row), *col = malloc((size_t)n * sizeof *col);
    int *sc = malloc((size_t)n * sizeof *sc), *sd = malloc((size_t)n * sizeof *sc);
    int *rc = malloc((size_t)n * sizeof *sc), *rd = malloc((size_t)n * sizeof *sc);
    static const int maxc[] = {1, 4, 40, 500, 4096, 32768};
    for (int s = 0; s < (int)(sizeof maxc / sizeof *maxc); s++) {
        int m = maxc[s];
        while ((long)m * n > 300000)
            m /= 2;
        for (int inplace = 0; inplace < 2; inplace++) {
            key++;
            int even = key % 3 != 0;
            count_matrix(&g, n, m, even, inplace, cnt);
            for (int j = 0; j < n; j++)
                row[j] = cnt[me * n + j], col[j] = cnt[j * n + me];
            const lay_t *ls = even ? pick(key, me, 2) : &lays[LAY_INT];
            const lay_t *lr = even ? pick(key + 1, me, 2) : &lays[LAY_INT];
            int selems = v_displs(key, me, n, row, ls->nint, sd);
            int relems = v_displs(key + 1, me, n, col, lr->nint, rd);
            size_t sspan = lay_span(ls, selems), rspan = lay_span(lr, relems);
            int *sbuf = ibuf(sspan), *sexp = ibuf(sspan), *rbuf = ibuf(rspan),
                *rexp = ibuf(rspan);
            for (int j = 0; j < n; j++) {
                sc[j] = lay_count(ls, row[j]);
                rc[j] = lay_count(lr, col[j]);
                lay_put(ls, sbuf + lay_span(ls, sd[j]), sc[j], key, PAIR(me, j), 0);
                lay_put(lr, rexp + lay_span(lr, rd[j]), rc[j], key, PAIR(j, me), 0);
                if (inplace)
                    lay_put(lr, rbuf + lay_span(lr, rd[j]), rc[j], key, PAIR(me, j), 0);
            }
            memcpy(sexp, sbuf, (sspan + GUARD) * sizeof *sbuf);
            CHECK_RC(c_alltoallv(inplace ? MPI_IN_PLACE : sbuf, sc, sd, ls->type, rbuf, rc,
                                 rd, lr->type, c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, inplace ? "alltoallv in place" : "alltoallv");
            check_ints(sbuf, sexp, sspan, "alltoallv sendbuf");
            free(sbuf), free(sexp), free(rbuf), free(rexp);
        }
    }
    free(cnt), free(row), free(col), free(sc), free(sd), free(rc), free(rd);
}

/* Alltoallw: a layout per peer on both sides, byte displacements. */
static void t_alltoallw(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    int *cnt = malloc((size_t)n * (size_t)n * sizeof *cnt);
    int *sc = malloc((size_t)n * sizeof *sc), *sd = malloc((size_t)n * sizeof *sc);
    int *rc = malloc((size_t)n * sizeof *sc), *rd = malloc((size_t)n * sizeof *sc);
    size_t *soff = malloc((size_t)n * sizeof *soff), *roff = malloc((size_t)n * sizeof *roff);
    MPI_Datatype *st = malloc((size_t)n * sizeof *st), *rt = malloc((size_t)n * sizeof *rt);
    const lay_t **sl = malloc((size_t)n * sizeof *sl), **rl = malloc((size_t)n * sizeof *rl);
    static const int maxc[] = {1, 4, 40, 500, 4096, 32768};
    for (int s = 0; s < (int)(sizeof maxc / sizeof *maxc); s++) {
        int m = maxc[s];
        while ((long)m * n > 300000)
            m /= 2;
        for (int inplace = 0; inplace < 2; inplace++) {
            key++;
            count_matrix(&g, n, m, 1, inplace, cnt);
            /* blocks in peer order, each after a gap of (j % 3) ints */
            size_t spos = 0, rpos = 0;
            for (int j = 0; j < n; j++) {
                sl[j] = pick(key, PAIR(me, j), 2);
                rl[j] = pick(key + 1, PAIR(j, me), 2);
                sc[j] = lay_count(sl[j], cnt[me * n + j]);
                rc[j] = lay_count(rl[j], cnt[j * n + me]);
                spos += (size_t)(j % 3);
                rpos += (size_t)((j + 1) % 3);
                soff[j] = spos, roff[j] = rpos;
                sd[j] = (int)(spos * sizeof(int)), rd[j] = (int)(rpos * sizeof(int));
                st[j] = sl[j]->type, rt[j] = rl[j]->type;
                spos += lay_span(sl[j], sc[j]);
                rpos += lay_span(rl[j], rc[j]);
            }
            int *sbuf = ibuf(spos), *sexp = ibuf(spos), *rbuf = ibuf(rpos), *rexp = ibuf(rpos);
            for (int j = 0; j < n; j++) {
                lay_put(sl[j], sbuf + soff[j], sc[j], key, PAIR(me, j), 0);
                lay_put(rl[j], rexp + roff[j], rc[j], key, PAIR(j, me), 0);
                if (inplace)
                    lay_put(rl[j], rbuf + roff[j], rc[j], key, PAIR(me, j), 0);
            }
            memcpy(sexp, sbuf, (spos + GUARD) * sizeof *sbuf);
            CHECK_RC(c_alltoallw(inplace ? MPI_IN_PLACE : sbuf, sc, sd, st, rbuf, rc, rd, rt,
                                 c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rpos, inplace ? "alltoallw in place" : "alltoallw");
            check_ints(sbuf, sexp, spos, "alltoallw sendbuf");
            free(sbuf), free(sexp), free(rbuf), free(rexp);
        }
    }
    free(cnt), free(sc), free(sd), free(rc), free(rd), free(soff), free(roff);
    free(st), free(rt), free(sl), free(rl);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    coll_args(argc, argv);
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    lay_init();
    comms_init();
    for (int ci = 0; ci < NCOMMS; ci++) {
        MPI_Comm c = comms[ci];
        int key = (ci + 1) << 20;
        coll_ctx = comm_names[ci];
        t_allgather(c, key + (1 << 16));
        t_allgatherv(c, key + (2 << 16));
        t_alltoall(c, key + (3 << 16));
        t_alltoallv(c, key + (4 << 16));
        t_alltoallw(c, key + (5 << 16));
    }
    comms_free();
    lay_free();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_allto%s: ok\n", coll_nb ? " (nonblocking)" : "");
    return 0;
}
