/* Reduction collectives on intra-communicators against references folded in rank order:
 * MPI_Reduce (every root for small counts), Allreduce, Reduce_scatter, Reduce_scatter_block,
 * Scan, Exscan, with and without MPI_IN_PLACE, counts from 0 to past the long-message
 * thresholds, predefined/pair/derived types, predefined and user ops (non-commutative too);
 * on MPI_COMM_WORLD and on a communicator whose ranks interleave the world's (so host ranges
 * are not contiguous under METAMPI_COLL_VIRTUAL_HOSTS). Also Barrier (a late rank holds
 * everyone) and determinism (non-exact double sums: identical bits at every rank and run). */
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

static int salt, quick; /* quick: no counts beyond 10000 (forced algorithms need none) */
static const char *cname;

#define EXPECT(cond, what, c, count)                                                           \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL rank %d: %s on %s, %s, count %zu (line %d)\n",            \
                    check_rank_(), what, cname, (c)->name, (size_t)(count), __LINE__);         \
            fflush(stderr);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

static void test_allreduce(MPI_Comm comm, const tcase_t *c, size_t count, int inplace)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    salt++;
    void *sb = alloc_buf(c, count), *rb = alloc_buf(c, count), *ref = alloc_buf(c, count);
    fill(c, sb, count, me, salt);
    if (inplace) {
        copy_buf(c, rb, sb, count);
        CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, rb, (int)count, c->dt, c->op, comm), MPI_SUCCESS);
    } else {
        CHECK_RC(MPI_Allreduce(sb, rb, (int)count, c->dt, c->op, comm), MPI_SUCCESS);
        fold(c, ref, count, me, me + 1, salt);
        EXPECT(same(c, sb, ref, count), "Allreduce changed sendbuf", c, count);
    }
    fold(c, ref, count, 0, n, salt);
    EXPECT(same(c, rb, ref, count),
           inplace ? "Allreduce (in place)" : "Allreduce", c, count);
    free_buf(c, sb);
    free_buf(c, rb);
    free_buf(c, ref);
}

static void test_reduce(MPI_Comm comm, const tcase_t *c, size_t count, int root, int inplace)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
#ifndef METAMPI /* MPICH 4.0.2 crashes on these (MPI_IN_PLACE at a root other than 0) */
    if (inplace && root != 0 && count > 100)
        return;
#endif
    salt++;
    void *sb = alloc_buf(c, count), *rb = NULL, *ref = alloc_buf(c, count);
    fill(c, sb, count, me, salt);
    if (me == root) {
        rb = alloc_buf(c, count);
        if (inplace)
            copy_buf(c, rb, sb, count);
    }
#ifndef METAMPI /* MPICH's long-message reduce writes into recvbuf at non-roots */
    else {
        rb = alloc_buf(c, count);
    }
#endif
    CHECK_RC(MPI_Reduce(inplace && me == root ? MPI_IN_PLACE : sb, rb, (int)count, c->dt, c->op,
                        root, comm), MPI_SUCCESS);
    if (me == root) {
        fold(c, ref, count, 0, n, salt);
        EXPECT(same(c, rb, ref, count), inplace ? "Reduce (in place)" : "Reduce", c,
               count);
    }
    free_buf(c, sb);
    free_buf(c, rb);
    free_buf(c, ref);
}

static void test_reduce_scatter(MPI_Comm comm, const tcase_t *c, size_t count, int inplace,
                                int block)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
#ifndef METAMPI /* MPICH 4.0.2's long-vector algorithm memcpys a block onto itself in place */
    if (inplace && count > 1000)
        return;
