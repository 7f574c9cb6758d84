/* Collectives on inter-communicators (MPI-3.1 §5.2.2 and each operation's section): the
 * rooted ones (Bcast, Gather(v), Scatter(v), Reduce) with MPI_ROOT at the root, MPI_PROC_NULL
 * at the other processes of its group (whose buffers stay untouched) and the root's rank in
 * the other group; Allgather(v), Alltoall(v,w) (each group sends to and receives from the
 * other one, with different counts in the two directions), Allreduce (each group gets the
 * reduction of the other group's data, in its rank order: checked with the non-commutative
 * matrix product too), Reduce_scatter(_block) (the other group's reduction scattered by the
 * local counts), and Barrier (no process leaves before every process of the other group has
 * entered). Inter-communicators from MPI_Intercomm_create on an odd/even split and on a
 * split of one process against the rest (in reverse order); derived datatypes and counts 0
 * as in the intra-communicator tests. Needs at least 2 processes (exits at once on 1).
 *
 *   coll_inter [nb]     nb: every collective through its I-form
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include "coll_red.h"

#include <time.h>

typedef struct {
    MPI_Comm ic;
    int grp;  /* 0 or 1: which side this process is on */
    int me;   /* rank in the local group */
    int L, R; /* local and remote group sizes */
} inter_t;

/* The process of group g with rank r (in that group): the `who` of its data. */
#define WHO(g, r) ((g) * 4096 + (r))
/* The data process (g, r) sends to process (g2, r2). */
#define PAIR2(g, r, r2) (((g) * 4096 + (r)) * 4096 + (r2))

static int wrank, wsize;

/* The layout of a process. MPICH 4.0.2 mismatches on inter-communicators when processes use
 * different layouts of the same signature (Gather hangs): under MPICH every process uses the
 * same layout. */
static const lay_t *ipick(int key, int who, int nints)
{
#ifdef METAMPI
    return pick(key, who, nints);
#else
    (void)who;
    return pick(key, 0, nints);
#endif
}

static inter_t make_inter(int config)
{
    inter_t t;
    MPI_Comm local;
    int leader_of[2];
    if (config == 0) { /* evens against odds */
        t.grp = wrank % 2;
        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, t.grp, wrank, &local), MPI_SUCCESS);
        leader_of[0] = 0, leader_of[1] = 1;
    } else { /* the last process against the others, those in reverse order */
        t.grp = wrank == wsize - 1;
        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, t.grp, wsize - wrank, &local), MPI_SUCCESS);
        leader_of[0] = wsize - 2, leader_of[1] = wsize - 1;
    }
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, leader_of[!t.grp], 77, &t.ic),
             MPI_SUCCESS);
    MPI_Comm_free(&local);
    int flag;
    CHECK_RC(MPI_Comm_test_inter(t.ic, &flag), MPI_SUCCESS);
    CHECK(flag);
    MPI_Comm_rank(t.ic, &t.me);
    MPI_Comm_size(t.ic, &t.L);
    MPI_Comm_remote_size(t.ic, &t.R);
    return t;
}

/* ---- barrier ------------------------------------------------------------------------------ */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void t_barrier(const inter_t *t)
{
    for (int i = 0; i < 10; i++)
        CHECK_RC(c_barrier(t->ic), MPI_SUCCESS);
    double *all = malloc(3 * (size_t)wsize * sizeof *all);
    for (int late = 0; late < 2; late++) {
        double mine[3];
        if (t->grp == late && t->me == 0) {
            struct timespec ts = {0, 20000000L};
            nanosleep(&ts, NULL);
        }
        mine[0] = now();
        CHECK_RC(c_barrier(t->ic), MPI_SUCCESS);
        mine[1] = now();
        mine[2] = t->grp;
        CHECK_RC(MPI_Allgather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, MPI_COMM_WORLD),
                 MPI_SUCCESS);
        /* every exit comes after every entry of the other group */
        for (int p = 0; p < wsize; p++)
            for (int q = 0; q < wsize; q++)
                if (all[3 * p + 2] != all[3 * q + 2])
                    CHECK(all[3 * p + 1] >= all[3 * q]);
    }
    free(all);
}

