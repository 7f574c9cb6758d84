/* Nonblocking collectives together (MPI-3.1 §5.12): many outstanding at once on the same and
 * on different communicators, started in the same order everywhere and completed in a
 * different order on every rank (Waitall over a shuffled array, Testall, Waitany, Waitsome);
 * blocking collectives issued while nonblocking ones are pending; point-to-point traffic on
 * the same communicator (wildcard receives posted before, messages with several tags sent
 * during) that the collectives must never match and that probes must never see;
 * overlapping a large MPI_Iallreduce with computation and MPI_Test calls; MPI_Ibarrier's
 * synchronisation; a user op, a datatype and a communicator freed while an operation that
 * uses them is pending; MPI_Request_get_status on collective requests.
 *
 *   coll_nonblocking
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include "coll_red.h"

#include <time.h>

static int wrank, wsize;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A random permutation of n indices, different on every rank. */
static void shuffle(int *idx, int n, int salt)
{
    rng_t g = {(uint64_t)(wrank * 7919 + salt)};
    for (int i = 0; i < n; i++)
        idx[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int k = rng_int(&g, i + 1), t = idx[i];
        idx[i] = idx[k];
        idx[k] = t;
    }
}

/* Completes n requests: Waitall over a shuffled copy, Testall, Waitany or Waitsome. */
static void complete_all(MPI_Request *rq, int n, int how, int salt)
{
    int *idx = malloc((size_t)n * sizeof *idx);
    MPI_Request *perm = malloc((size_t)n * sizeof *perm);
    shuffle(idx, n, salt);
    for (int i = 0; i < n; i++)
        perm[i] = rq[idx[i]];
    int done = 0, flag = 0, k, outcount;
    int *outs = malloc((size_t)n * sizeof *outs);
    switch (how % 4) {
    case 0:
        CHECK_RC(MPI_Waitall(n, perm, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        break;
    case 1:
        while (!flag)
            CHECK_RC(MPI_Testall(n, perm, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        break;
    case 2:
        for (int i = 0; i < n; i++) {
            CHECK_RC(MPI_Waitany(n, perm, &k, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK(k >= 0 && k < n && perm[k] == MPI_REQUEST_NULL);
        }
        CHECK_RC(MPI_Waitany(n, perm, &k, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(k == MPI_UNDEFINED);
        break;
    default:
        while (done < n) {
            CHECK_RC(MPI_Waitsome(n, perm, &outcount, outs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
            CHECK(outcount >= 1);
            done += outcount;
        }
        CHECK(done == n);
        break;
    }
    for (int i = 0; i < n; i++)
        CHECK(perm[i] == MPI_REQUEST_NULL);
    for (int i = 0; i < n; i++)
        rq[i] = MPI_REQUEST_NULL;
    free(idx), free(perm), free(outs);
}

/* ---- many at once ------------------------------------------------------------------------- */

/* One round: a dozen collectives on three communicators started back to back, completed in
 * a per-rank order, then checked. */
static void t_many(int round)
{
    MPI_Comm world = comms[0], dup = comms[1], half = comms[2];
    int n = wsize, me = wrank, hn, hme;
    MPI_Comm_size(half, &hn);
    MPI_Comm_rank(half, &hme);
    int key = (round + 1) * 1000;
    MPI_Request rq[16];
    int nr = 0;
    /* Ibcast on world from a rotating root */
    int broot = round % n, bc[100];
    for (int i = 0; i < 100; i++)
        bc[i] = me == broot ? val(key, broot, i) : SENT;
    CHECK_RC(MPI_Ibcast(bc, 100, MPI_INT, broot, world, &rq[nr++]), MPI_SUCCESS);
    /* Iallreduce (SUM int) on dup */
    int ar_in[50], ar_out[50];
    for (int i = 0; i < 50; i++)
        ar_in[i] = val(key + 1, me, i) % 1000;
    CHECK_RC(MPI_Iallreduce(ar_in, ar_out, 50, MPI_INT, MPI_SUM, dup, &rq[nr++]), MPI_SUCCESS);
    /* Igather on world to the last rank */
    int g_in[3], *g_out = malloc(3 * (size_t)n * sizeof *g_out);
    for (int i = 0; i < 3; i++)
        g_in[i] = val(key + 2, me, i);
    CHECK_RC(MPI_Igather(g_in, 3, MPI_INT, g_out, 3, MPI_INT, n - 1, world, &rq[nr++]),
             MPI_SUCCESS);
    /* Ialltoall on dup */
    int *a_in = malloc(2 * (size_t)n * sizeof *a_in), *a_out = malloc(2 * (size_t)n * sizeof *a_in);
    for (int j = 0; j < 2 * n; j++)
        a_in[j] = val(key + 3, me * 4096 + j / 2, j % 2);
    CHECK_RC(MPI_Ialltoall(a_in, 2, MPI_INT, a_out, 2, MPI_INT, dup, &rq[nr++]), MPI_SUCCESS);
    /* Ibarrier on the half */
    CHECK_RC(MPI_Ibarrier(half, &rq[nr++]), MPI_SUCCESS);
    /* Iscan of the non-commutative matrix product on world */
    const tdesc_t *mt = &tds[TD_MAT];
    void *s_in = rbuf_alloc(mt, 4), *s_out = rbuf_alloc(mt, 4), *s_exp = rbuf_alloc(mt, 4);
    red_input(mt, matmul_op, s_in, 4, key + 4, me);
    red_reference(mt, matmul_op, s_exp, 0, 4, key + 4, 0, me + 1);
    CHECK_RC(MPI_Iscan(s_in, s_out, 4, mat_type, matmul_op, world, &rq[nr++]), MPI_SUCCESS);
    /* Iallgather on the half */
    int ag_in = val(key + 5, hme, 0), *ag_out = malloc((size_t)hn * sizeof *ag_out);
    CHECK_RC(MPI_Iallgather(&ag_in, 1, MPI_INT, ag_out, 1, MPI_INT, half, &rq[nr++]),
             MPI_SUCCESS);
    /* a second Iallreduce on dup, in place, MAX */
    double mx[8];
    for (int i = 0; i < 8; i++)
        mx[i] = (double)val(key + 6, me, i);
    CHECK_RC(MPI_Iallreduce(MPI_IN_PLACE, mx, 8, MPI_DOUBLE, MPI_MAX, dup, &rq[nr++]),
             MPI_SUCCESS);
    /* Ireduce (non-commutative) on the half to its rank 0 */
    void *r_in = rbuf_alloc(mt, 2), *r_out = rbuf_alloc(mt, 2), *r_exp = rbuf_alloc(mt, 2);
    red_input(mt, matmul_op, r_in, 2, key + 7, hme);
    red_reference(mt, matmul_op, r_exp, 0, 2, key + 7, 0, hn);
    CHECK_RC(MPI_Ireduce(r_in, r_out, 2, mat_type, matmul_op, 0, half, &rq[nr++]), MPI_SUCCESS);
    /* Iexscan SUM on world */
    long long ex_in = me + 1, ex_out = -1;
    CHECK_RC(MPI_Iexscan(&ex_in, &ex_out, 1, MPI_LONG_LONG, MPI_SUM, world, &rq[nr++]),
             MPI_SUCCESS);
    /* Ireduce_scatter_block SUM on world */
    int *rs_in = malloc(2 * (size_t)n * sizeof *rs_in), rs_out[2];
    for (int j = 0; j < 2 * n; j++)
        rs_in[j] = val(key + 8, me, j) % 1000;
    CHECK_RC(MPI_Ireduce_scatter_block(rs_in, rs_out, 2, MPI_INT, MPI_SUM, world, &rq[nr++]),
             MPI_SUCCESS);
    /* Iallgatherv on world, rank j contributes j % 3 ints */
    int *cnts = malloc((size_t)n * sizeof *cnts), *dsp = malloc((size_t)n * sizeof *dsp), tot = 0;
    for (int j = 0; j < n; j++)
        cnts[j] = j % 3, dsp[j] = tot, tot += j % 3;
    int agv_in[2] = {val(key + 9, me, 0), val(key + 9, me, 1)};
    int *agv_out = malloc(((size_t)tot + 1) * sizeof *agv_out);
    CHECK_RC(MPI_Iallgatherv(agv_in, me % 3, MPI_INT, agv_out, cnts, dsp, MPI_INT, world,
                             &rq[nr++]),
             MPI_SUCCESS);

    complete_all(rq, nr, round, round);

    for (int i = 0; i < 100; i++)
        CHECK(bc[i] == val(key, broot, i));
    for (int i = 0; i < 50; i++) {
        int e = 0;
        for (int r = 0; r < n; r++)
            e += val(key + 1, r, i) % 1000;
        CHECK(ar_out[i] == e);
    }
    if (me == n - 1)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 3; i++)
                CHECK(g_out[3 * r + i] == val(key + 2, r, i));
    for (int j = 0; j < 2 * n; j++)
        CHECK(a_out[j] == val(key + 3, (j / 2) * 4096 + me, j % 2));
    red_compare(mt, "matmul", s_out, s_exp, 4, "iscan");
    for (int j = 0; j < hn; j++)
        CHECK(ag_out[j] == val(key + 5, j, 0));
    for (int i = 0; i < 8; i++) {
        double e = 0;
        for (int r = 0; r < n; r++)
            e = (double)val(key + 6, r, i) > e ? (double)val(key + 6, r, i) : e;
        CHECK(mx[i] == e);
    }
    if (hme == 0)
        red_compare(mt, "matmul", r_out, r_exp, 2, "ireduce");
    if (me > 0)
        CHECK(ex_out == (long long)me * (me + 1) / 2);
    for (int i = 0; i < 2; i++) {
        int e = 0;
        for (int r = 0; r < n; r++)
            e += val(key + 8, r, 2 * me + i) % 1000;
        CHECK(rs_out[i] == e);
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < cnts[j]; i++)
            CHECK(agv_out[dsp[j] + i] == val(key + 9, j, i));
    free(g_out), free(a_in), free(a_out), free(s_in), free(s_out), free(s_exp), free(ag_out);
    free(r_in), free(r_out), free(r_exp), free(rs_in), free(cnts), free(dsp), free(agv_out);
}

/* 32 Iallreduce on one communicator at once, completed in reverse order. */
static void t_deep(void)
{
    enum { N = 32, C = 20 };
    MPI_Request rq[N];
    int in[N][C], out[N][C];
    for (int k = 0; k < N; k++) {
        for (int i = 0; i < C; i++)
            in[k][i] = val(k, wrank, i) % 100000;
        CHECK_RC(MPI_Iallreduce(in[k], out[k], C, MPI_INT, MPI_SUM, comms[3], &rq[k]),
                 MPI_SUCCESS);
    }
    for (int k = N - 1; k >= 0; k--)
        CHECK_RC(MPI_Wait(&rq[k], MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int k = 0; k < N; k++)
        for (int i = 0; i < C; i++) {
            int e = 0;
            for (int r = 0; r < wsize; r++)
                e += val(k, r, i) % 100000;
            CHECK(out[k][i] == e);
        }
}

/* ---- with point-to-point ----------------------------------------------------------------- */

/* Wildcard receives are posted on comm before the collectives start; probes during them see
 * nothing (no user message is sent before everybody has probed); then user messages with
 * several tags flow to the next rank while the collectives are pending. */
static void t_p2p(int round)
{
    MPI_Comm c = comms[1];
    int n = wsize, me = wrank, next = (me + 1) % n, prev = (me + n - 1) % n;
    enum { NMSG = 6 };
    static const int tags[NMSG] = {0, 1, 2, 7, 100, 32767};
    int umsg[NMSG][4], rmsg[NMSG][4];
    MPI_Request urq[NMSG], srq[NMSG], crq[6];
    for (int k = 0; k < NMSG; k++)
        CHECK_RC(MPI_Irecv(rmsg[k], 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &urq[k]),
                 MPI_SUCCESS);
    int key = 5000 + round * 10, x[64], y[64], z[64], *all = malloc(64 * (size_t)n * sizeof *all);
    for (int i = 0; i < 64; i++)
        x[i] = val(key, me, i) % 1000, z[i] = me == 0 ? val(key + 1, 0, i) : SENT;
    CHECK_RC(MPI_Iallreduce(x, y, 64, MPI_INT, MPI_SUM, c, &crq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Ibcast(z, 64, MPI_INT, 0, c, &crq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Iallgather(x, 64, MPI_INT, all, 64, MPI_INT, c, &crq[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Ibarrier(c, &crq[3]), MPI_SUCCESS);
    for (int i = 0; i < 20; i++) {
        int flag = 1;
        MPI_Status st;
        CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &flag, &st), MPI_SUCCESS);
        CHECK(!flag);
    }
    for (int k = 0; k < NMSG; k++) {
        int flag = 1;
        CHECK_RC(MPI_Test(&urq[k], &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(!flag);
    }
    CHECK_RC(MPI_Barrier(comms[0]), MPI_SUCCESS); /* everybody has probed */
    for (int k = 0; k < NMSG; k++) {
        for (int i = 0; i < 4; i++)
            umsg[k][i] = val(key + 2, me * 100 + k, i);
        CHECK_RC(MPI_Isend(umsg[k], 4, MPI_INT, next, tags[k], c, &srq[k]), MPI_SUCCESS);
        if (k == 2) /* more collectives among the user messages */
            CHECK_RC(MPI_Ibarrier(c, &crq[4]), MPI_SUCCESS);
    }
    int big = me;
    CHECK_RC(MPI_Iallreduce(MPI_IN_PLACE, &big, 1, MPI_INT, MPI_MAX, c, &crq[5]), MPI_SUCCESS);
    complete_all(crq, 6, round + 1, round + 100);
    MPI_Status st[NMSG];
    CHECK_RC(MPI_Waitall(NMSG, urq, st), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(NMSG, srq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    /* the user messages arrive in order (one sender, one communicator): non-overtaking */
    for (int k = 0; k < NMSG; k++) {
        CHECK(st[k].MPI_SOURCE == prev && st[k].MPI_TAG == tags[k]);
        for (int i = 0; i < 4; i++)
            CHECK(rmsg[k][i] == val(key + 2, prev * 100 + k, i));
    }
    for (int i = 0; i < 64; i++) {
        int e = 0;
        for (int r = 0; r < n; r++)
            e += val(key, r, i) % 1000;
        CHECK(y[i] == e);
        CHECK(z[i] == val(key + 1, 0, i));
        for (int r = 0; r < n; r++)
            CHECK(all[64 * r + i] == val(key, r, i) % 1000);
    }
    CHECK(big == n - 1);
    free(all);
}

/* ---- blocking among nonblocking ------------------------------------------------------------- */

static void t_mixed_blocking(void)
{
    MPI_Comm c = comms[0];
    int n = wsize, me = wrank;
    int a = me + 1, b = 0, v[4] = {0};
    MPI_Request rq[2];
    CHECK_RC(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, c, &rq[0]), MPI_SUCCESS);
    if (me == n - 1)
        for (int i = 0; i < 4; i++)
            v[i] = val(77, 0, i);
    CHECK_RC(MPI_Bcast(v, 4, MPI_INT, n - 1, c), MPI_SUCCESS);
    int s = 2 * me, t = -1;
    CHECK_RC(MPI_Iscan(&s, &t, 1, MPI_INT, MPI_SUM, c, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Barrier(c), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(b == n * (n + 1) / 2);
    for (int i = 0; i < 4; i++)
        CHECK(v[i] == val(77, 0, i));
    CHECK(t == me * (me + 1));
}

/* ---- overlap ------------------------------------------------------------------------------ */

/* A 1 MiB Iallreduce while computing, with MPI_Test now and then; then Wait. */
static void t_overlap(void)
{
    size_t cnt = (1 << 20) / sizeof(double);
    double *in = malloc(cnt * sizeof *in), *out = malloc(cnt * sizeof *in);
    for (size_t i = 0; i < cnt; i++)
        in[i] = (double)((int)(i % 1000) + wrank);
    MPI_Request rq;
    CHECK_RC(MPI_Iallreduce(in, out, (int)cnt, MPI_DOUBLE, MPI_SUM, comms[1], &rq), MPI_SUCCESS);
    volatile double acc = 0;
    int flag = 0, tests = 0;
    for (int it = 0; it < 1000000 && !flag; it++) {
        for (int k = 0; k < 200; k++)
            acc += (double)k * 0.5;
        if (it % 10 == 0) {
            CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
            tests++;
        }
    }
    int active = 0;
    if (!flag) {
        MPI_Status st;
        CHECK_RC(MPI_Request_get_status(rq, &active, &st), MPI_SUCCESS);
    }
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(rq == MPI_REQUEST_NULL);
    for (size_t i = 0; i < cnt; i++)
        CHECK(out[i] == (double)(wsize * (int)(i % 1000) + wsize * (wsize - 1) / 2));
    CHECK(acc > 0 && tests > 0);
    free(in), free(out);
}

/* ---- Ibarrier synchronises ---------------------------------------------------------------- */

static void t_ibarrier(void)
{
    double *t = malloc(2 * (size_t)wsize * sizeof *t);
    for (int late = 0; late < wsize && late < 3; late++) {
        double mine[2];
        if (wrank == late) {
            struct timespec ts = {0, 15000000L};
            nanosleep(&ts, NULL);
        }
        MPI_Request rq;
        mine[0] = now();
        CHECK_RC(MPI_Ibarrier(comms[0], &rq), MPI_SUCCESS);
        int flag = 0;
        while (!flag)
            CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        mine[1] = now();
        CHECK_RC(MPI_Allgather(mine, 2, MPI_DOUBLE, t, 2, MPI_DOUBLE, comms[0]), MPI_SUCCESS);
        for (int p = 0; p < wsize; p++)
            for (int q = 0; q < wsize; q++)
                CHECK(t[2 * p + 1] >= t[2 * q]);
    }
    free(t);
}

/* ---- objects freed while in use ------------------------------------------------------------- */

static void t_freed_while_pending(void)
{
    int n = wsize, me = wrank;
    /* a user op freed right after the start */
    MPI_Op op;
    CHECK_RC(MPI_Op_create(matmul_fn, 0, &op), MPI_SUCCESS);
    const tdesc_t *mt = &tds[TD_MAT];
    void *in = rbuf_alloc(mt, 3), *out = rbuf_alloc(mt, 3), *exp = rbuf_alloc(mt, 3);
    red_input(mt, op, in, 3, 900, me);
    red_reference(mt, op, exp, 0, 3, 900, 0, n);
    MPI_Request rq[3];
    CHECK_RC(MPI_Iallreduce(in, out, 3, mat_type, op, comms[0], &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Op_free(&op), MPI_SUCCESS);
    CHECK(op == MPI_OP_NULL);
    /* a derived datatype freed right after the start */
    MPI_Datatype v0, vec;
    CHECK_RC(MPI_Type_vector(3, 1, 2, MPI_INT, &v0), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_resized(v0, 0, 6 * sizeof(int), &vec), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&v0), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&vec), MPI_SUCCESS);
    int *vs = malloc(6 * (size_t)n * sizeof *vs), *vr = malloc(3 * (size_t)n * sizeof *vr);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 6; i++)
            vs[6 * j + i] = i % 2 ? SENT : val(901, me * 4096 + j, i / 2);
    CHECK_RC(MPI_Ialltoall(vs, 1, vec, vr, 3, MPI_INT, comms[0], &rq[1]), MPI_SUCCESS);
    MPI_Type_free(&vec);
    /* a communicator freed right after the start */
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(comms[0], &d), MPI_SUCCESS);
    int b[5];
    for (int i = 0; i < 5; i++)
        b[i] = me == 0 ? val(902, 0, i) : SENT;
    CHECK_RC(MPI_Ibcast(b, 5, MPI_INT, 0, d, &rq[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    red_compare(mt, "matmul", out, exp, 3, "iallreduce, op freed");
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 3; i++)
            CHECK(vr[3 * j + i] == val(901, j * 4096 + me, i));
    for (int i = 0; i < 5; i++)
        CHECK(b[i] == val(902, 0, i));
    free(in), free(out), free(exp), free(vs), free(vr);
}

/* ---- trivial cases ------------------------------------------------------------------------ */

static void t_trivial(void)
{
    MPI_Request rq[4];
    int x = 5, y = 0;
    CHECK_RC(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF, &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Ibcast(NULL, 0, MPI_INT, 0, comms[0], &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Iallreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, comms[0], &rq[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Ibarrier(MPI_COMM_SELF, &rq[3]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(y == 5);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    red_init();
    comms_init();
    t_trivial();
    for (int round = 0; round < 8; round++)
        t_many(round);
    t_deep();
    for (int round = 0; round < 4; round++)
        t_p2p(round);
    t_mixed_blocking();
    t_overlap();
    t_ibarrier();
    t_freed_while_pending();
    comms_free();
    red_free();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_nonblocking: ok\n");
    return 0;
}
