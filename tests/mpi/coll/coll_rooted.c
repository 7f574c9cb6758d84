/* The rooted data-movement collectives and the barrier on intra-communicators (MPI-3.1 §5.3,
 * §5.4, §5.5, §5.6): MPI_Barrier (nobody leaves before the last one arrives), MPI_Bcast,
 * MPI_Gather(v), MPI_Scatter(v) at every root, with seeded random counts including 0, sizes
 * from 0 to 1 MiB (past every algorithm switch), MPI_IN_PLACE at the root, and derived
 * datatypes (each rank picks its own layout of the same type signature: ints, contiguous
 * pairs, a resized vector with gaps, an indexed type in reverse order). Receive buffers are
 * compared whole with an expected image: gaps, unused blocks and guard zones must be left
 * untouched, and send buffers unchanged. Runs on MPI_COMM_WORLD, a duplicate, an odd/even
 * split, a split in reverse rank order and MPI_COMM_SELF.
 *
 *   coll_rooted [nb]     nb: every collective through its I-form (MPI_Ibcast, ...)
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "coll_check.h"

#include <time.h>

static int wrank;

/* 1 on MPI_COMM_WORLD: small cases run at every root there, at roots 0 and n - 1 elsewhere. */
static int full;

/* Roots a case moving `total` ints runs at: all of them for small data (on the full pass),
 * otherwise 0 and n - 1. */
static int next_root(int root, int n, long total)
{
    if ((full && total <= 40000) || root == n - 1)
        return root + 1;
    return n - 1; /* large: only roots 0 and n - 1 */
}

/* ---- barrier ----------------------------------------------------------------------------- */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Nobody leaves before the last one arrives: the entry and exit times of every process
 * (on the system-wide monotonic clock: all ranks of these tests run on one host) satisfy
 * max(entry) <= min(exit). One rank, in turn, arrives late. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void t_barrier(MPI_Comm c)
{
    int me, n;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    for (int i = 0; i < 10; i++)
        CHECK_RC(c_barrier(c), MPI_SUCCESS);
    double *t = malloc(2 * (size_t)n * sizeof *t);
    int late[2] = {0, n - 1};
    for (int i = 0; i < 2; i++) {
        double mine[2];
        if (me == late[i])
            sleep_ms(20);
        mine[0] = now();
        CHECK_RC(c_barrier(c), MPI_SUCCESS);
        mine[1] = now();
        CHECK_RC(MPI_Allgather(mine, 2, MPI_DOUBLE, t, 2, MPI_DOUBLE, c), MPI_SUCCESS);
        double last_in = t[0], first_out = t[1];
        for (int j = 1; j < n; j++) {
            last_in = t[2 * j] > last_in ? t[2 * j] : last_in;
            first_out = t[2 * j + 1] < first_out ? t[2 * j + 1] : first_out;
        }
        CHECK(last_in <= first_out);
    }
    free(t);
}

/* ---- broadcast --------------------------------------------------------------------------- */

static void t_bcast(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    static const int fixed[] = {0, 1, 5, -1, -2, 6000, 32768, 262144};
    for (int s = 0; s < (int)(sizeof fixed / sizeof *fixed); s++) {
        int nints = size_at(&g, fixed, s);
        for (int root = 0; root < n; root = next_root(root, n, nints)) {
            key++;
            const lay_t *l = pick(key, me, nints);
            int cnt = lay_count(l, nints);
            size_t span = lay_span(l, cnt);
            int *buf = ibuf(span), *exp = ibuf(span);
            lay_put(l, exp, cnt, key, root, 0);
            if (me == root)
                lay_put(l, buf, cnt, key, root, 0);
            CHECK_RC(c_bcast(buf, cnt, l->type, root, c), MPI_SUCCESS);
            check_ints(buf, exp, span, "bcast");
            free(buf);
            free(exp);
        }
    }
}

/* ---- gather ------------------------------------------------------------------------------ */

