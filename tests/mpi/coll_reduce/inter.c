/* Reduction collectives on inter-communicators (MPI-3.1 §5.2.2): Barrier, Reduce (every root
 * of both groups, MPI_ROOT / MPI_PROC_NULL), Allreduce (each group gets the other's
 * reduction), Reduce_scatter and Reduce_scatter_block (the other group's reduction scattered
 * over this one), blocking and nonblocking, with non-commutative and derived-type cases; Scan
 * and Exscan refuse inter-communicators (MPI_ERR_COMM). Groups: even and odd world ranks,
 * so they differ in size at odd rank counts. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "red_test.h"

#include <time.h>

#include <stdio.h>

/* One clock for every process of the host (MPI_Wtime need not be: Open MPI's is not). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int salt, grp, lsize, rsize, lrank;

#define EXPECT(cond, what, c, count)                                                           \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL rank %d (group %d): %s, %s, count %zu (line %d)\n",       \
                    check_rank_(), grp, what, (c)->name, (size_t)(count), __LINE__);           \
            fflush(stderr);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

/* inputs of group g's rank r: salt distinguishes the groups */
#define SALT(g) (salt * 2 + (g))

static void test_reduce(MPI_Comm inter, const tcase_t *c, size_t count, int rootgrp, int root)
{
    salt++;
    void *sb = alloc_buf(c, count), *rb = alloc_buf(c, count), *ref = alloc_buf(c, count);
    int r;
    if (grp == rootgrp) {
        r = lrank == root ? MPI_ROOT : MPI_PROC_NULL;
        /* sendbuf is not significant here (MPICH still wants it non-NULL) */
        CHECK_RC(MPI_Reduce(sb, rb, (int)count, c->dt, c->op, r, inter), MPI_SUCCESS);
        if (r == MPI_ROOT)
            fold(c, ref, count, 0, rsize, SALT(!grp));
        /* MPI_PROC_NULL: recvbuf untouched (ref is all sentinel) */
        EXPECT(same(c, rb, ref, count), "inter Reduce", c, count);
    } else {
        fill(c, sb, count, lrank, SALT(grp));
        CHECK_RC(MPI_Reduce(sb, NULL, (int)count, c->dt, c->op, root, inter), MPI_SUCCESS);
    }
    free_buf(c, sb);
    free_buf(c, rb);
    free_buf(c, ref);
}