/* ---- rooted ------------------------------------------------------------------------------- */

/* The root argument of this process for a root (rg, rr): MPI_ROOT, MPI_PROC_NULL, or rr. */
static int root_arg(const inter_t *t, int rg, int rr)
{
    if (t->grp != rg)
        return rr;
    return t->me == rr ? MPI_ROOT : MPI_PROC_NULL;
}

static void t_bcast(const inter_t *t, int key0)
{
    int key = key0;
    static const int sizes[] = {0, 1, 6, 300, 4000, 65536};
    for (int s = 0; s < 6; s++)
        for (int rg = 0; rg < 2; rg++) {
            int rsize = rg == t->grp ? t->L : t->R;
            for (int rr = 0; rr < rsize; rr += rsize > 1 ? rsize - 1 : 1) {
                key++;
#ifndef METAMPI
                /* MPICH 4.0.2's MPI_Ibcast on an inter-communicator delivers nothing when
                 * the root is not rank 0 of its group */
                if (coll_nb && rr != 0)
                    continue;
#endif
                int nints = sizes[s], root = root_arg(t, rg, rr);
                const lay_t *l = ipick(key, WHO(t->grp, t->me), nints);
                int cnt = lay_count(l, nints);
                size_t span = lay_span(l, cnt);
                int *buf = ibuf(span), *exp = ibuf(span);
                if (root == MPI_ROOT)
                    lay_put(l, buf, cnt, key, WHO(rg, rr), 0);
                if (root != MPI_PROC_NULL) /* the root's buffer is read only */
                    lay_put(l, exp, cnt, key, WHO(rg, rr), 0);
                CHECK_RC(c_bcast(buf, cnt, l->type, root, t->ic), MPI_SUCCESS);
                check_ints(buf, exp, span, "inter bcast");
                free(buf), free(exp);
            }
        }
}