static void t_gather(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    static const int fixed[] = {0, 1, 4, -1, -2, 16384, 32768};
    for (int s = 0; s < (int)(sizeof fixed / sizeof *fixed); s++) {
        int nints = size_at(&g, fixed, s);
        for (int root = 0; root < n; root = next_root(root, n, (long)nints * n)) {
            key++;
            int inplace = key % 2 && me == root;
            const lay_t *ls = pick(key, me, nints), *lr = pick(key + 1, root, nints);
            int sc = lay_count(ls, nints), rc = lay_count(lr, nints);
            size_t sspan = lay_span(ls, sc), rblock = lay_span(lr, rc);
            size_t rspan = me == root ? rblock * (size_t)n : 0;
            int *sbuf = ibuf(sspan), *sexp = ibuf(sspan);
            lay_put(ls, sbuf, sc, key, me, 0);
            memcpy(sexp, sbuf, (sspan + GUARD) * sizeof *sbuf);
            int *rbuf = ibuf(rspan), *rexp = ibuf(rspan);
            if (me == root)
                for (int j = 0; j < n; j++)
                    lay_put(lr, rexp + (size_t)j * rblock, rc, key, j, 0);
            if (inplace)
                lay_put(lr, rbuf + (size_t)me * rblock, rc, key, me, 0);
            CHECK_RC(c_gather(inplace ? MPI_IN_PLACE : sbuf, sc, ls->type,
                              me == root ? rbuf : NULL, rc, lr->type, root, c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, "gather");
            check_ints(sbuf, sexp, sspan, "gather sendbuf");
            free(sbuf), free(sexp), free(rbuf), free(rexp);
        }
    }
}

static void t_gatherv(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    int *cnt = malloc((size_t)n * sizeof *cnt), *rcounts = malloc((size_t)n * sizeof *cnt);
    int *displs = malloc((size_t)n * sizeof *cnt);
    static const int maxc[] = {1, 4, 40, 500, 16384};
    for (int s = 0; s < (int)(sizeof maxc / sizeof *maxc); s++) {
        for (int root = 0; root < n; root = next_root(root, n, (long)maxc[s] * n)) {
            key++;
            int even = key % 3 != 0, inplace = key % 2 && me == root;
            /* the root's layout is known to all: it fixes the displacement unit */
            const lay_t *lr = even ? pick(key + 1, root, 2) : &lays[LAY_INT];
            v_counts(&g, n, maxc[s], even, cnt);
            int relems = v_displs(key, root, n, cnt, lr->nint, displs);
            const lay_t *ls = even ? pick(key, me, 2) : &lays[LAY_INT];
            int sc = lay_count(ls, cnt[me]);
            size_t sspan = lay_span(ls, sc), rspan = me == root ? lay_span(lr, relems) : 0;
            int *sbuf = ibuf(sspan), *rbuf = ibuf(rspan), *rexp = ibuf(rspan);
            lay_put(ls, sbuf, sc, key, me, 0);
            for (int j = 0; j < n; j++)
                rcounts[j] = lay_count(lr, cnt[j]);
            if (me == root)
                for (int j = 0; j < n; j++)
                    lay_put(lr, rexp + lay_span(lr, displs[j]), rcounts[j], key, j, 0);
            if (inplace)
                lay_put(lr, rbuf + lay_span(lr, displs[me]), rcounts[me], key, me, 0);
            CHECK_RC(c_gatherv(inplace ? MPI_IN_PLACE : sbuf, sc, ls->type, rbuf,
                               me == root ? rcounts : NULL, me == root ? displs : NULL,
                               lr->type, root, c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, "gatherv");
            free(sbuf), free(rbuf), free(rexp);
        }
    }
    free(cnt), free(rcounts), free(displs);
}

/* ---- scatter ----------------------------------------------------------------------------- */

static void t_scatter(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    static const int fixed[] = {0, 1, 4, -1, -2, 16384, 32768};
    for (int s = 0; s < (int)(sizeof fixed / sizeof *fixed); s++) {
        int nints = size_at(&g, fixed, s);
        for (int root = 0; root < n; root = next_root(root, n, (long)nints * n)) {
            key++;
            int inplace = key % 2 && me == root;
            const lay_t *ls = pick(key, root, nints), *lr = pick(key + 1, me, nints);
            int sc = lay_count(ls, nints), rc = lay_count(lr, nints);
            size_t sblock = lay_span(ls, sc), rspan = lay_span(lr, rc);
            size_t sspan = me == root ? sblock * (size_t)n : 0;
            int *sbuf = ibuf(sspan), *sexp = ibuf(sspan);
            int *rbuf = ibuf(rspan), *rexp = ibuf(rspan);
            if (me == root)
                for (int j = 0; j < n; j++)
                    lay_put(ls, sbuf + (size_t)j * sblock, sc, key, j, 0);
            memcpy(sexp, sbuf, (sspan + GUARD) * sizeof *sbuf);
            if (!inplace)
                lay_put(lr, rexp, rc, key, me, 0);
            CHECK_RC(c_scatter(me == root ? sbuf : NULL, sc, ls->type,
                               inplace ? MPI_IN_PLACE : rbuf, rc, lr->type, root, c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, "scatter");
            check_ints(sbuf, sexp, sspan, "scatter sendbuf");
            free(sbuf), free(sexp), free(rbuf), free(rexp);
        }
    }
}

static void t_scatterv(MPI_Comm c, int key0)
{
    int me, n, key = key0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    rng_t g = {(uint64_t)key0};
    int *cnt = malloc((size_t)n * sizeof *cnt), *scounts = malloc((size_t)n * sizeof *cnt);
    int *displs = malloc((size_t)n * sizeof *cnt);
    static const int maxc[] = {1, 4, 40, 500, 16384};
    for (int s = 0; s < (int)(sizeof maxc / sizeof *maxc); s++) {
        for (int root = 0; root < n; root = next_root(root, n, (long)maxc[s] * n)) {
            key++;
            int even = key % 3 != 0, inplace = key % 2 && me == root;
            const lay_t *ls = even ? pick(key, root, 2) : &lays[LAY_INT];
            v_counts(&g, n, maxc[s], even, cnt);
            int selems = v_displs(key, root, n, cnt, ls->nint, displs);
            const lay_t *lr = even ? pick(key + 1, me, 2) : &lays[LAY_INT];
            int rc = lay_count(lr, cnt[me]);
            size_t rspan = lay_span(lr, rc), sspan = me == root ? lay_span(ls, selems) : 0;
            int *sbuf = ibuf(sspan), *sexp = ibuf(sspan);
            int *rbuf = ibuf(rspan), *rexp = ibuf(rspan);
            for (int j = 0; j < n; j++)
                scounts[j] = lay_count(ls, cnt[j]);
            if (me == root)
                for (int j = 0; j < n; j++)
                    lay_put(ls, sbuf + lay_span(ls, displs[j]), scounts[j], key, j, 0);
            memcpy(sexp, sbuf, (sspan + GUARD) * sizeof *sbuf);
            if (!inplace)
                lay_put(lr, rexp, rc, key, me, 0);
            CHECK_RC(c_scatterv(sbuf, me == root ? scounts : NULL, me == root ? displs : NULL,
                                ls->type, inplace ? MPI_IN_PLACE : rbuf, rc, lr->type, root,
                                c),
                     MPI_SUCCESS);
            check_ints(rbuf, rexp, rspan, "scatterv");
            check_ints(sbuf, sexp, sspan, "scatterv sendbuf");
            free(sbuf), free(sexp), free(rbuf), free(rexp);
        }
    }
    free(cnt), free(scounts), free(displs);
}

/* ---- a bcast/gather pipeline across communicators ------------------------------------------ */

/* The same data through Bcast on one communicator and Gather on another, interleaved, so
 * operations on different communicators cannot be confused. */
static void t_mixed(void)
{
    int n, me;
    MPI_Comm_size(comms[3], &n);
    MPI_Comm_rank(comms[3], &me);
    int v[4] = {0}, all[4 * 8 + GUARD];
    for (int i = 0; i < 20; i++) {
        int root = i % n;
        if (me == root)
            for (int k = 0; k < 4; k++)
                v[k] = val(i, root, k);
        CHECK_RC(c_bcast(v, 4, MPI_INT, root, comms[3]), MPI_SUCCESS);
        CHECK_RC(c_gather(v, 4, MPI_INT, all, 4, MPI_INT, 0, comms[1]), MPI_SUCCESS);
        if (wrank == 0)
            for (int j = 0; j < n && j < 8; j++)
                for (int k = 0; k < 4; k++)
                    CHECK(all[4 * j + k] == val(i, root, k));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    coll_args(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    lay_init();
    comms_init();
    for (int ci = 0; ci < NCOMMS; ci++) {
        MPI_Comm c = comms[ci];
        int key = (ci + 1) << 20;
        coll_ctx = comm_names[ci];
        full = ci == 0;
        t_barrier(c);
        t_bcast(c, key + (1 << 16));
        t_gather(c, key + (2 << 16));
        t_gatherv(c, key + (3 << 16));
        t_scatter(c, key + (4 << 16));
        t_scatterv(c, key + (5 << 16));
    }
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size <= 8)
        t_mixed();
    comms_free();
    lay_free();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_rooted%s: ok\n", coll_nb ? " (nonblocking)" : "");
    return 0;
}