static void test_allreduce(MPI_Comm inter, const tcase_t *c, size_t count, int nb)
{
    salt++;
    void *sb = alloc_buf(c, count), *rb = alloc_buf(c, count), *ref = alloc_buf(c, count);
    fill(c, sb, count, lrank, SALT(grp));
    if (nb) {
        MPI_Request req;
        CHECK_RC(MPI_Iallreduce(sb, rb, (int)count, c->dt, c->op, inter, &req), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
        CHECK_RC(MPI_Allreduce(sb, rb, (int)count, c->dt, c->op, inter), MPI_SUCCESS);
    }
    fold(c, ref, count, 0, rsize, SALT(!grp));
    EXPECT(same(c, rb, ref, count), nb ? "inter Iallreduce" : "inter Allreduce", c,
           count);
    free_buf(c, sb);
    free_buf(c, rb);
    free_buf(c, ref);
}

/* total elements in both groups; block: recvcount per member such that totals agree */
static void test_reduce_scatter(MPI_Comm inter, const tcase_t *c, size_t k, int block, int nb)
{
    salt++;
    size_t total = block ? k * (size_t)lsize * (size_t)rsize : k;
    int *cnt = malloc(sizeof(int) * (size_t)lsize);
    size_t displ = 0;
    for (int i = 0; i < lsize; i++) {
        cnt[i] = block ? (int)(k * (size_t)rsize)
                       : (int)(total / (size_t)lsize + ((size_t)i < total % (size_t)lsize));
        if (i < lrank)
            displ += (size_t)cnt[i];
    }
    void *sb = alloc_buf(c, total), *rb = alloc_buf(c, (size_t)cnt[lrank]);
    void *ref = alloc_buf(c, total);
    fill(c, sb, total, lrank, SALT(grp));
    MPI_Request req = MPI_REQUEST_NULL;
    if (block && nb)
        CHECK_RC(MPI_Ireduce_scatter_block(sb, rb, cnt[0], c->dt, c->op, inter, &req), 0);
    else if (block)
        CHECK_RC(MPI_Reduce_scatter_block(sb, rb, cnt[0], c->dt, c->op, inter), MPI_SUCCESS);
    else if (nb)
        CHECK_RC(MPI_Ireduce_scatter(sb, rb, cnt, c->dt, c->op, inter, &req), MPI_SUCCESS);
    else
        CHECK_RC(MPI_Reduce_scatter(sb, rb, cnt, c->dt, c->op, inter), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    fold(c, ref, total, 0, rsize, SALT(!grp));
    EXPECT(same_at(c, rb, ref, displ, (size_t)cnt[lrank]),
           block ? "inter Reduce_scatter_block" : "inter Reduce_scatter", c, total);
    free(cnt);
    free_buf(c, sb);
    free_buf(c, rb);
    free_buf(c, ref);
}

static void test_barrier(MPI_Comm inter, int nb)
{
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    for (int late = 0; late < n; late++) {
        CHECK_RC(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
        double entered = 0;
        if (me == late) {
            double t = now();
            while ((entered = now()) < t + 0.01)
                ;
        }
        if (nb) {
            MPI_Request req;
            CHECK_RC(MPI_Ibarrier(inter, &req), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Barrier(inter), MPI_SUCCESS);
        }
        double left = now();
        if (me == late) {
            for (int r = 0; r < n; r++)
                if (r != me)
                    CHECK_RC(MPI_Send(&entered, 1, MPI_DOUBLE, r, 7, MPI_COMM_WORLD), 0);
        } else {
            CHECK_RC(MPI_Recv(&entered, 1, MPI_DOUBLE, late, 7, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
        /* MPI-3.1 §5.3: a process may leave before its own group has entered */
        if (late % 2 != grp && left < entered) {
            fprintf(stderr, "FAIL rank %d: left the inter-communicator barrier before rank %d "
                    "entered\n", me, late);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n, me;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (n < 2) { /* no second group */
        MPI_Finalize();
        return 0;
    }
    cases_init();
    grp = me % 2;
    MPI_Comm local, inter;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, grp, me, &local), MPI_SUCCESS);
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, !grp, 11, &inter), MPI_SUCCESS);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &lrank);

    test_barrier(inter, 0);
    test_barrier(inter, 1);
    static const size_t counts[] = { 0, 1, 5, 100, 4500 };
    for (int ci = 0; ci < NCASES; ci++) {
        const tcase_t *c = &cases[ci];
        if (c->op != MPI_SUM && c->op != op_affine && c->op != MPI_MINLOC)
            continue;
        for (int k = 0; k < 5; k++) {
            size_t count = counts[k];
            if (count > 1000 && !c->big)
                continue;
            for (int rootgrp = 0; rootgrp < 2; rootgrp++)
                for (int root = 0; root < (rootgrp ? n / 2 : (n + 1) / 2); root++)
                    test_reduce(inter, c, count, rootgrp, root);
            test_allreduce(inter, c, count, 0);
            test_allreduce(inter, c, count, 1);
            test_reduce_scatter(inter, c, count, 0, k % 2);
            test_reduce_scatter(inter, c, count > 100 ? count / 8 : count, 1, k % 2);
        }
    }

    /* intra-communicator only */
    int x = 1, y;
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    CHECK_ERR(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
    CHECK_ERR(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM);
    MPI_Request req;
    CHECK_ERR(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, inter, &req), MPI_ERR_COMM);
    /* no MPI_IN_PLACE on inter-communicators */
    CHECK_ERR(MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_BUFFER);
    int cnts[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    CHECK_ERR(MPI_Reduce_scatter(MPI_IN_PLACE, &y, cnts, MPI_INT, MPI_SUM, inter),
              MPI_ERR_BUFFER);
    /* roots: a remote rank, MPI_ROOT or MPI_PROC_NULL */
    CHECK_ERR(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, rsize, inter), MPI_ERR_ROOT);
    CHECK_ERR(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, -7, inter), MPI_ERR_ROOT);
    /* still in step after the refused calls */
    CHECK_RC(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_SUCCESS);
    CHECK(y == rsize);

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    cases_free();
    MPI_Finalize();
    return 0;
}