static void t_gather_scatter(const inter_t *t, int key0)
{
    int key = key0;
    rng_t g = {(uint64_t)key0};
    int nmax = t->L > t->R ? t->L : t->R;
    int *cnt = malloc((size_t)nmax * sizeof *cnt), *counts = malloc((size_t)nmax * sizeof *cnt);
    int *displs = malloc((size_t)nmax * sizeof *cnt);
    static const int sizes[] = {0, 1, 4, 40, 2000, 32768};
    for (int s = 0; s < 6; s++)
        for (int rg = 0; rg < 2; rg++) {
            int rsize = rg == t->grp ? t->L : t->R, osize = rg == t->grp ? t->R : t->L;
            for (int rr = 0; rr < rsize; rr += rsize > 1 ? rsize - 1 : 1) {
                int root = root_arg(t, rg, rr), nints = sizes[s];
                int other = !rg; /* the group that sends (gather) or receives (scatter) */
                /* gather: osize blocks of nints from the other group */
                key++;
                {
                    const lay_t *l = ipick(key, WHO(t->grp, t->me), nints);
                    int c = lay_count(l, nints);
                    size_t block = lay_span(l, c);
                    size_t span = root == MPI_ROOT ? block * (size_t)osize
                                  : root == MPI_PROC_NULL ? 0 : block;
                    int *buf = ibuf(span), *exp = ibuf(span);
                    if (root == MPI_ROOT)
                        for (int j = 0; j < osize; j++)
                            lay_put(l, exp + (size_t)j * block, c, key, WHO(other, j), 0);
                    else if (root != MPI_PROC_NULL)
                        lay_put(l, buf, c, key, WHO(t->grp, t->me), 0);
                    if (root >= 0)
                        memcpy(exp, buf, (span + GUARD) * sizeof *buf);
                    CHECK_RC(c_gather(root >= 0 ? buf : NULL, c, l->type,
                                      root == MPI_ROOT ? buf : NULL, c, l->type, root, t->ic),
                             MPI_SUCCESS);
                    check_ints(buf, exp, span, "inter gather");
                    free(buf), free(exp);
                }
                /* gatherv: random counts, the root's displacements */
                key++;
                {
                    int even = key % 2;
                    v_counts(&g, osize, nints + 1, even, cnt);
                    const lay_t *l = even ? ipick(key, WHO(t->grp, t->me), 2) : &lays[LAY_INT];
                    size_t span = 0;
                    int *buf, *exp;
                    if (root == MPI_ROOT) {
                        span = lay_span(l, v_displs(key, 0, osize, cnt, l->nint, displs));
                        buf = ibuf(span), exp = ibuf(span);
                        for (int j = 0; j < osize; j++) {
                            counts[j] = lay_count(l, cnt[j]);
                            lay_put(l, exp + lay_span(l, displs[j]), counts[j], key,
                                    WHO(other, j), 0);
                        }
                    } else {
                        if (root >= 0)
                            span = lay_span(l, lay_count(l, cnt[t->me]));
                        buf = ibuf(span), exp = ibuf(span);
                        if (root >= 0) {
                            lay_put(l, buf, lay_count(l, cnt[t->me]), key, WHO(t->grp, t->me), 0);
                            memcpy(exp, buf, (span + GUARD) * sizeof *buf);
                        }
                    }
                    int sc = root >= 0 ? lay_count(l, cnt[t->me]) : 0;
                    CHECK_RC(c_gatherv(buf, sc, l->type, buf, root == MPI_ROOT ? counts : NULL,
                                       root == MPI_ROOT ? displs : NULL, l->type, root, t->ic),
                             MPI_SUCCESS);
                    check_ints(buf, exp, span, "inter gatherv");
                    free(buf), free(exp);
                }
                /* scatter: osize blocks of nints to the other group */
                key++;
                {
                    const lay_t *l = ipick(key, WHO(t->grp, t->me), nints);
                    int c = lay_count(l, nints);
                    size_t block = lay_span(l, c);
                    size_t span = root == MPI_ROOT ? block * (size_t)osize
                                  : root == MPI_PROC_NULL ? 0 : block;
                    int *buf = ibuf(span), *exp = ibuf(span);
                    if (root == MPI_ROOT)
                        for (int j = 0; j < osize; j++)
                            lay_put(l, buf + (size_t)j * block, c, key, WHO(other, j), 0);
                    else if (root != MPI_PROC_NULL)
                        lay_put(l, exp, c, key, WHO(t->grp, t->me), 0);
                    if (root == MPI_ROOT)
                        memcpy(exp, buf, (span + GUARD) * sizeof *buf);
                    CHECK_RC(c_scatter(root == MPI_ROOT ? buf : NULL, c, l->type,
                                       root >= 0 ? buf : NULL, c, l->type, root, t->ic),
                             MPI_SUCCESS);
                    check_ints(buf, exp, span, "inter scatter");
                    free(buf), free(exp);
                }
                /* scatterv */
                key++;
                {
                    int even = key % 2;
                    v_counts(&g, osize, nints + 1, even, cnt);
                    const lay_t *l = even ? ipick(key, WHO(t->grp, t->me), 2) : &lays[LAY_INT];
                    size_t span = 0;
                    int *buf, *exp;
                    if (root == MPI_ROOT) {
                        span = lay_span(l, v_displs(key, 0, osize, cnt, l->nint, displs));
                        buf = ibuf(span), exp = ibuf(span);
                        for (int j = 0; j < osize; j++) {
                            counts[j] = lay_count(l, cnt[j]);
                            lay_put(l, buf + lay_span(l, displs[j]), counts[j], key,
                                    WHO(other, j), 0);
                        }
                        memcpy(exp, buf, (span + GUARD) * sizeof *buf);
                    } else {
                        if (root >= 0)
                            span = lay_span(l, lay_count(l, cnt[t->me]));
                        buf = ibuf(span), exp = ibuf(span);
                        if (root >= 0)
                            lay_put(l, exp, lay_count(l, cnt[t->me]), key, WHO(t->grp, t->me), 0);
                    }
                    int rc = root >= 0 ? lay_count(l, cnt[t->me]) : 0;
                    CHECK_RC(c_scatterv(buf, root == MPI_ROOT ? counts : NULL,
                                        root == MPI_ROOT ? displs : NULL, l->type, buf, rc,
                                        l->type, root, t->ic),
                             MPI_SUCCESS);
                    check_ints(buf, exp, span, "inter scatterv");
                    free(buf), free(exp);
                }
            }
        }
    free(cnt), free(counts), free(displs);
}