#endif
    salt++;
    int *cnt = malloc(sizeof(int) * (size_t)n);
    size_t total = 0, displ = 0, ext = extent_of(c->dt);
    for (int r = 0; r < n; r++) {
        cnt[r] = block ? (int)count : (int)(count * (size_t)(r % 3 + (r == 1)) / 3);
        if (r < me)
            displ += (size_t)cnt[r];
        total += (size_t)cnt[r];
    }
    void *sb = alloc_buf(c, total), *rb = alloc_buf(c, inplace ? total : (size_t)cnt[me]);
    void *ref = alloc_buf(c, total);
    fill(c, sb, total, me, salt);
    const void *s = sb;
    if (inplace) {
        copy_buf(c, rb, sb, total);
        s = MPI_IN_PLACE;
    }
    if (block)
        CHECK_RC(MPI_Reduce_scatter_block(s, rb, (int)count, c->dt, c->op, comm), MPI_SUCCESS);
    else
        CHECK_RC(MPI_Reduce_scatter(s, rb, cnt, c->dt, c->op, comm), MPI_SUCCESS);
    fold(c, ref, total, 0, n, salt);
    EXPECT(same_at(c, rb, ref, displ, (size_t)cnt[me]),
           block ? "Reduce_scatter_block" : "Reduce_scatter", c, count);
    if (!inplace) { /* nothing written past our block */
        unsigned char *p = (unsigned char *)rb + (size_t)cnt[me] * ext;
        EXPECT(p[0] == SENTINEL && p[15] == SENTINEL, "Reduce_scatter wrote past recvbuf", c,
               count);
    }
    free(cnt);
    free_buf(c, sb);
    free_buf(c, rb);
    free_buf(c, ref);
}

static void test_scan(MPI_Comm comm, const tcase_t *c, size_t count, int inplace, int excl)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    salt++;
    void *sb = alloc_buf(c, count), *rb = alloc_buf(c, count), *ref = alloc_buf(c, count);
    fill(c, sb, count, me, salt);
    const void *s = sb;
    if (inplace) {
        copy_buf(c, rb, sb, count);
        s = MPI_IN_PLACE;
    }
    if (excl)
        CHECK_RC(MPI_Exscan(s, rb, (int)count, c->dt, c->op, comm), MPI_SUCCESS);
    else
        CHECK_RC(MPI_Scan(s, rb, (int)count, c->dt, c->op, comm), MPI_SUCCESS);
    if (!excl || me > 0) {
        fold(c, ref, count, 0, excl ? me : me + 1, salt);
        EXPECT(same(c, rb, ref, count), excl ? "Exscan" : "Scan", c, count);
    } else if (!inplace) { /* rank 0's recvbuf is not touched */
        clear_buf(c, ref, count);
        EXPECT(same(c, rb, ref, count), "Exscan at rank 0", c, count);
    }
    free_buf(c, sb);
    free_buf(c, rb);
    free_buf(c, ref);
}

/* The late rank enters 20 ms after the others; nobody may leave before it entered
 * (now(): one clock for the whole host). */