/* ---- allgather, alltoall ---------------------------------------------------------------- */

static void t_allgather(const inter_t *t, int key0)
{
    int key = key0;
    rng_t g = {(uint64_t)key0};
    int *cnt = malloc((size_t)t->R * sizeof *cnt), *counts = malloc((size_t)t->R * sizeof *cnt);
    int *displs = malloc((size_t)t->R * sizeof *cnt);
    static const int sizes[][2] = {{0, 0}, {1, 0}, {0, 3}, {5, 2}, {300, 1000}, {32768, 16384}};
    for (int s = 0; s < 6; s++) {
        key++;
        int sn = sizes[s][t->grp], rn = sizes[s][!t->grp]; /* ints sent, received per block */
        const lay_t *ls = ipick(key, WHO(t->grp, t->me), sn), *lr = ipick(key + 1, t->me, rn);
        int sc = lay_count(ls, sn), rc = lay_count(lr, rn);
        size_t sspan = lay_span(ls, sc), rblock = lay_span(lr, rc), rspan = rblock * (size_t)t->R;
        int *sbuf = ibuf(sspan), *rbuf = ibuf(rspan), *rexp = ibuf(rspan);
        lay_put(ls, sbuf, sc, key, WHO(t->grp, t->me), 0);
        for (int j = 0; j < t->R; j++)
            lay_put(lr, rexp + (size_t)j * rblock, rc, key, WHO(!t->grp, j), 0);
        CHECK_RC(c_allgather(sbuf, sc, ls->type, rbuf, rc, lr->type, t->ic), MPI_SUCCESS);
        check_ints(rbuf, rexp, rspan, "inter allgather");
        free(sbuf), free(rbuf), free(rexp);
        /* allgatherv: the counts of both groups drawn by everybody */
        key++;
        int *cg[2] = {malloc((size_t)wsize * sizeof(int)), malloc((size_t)wsize * sizeof(int))};
        int gsize[2] = {t->grp ? t->R : t->L, t->grp ? t->L : t->R};
        for (int gg = 0; gg < 2; gg++)
            v_counts(&g, gsize[gg], sizes[s][gg] + 1, 1, cg[gg]);
        for (int j = 0; j < t->R; j++)
            cnt[j] = cg[!t->grp][j];
        ls = ipick(key, WHO(t->grp, t->me), 2), lr = ipick(key + 1, WHO(t->grp, t->me), 2);
        sc = lay_count(ls, cg[t->grp][t->me]);
        sspan = lay_span(ls, sc);
        rspan = lay_span(lr, v_displs(key, WHO(t->grp, t->me), t->R, cnt, lr->nint, displs));
        sbuf = ibuf(sspan), rbuf = ibuf(rspan), rexp = ibuf(rspan);
        lay_put(ls, sbuf, sc, key, WHO(t->grp, t->me), 0);
        for (int j = 0; j < t->R; j++) {
            counts[j] = lay_count(lr, cnt[j]);
            lay_put(lr, rexp + lay_span(lr, displs[j]), counts[j], key, WHO(!t->grp, j), 0);
        }
        CHECK_RC(c_allgatherv(sbuf, sc, ls->type, rbuf, counts, displs, lr->type, t->ic),
                 MPI_SUCCESS);
        check_ints(rbuf, rexp, rspan, "inter allgatherv");
        free(sbuf), free(rbuf), free(rexp), free(cg[0]), free(cg[1]);
    }
    free(cnt), free(counts), free(displs);
}

static void t_alltoall(const inter_t *t, int key0)
{
    int key = key0, L = t->L, R = t->R, G = t->grp, me = t->me;
    rng_t g = {(uint64_t)key0};
    static const int sizes[][2] = {{0, 0}, {1, 0}, {0, 3}, {5, 2}, {300, 1000}, {16384, 8192}};
    int gsize[2] = {G ? R : L, G ? L : R};
    int *sc = malloc((size_t)R * sizeof *sc), *sd = malloc((size_t)R * sizeof *sc);
    int *rc = malloc((size_t)R * sizeof *sc), *rd = malloc((size_t)R * sizeof *sc);
    int *scnt = malloc((size_t)R * sizeof *sc), *rcnt = malloc((size_t)R * sizeof *sc);
    MPI_Datatype *st = malloc((size_t)R * sizeof *st), *rt = malloc((size_t)R * sizeof *st);
    size_t *soff = malloc((size_t)R * sizeof *soff), *roff = malloc((size_t)R * sizeof *soff);
    const lay_t **sl = malloc((size_t)R * sizeof *sl), **rl = malloc((size_t)R * sizeof *sl);
    int *mat[2] = {malloc((size_t)wsize * (size_t)wsize * sizeof(int)),
                   malloc((size_t)wsize * (size_t)wsize * sizeof(int))};
    for (int s = 0; s < 6; s++) {
        /* alltoall: group G sends sizes[s][G] ints to every process of the other group */
        key++;
        int sn = sizes[s][G], rn = sizes[s][!G];
        const lay_t *ls = ipick(key, WHO(G, me), sn), *lr = ipick(key + 1, WHO(G, me), rn);
        int c1 = lay_count(ls, sn), c2 = lay_count(lr, rn);
        size_t sb = lay_span(ls, c1), rb = lay_span(lr, c2);
        int *sbuf = ibuf(sb * (size_t)R), *rbuf = ibuf(rb * (size_t)R), *rexp = ibuf(rb * (size_t)R);
        for (int j = 0; j < R; j++) {
            lay_put(ls, sbuf + (size_t)j * sb, c1, key, PAIR2(G, me, j), 0);
            lay_put(lr, rexp + (size_t)j * rb, c2, key, PAIR2(!G, j, me), 0);
        }
        CHECK_RC(c_alltoall(sbuf, c1, ls->type, rbuf, c2, lr->type, t->ic), MPI_SUCCESS);
        check_ints(rbuf, rexp, rb * (size_t)R, "inter alltoall");
        free(sbuf), free(rbuf), free(rexp);
        /* alltoallv: count matrices of both directions, mat[g][i * other + j] ints from
         * process i of group g to process j of the other */
        key++;
        for (int gg = 0; gg < 2; gg++)
            for (int k = 0; k < gsize[gg] * gsize[!gg]; k++)
                mat[gg][k] = rng_count(&g, sizes[s][gg] + 1) * 2;
        for (int j = 0; j < R; j++)
            scnt[j] = mat[G][me * R + j], rcnt[j] = mat[!G][j * L + me];
        ls = ipick(key, WHO(G, me), 2), lr = ipick(key + 1, WHO(G, me), 2);
        size_t sspan = lay_span(ls, v_displs(key, WHO(G, me), R, scnt, ls->nint, sd));
        size_t rspan = lay_span(lr, v_displs(key + 1, WHO(G, me), R, rcnt, lr->nint, rd));
        sbuf = ibuf(sspan), rbuf = ibuf(rspan), rexp = ibuf(rspan);
        for (int j = 0; j < R; j++) {
            sc[j] = lay_count(ls, scnt[j]), rc[j] = lay_count(lr, rcnt[j]);
            lay_put(ls, sbuf + lay_span(ls, sd[j]), sc[j], key, PAIR2(G, me, j), 0);
            lay_put(lr, rexp + lay_span(lr, rd[j]), rc[j], key, PAIR2(!G, j, me), 0);
        }
        CHECK_RC(c_alltoallv(sbuf, sc, sd, ls->type, rbuf, rc, rd, lr->type, t->ic),
                 MPI_SUCCESS);
        check_ints(rbuf, rexp, rspan, "inter alltoallv");
        free(sbuf), free(rbuf), free(rexp);
        /* alltoallw: the same counts, a layout per peer, byte displacements */
        key++;
        size_t spos = 0, rpos = 0;
        for (int j = 0; j < R; j++) {
            sl[j] = ipick(key, PAIR2(G, me, j), 2), rl[j] = ipick(key + 1, PAIR2(!G, j, me), 2);
            sc[j] = lay_count(sl[j], scnt[j]), rc[j] = lay_count(rl[j], rcnt[j]);
            spos += (size_t)(j % 2), rpos += (size_t)((j + 1) % 3);
            soff[j] = spos, roff[j] = rpos;
            sd[j] = (int)(spos * sizeof(int)), rd[j] = (int)(rpos * sizeof(int));
            st[j] = sl[j]->type, rt[j] = rl[j]->type;
            spos += lay_span(sl[j], sc[j]), rpos += lay_span(rl[j], rc[j]);
        }
        sbuf = ibuf(spos), rbuf = ibuf(rpos), rexp = ibuf(rpos);
        for (int j = 0; j < R; j++) {
            lay_put(sl[j], sbuf + soff[j], sc[j], key, PAIR2(G, me, j), 0);
            lay_put(rl[j], rexp + roff[j], rc[j], key, PAIR2(!G, j, me), 0);
        }
        CHECK_RC(c_alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, t->ic), MPI_SUCCESS);
        check_ints(rbuf, rexp, rpos, "inter alltoallw");
        free(sbuf), free(rbuf), free(rexp);
    }
    free(sc), free(sd), free(rc), free(rd), free(scnt), free(rcnt), free(st), free(rt);
    free(soff), free(roff), free(sl), free(rl), free(mat[0]), free(mat[1]);
}