static void test_barrier(MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    for (int late = 0; late < n; late += n > 4 ? 3 : 1) {
        CHECK_RC(MPI_Barrier(comm), MPI_SUCCESS);
        double entered = 0;
        if (me == late) {
            double t = now();
            while ((entered = now()) < t + 0.02)
                ;
        }
        CHECK_RC(MPI_Barrier(comm), MPI_SUCCESS);
        double left = now();
        if (me == late) {
            for (int r = 0; r < n; r++)
                if (r != me)
                    CHECK_RC(MPI_Send(&entered, 1, MPI_DOUBLE, r, 7, comm), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Recv(&entered, 1, MPI_DOUBLE, late, 7, comm, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
        }
        if (left < entered) {
            fprintf(stderr, "FAIL rank %d: left the barrier %.6f s before rank %d entered "
                    "(%s)\n", me, entered - left, late, cname);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

/* Sums of doubles that round: every rank and every repetition sees the same bits. */
static void test_determinism(MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    static const int counts[] = { 1, 7, 1000, 5000, 70001 };
    for (int k = 0; k < 5; k++) {
        int count = counts[k];
        double *x = malloc(sizeof(double) * (size_t)count), *a = malloc(sizeof(double) * (size_t)count),
               *b = malloc(sizeof(double) * (size_t)count), *o = malloc(sizeof(double) * (size_t)count);
        for (int i = 0; i < count; i++)
            x[i] = (double)mix((uint32_t)(me * 1000003 + i)) / 3.0e7 * (i % 2 ? 1 : -1e-3);
        CHECK_RC(MPI_Allreduce(x, a, count, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
        CHECK_RC(MPI_Allreduce(x, b, count, MPI_DOUBLE, MPI_SUM, comm), MPI_SUCCESS);
        CHECK(!memcmp(a, b, sizeof(double) * (size_t)count));
        /* the nonblocking form (a schedule even where the blocking one is not) agrees */
        MPI_Request req;
        CHECK_RC(MPI_Iallreduce(x, b, count, MPI_DOUBLE, MPI_SUM, comm, &req), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(!memcmp(a, b, sizeof(double) * (size_t)count));
        memcpy(b, x, sizeof(double) * (size_t)count);
        CHECK_RC(MPI_Allreduce(MPI_IN_PLACE, b, count, MPI_DOUBLE, MPI_SUM, comm), 0);
        CHECK(!memcmp(a, b, sizeof(double) * (size_t)count));
        if (me != 0) {
            CHECK_RC(MPI_Send(a, count, MPI_DOUBLE, 0, 5, comm), MPI_SUCCESS);
        } else {
            for (int r = 1; r < n; r++) {
                CHECK_RC(MPI_Recv(o, count, MPI_DOUBLE, r, 5, comm, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
                if (memcmp(a, o, sizeof(double) * (size_t)count)) {
                    fprintf(stderr, "FAIL: Allreduce of %d doubles: rank %d's bits differ from "
                            "rank 0's (%s)\n", count, r, cname);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            }
        }
        /* Reduce agrees with itself run to run too */
        CHECK_RC(MPI_Reduce(x, b, count, MPI_DOUBLE, MPI_SUM, n - 1, comm), MPI_SUCCESS);
        CHECK_RC(MPI_Reduce(x, o, count, MPI_DOUBLE, MPI_SUM, n - 1, comm), MPI_SUCCESS);
        if (me == n - 1)
            CHECK(!memcmp(b, o, sizeof(double) * (size_t)count));
        MPI_Request req2;
        CHECK_RC(MPI_Ireduce(x, o, count, MPI_DOUBLE, MPI_SUM, n - 1, comm, &req2), 0);
        CHECK_RC(MPI_Wait(&req2, MPI_STATUS_IGNORE), MPI_SUCCESS);
        if (me == n - 1)
            CHECK(!memcmp(b, o, sizeof(double) * (size_t)count));
        free(x);
        free(a);
        free(b);
        free(o);
    }
}

/* full: every case; else the ones that tell the algorithms apart (commutative or not,
 * contiguous or not, pair types). */
static void run_all(MPI_Comm comm, int full)
{
    int n;
    MPI_Comm_size(comm, &n);
    static const size_t counts[] = { 0, 1, 3, 17, 100, 4500, 70001 };
    test_barrier(comm);
    for (int ci = 0; ci < NCASES; ci++) {
        const tcase_t *c = &cases[ci];
        if (!full && c->op != MPI_SUM && c->op != op_affine && c->op != MPI_MINLOC)
            continue;
        for (int k = 0; k < 7; k++) {
            size_t count = counts[k];
            if ((count > 1000 && !c->big) || (count > 10000 && quick))
                continue;
            for (int ip = 0; ip < 2; ip++) {
                test_allreduce(comm, c, count, ip);
                if (count <= 3) {
                    for (int root = 0; root < n; root++)
                        test_reduce(comm, c, count, root, ip);
                } else {
                    test_reduce(comm, c, count, (n - 1) * ip, ip);
                    test_reduce(comm, c, count, n / 2, ip);
                }
                size_t per = count > 1000 ? count / (size_t)n : count;
                test_reduce_scatter(comm, c, count, ip, 0);
                test_reduce_scatter(comm, c, per, ip, 1);
                test_scan(comm, c, count, ip, 0);
                test_scan(comm, c, count, ip, 1);
            }
        }
    }
    test_determinism(comm);
}

/* argument "quick": the subset of cases, for the runs with other algorithms forced */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n, me;
    quick = argc > 1 && !strcmp(argv[1], "quick");
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const char *expect = getenv("EXPECT_SIZE");
    CHECK(!expect || atoi(expect) == n);
    cases_init();
    cname = "MPI_COMM_WORLD";
    run_all(MPI_COMM_WORLD, !quick);
    /* evens first, then odds: hosts of consecutive world ranks are no longer rank ranges */
    MPI_Comm mixed;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, (me % 2) * n + me, &mixed), MPI_SUCCESS);
    cname = "an interleaved communicator";
    run_all(mixed, 0);
    MPI_Comm_free(&mixed);
    cases_free();
    MPI_Finalize();
    return 0;
}