/* ---- reductions --------------------------------------------------------------------------- */

static void t_reduce(const inter_t *t, int key0)
{
    int key = key0, G = t->grp;
    static const int sel[] = {0, 3, 12, 20, 28, 34, 35, 36};
    static const size_t counts[] = {0, 1, 37, 3000, 65536};
    for (int si = 0; si < (int)(sizeof sel / sizeof *sel); si++)
        for (int ci = 0; ci < 5; ci++) {
            const redcase_t *rc = &redcases[sel[si]];
            const tdesc_t *td = &tds[rc->td];
            size_t count = counts[ci];
            if (count * td->extent > (1 << 20))
                count = (1 << 20) / td->extent - 1;
            if (ci == 4 && si % 3)
                continue;
            /* reduce: to a root of each group in turn */
            key++;
            for (int rg = 0; rg < 2; rg++) {
                int rsize = rg == G ? t->L : t->R, rr = (si + ci) % rsize;
                int root = root_arg(t, rg, rr);
                void *sbuf = rbuf_alloc(td, count), *rbuf = rbuf_alloc(td, count);
                void *exp = rbuf_alloc(td, count);
                if (root >= 0)
                    red_input(td, rc->op, sbuf, count, key, WHO(G, t->me));
                if (root == MPI_ROOT)
                    red_reference(td, rc->op, exp, 0, count, key, WHO(!G, 0), WHO(!G, t->R));
                CHECK_RC(c_reduce(sbuf, root == MPI_ROOT ? rbuf : NULL, (int)count, td->type,
                                  rc->op, root, t->ic),
                         MPI_SUCCESS);
                red_compare(td, rc->opname, rbuf, exp, count, "inter reduce");
                free(sbuf), free(rbuf), free(exp);
            }
            /* allreduce: each group gets the other group's reduction */
            key++;
            {
                void *sbuf = rbuf_alloc(td, count), *rbuf = rbuf_alloc(td, count);
                void *exp = rbuf_alloc(td, count);
                red_input(td, rc->op, sbuf, count, key, WHO(G, t->me));
                red_reference(td, rc->op, exp, 0, count, key, WHO(!G, 0), WHO(!G, t->R));
                CHECK_RC(c_allreduce(sbuf, rbuf, (int)count, td->type, rc->op, t->ic),
                         MPI_SUCCESS);
                red_compare(td, rc->opname, rbuf, exp, count, "inter allreduce");
                free(sbuf), free(rbuf), free(exp);
            }
        }
}

static void t_reduce_scatter(const inter_t *t, int key0)
{
    int key = key0, G = t->grp, L = t->L, R = t->R;
    rng_t g = {(uint64_t)key0};
    static const int sel[] = {0, 12, 28, 34, 36};
    int gsize[2] = {G ? R : L, G ? L : R};
    int *cg[2] = {malloc((size_t)wsize * sizeof(int)), malloc((size_t)wsize * sizeof(int))};
    for (int si = 0; si < (int)(sizeof sel / sizeof *sel); si++)
        for (int m = 0; m < 3; m++) {
            const redcase_t *rc = &redcases[sel[si]];
            const tdesc_t *td = &tds[rc->td];
            /* reduce_scatter: counts of group 0 random; group 1's the same total, spread */
            key++;
            int maxc = m == 0 ? 2 : m == 1 ? 100 : (int)((1 << 19) / td->extent / (size_t)wsize);
            size_t total = 0;
            for (int j = 0; j < gsize[0]; j++)
                total += (size_t)(cg[0][j] = rng_count(&g, maxc));
            for (int j = 0; j < gsize[1]; j++)
                cg[1][j] = (int)(total / (size_t)gsize[1]) + (j < (int)(total % (size_t)gsize[1]));
            size_t first = 0, mine = (size_t)cg[G][t->me];
            for (int j = 0; j < t->me; j++)
                first += (size_t)cg[G][j];
            void *sbuf = rbuf_alloc(td, total), *rbuf = rbuf_alloc(td, mine);
            void *exp = rbuf_alloc(td, mine);
            red_input(td, rc->op, sbuf, total, key, WHO(G, t->me));
            red_reference(td, rc->op, exp, first, mine, key, WHO(!G, 0), WHO(!G, R));
            CHECK_RC(c_reduce_scatter(sbuf, rbuf, cg[G], td->type, rc->op, t->ic), MPI_SUCCESS);
            red_compare(td, rc->opname, rbuf, exp, mine, "inter reduce_scatter");
            free(sbuf), free(rbuf), free(exp);
            /* reduce_scatter_block: L * rc(own) = R * rc(other) = k * L * R */
            key++;
#ifndef METAMPI
            /* MPICH 4.0.2 fails with "Message truncated" in the local scatter of a pair
             * type (size 12, extent 16) */
            if (rc->td == TD_DI)
                continue;
#endif
            int k = m == 0 ? 0 : m == 1 ? 1 + rng_int(&g, 5) : maxc / (L * R) + 1;
            int myc = k * R;
            total = (size_t)myc * (size_t)L;
            first = (size_t)myc * (size_t)t->me;
            sbuf = rbuf_alloc(td, total), rbuf = rbuf_alloc(td, (size_t)myc);
            exp = rbuf_alloc(td, (size_t)myc);
            red_input(td, rc->op, sbuf, total, key, WHO(G, t->me));
            red_reference(td, rc->op, exp, first, (size_t)myc, key, WHO(!G, 0), WHO(!G, R));
            CHECK_RC(c_reduce_scatter_block(sbuf, rbuf, myc, td->type, rc->op, t->ic),
                     MPI_SUCCESS);
            red_compare(td, rc->opname, rbuf, exp, (size_t)myc, "inter reduce_scatter_block");
            free(sbuf), free(rbuf), free(exp);
        }
    free(cg[0]), free(cg[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    coll_args(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (wsize < 2) {
        if (wrank == 0)
            printf("coll_inter: needs 2 processes, nothing to do\n");
        MPI_Finalize();
        return 0;
    }
    lay_init();
    red_init();
    static const char *names[2] = {"inter odd/even", "inter 1 against the rest"};
    for (int config = 0; config < 2; config++) {
        inter_t t = make_inter(config);
        coll_ctx = names[config];
        int key = (config + 1) << 20;
        t_barrier(&t);
        t_bcast(&t, key + (1 << 16));
        t_gather_scatter(&t, key + (2 << 16));
        t_allgather(&t, key + (3 << 16));
        t_alltoall(&t, key + (4 << 16));
        t_reduce(&t, key + (5 << 16));
        t_reduce_scatter(&t, key + (6 << 16));
        MPI_Comm_free(&t.ic);
    }
    red_free();
    lay_free();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_inter%s: ok\n", coll_nb ? " (nonblocking)" : "");
    return 0;
}
