/*
 * The shared-memory collective algorithms (src/coll/shm/) tested through their interface
 * (coll/shm/shm.h), linked against the library's objects: every function is called the way
 * the collective algorithms call it, on the node team of a communicator, and its result is
 * checked against a reference computed locally.
 *
 * Covered: declining (team of one, METAMPI_COLL_SHM=0, sizes above the limits), the first
 * call waiting for the setup,
 * barrier (a counter in a segment of the test's own proves nobody leaves early), broadcast
 * from every root at sizes around the slot size and up to the limit, reduce/allreduce with
 * MPI_SUM, a non-commutative user op (composition of affine maps: any other order gives
 * another result), a type whose data starts at a nonzero true lower bound, in place, bitwise
 * identical floating-point results at every member, many operations back to back (slot
 * reuse), nonblocking operations overlapping each other, duplicated and split communicators
 * created and freed in a loop (no mapping or name left behind), and — with
 * METAMPI_COLL_SHM_FAIL set — the point-to-point path taken when the area cannot be set up.
 *
 * Arguments: none (all of the above), "wakeups" (instead: members that sleep while they wait
 * are woken as soon as a late member arrives), or "kill" (rank 1 dies while the area is
 * being set up, for leak_test.py).
 */
#include "../check.h"

#include "coll/coll.h"
#include "coll/shm/shm.h"
#include "core/comm.h"
#include "core/op.h"
#include "core/progress.h"
#include "datatype/dtype.h"
#include "runtime/job.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static int wrank, wsize;
static int shm_off;     /* METAMPI_COLL_SHM=0: everything declines */
static int fail_mode;   /* METAMPI_COLL_SHM_FAIL set: the fallback path */

typedef struct team {
    comm_t *c;
    MPI_Comm h;
    int n, me;
    int world[64];          /* member -> world rank */
    /* tags of this test's schedules on c: the same sequence at every member of the team
     * (comm_next_op would not do: teams of different sizes run different numbers of
     * operations on one communicator, and its internal collectives need equal counts) */
    int tag;
} team_t;

/* ---- running one operation ------------------------------------------------------------- */

enum { K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE };

typedef struct job_op {
    int kind;
    void *buf;              /* bcast */
    size_t bytes;
    const void *in;         /* reductions */
    void *out;
    size_t count;
    dtype_t *dt;
    op_t *op;
    int root;
    int done, err;
} job_op_t;

static void on_done(int err, void *arg)
{
    job_op_t *q = arg;
    q->err = err;
    q->done = 1;
}

/* Builds and starts q on t's communicator; 0 when the algorithm declined. */
static int start(team_t *t, job_op_t *q)
{
    comm_t *c = t->c;
    icoll_sched_t *s = icoll_sched_new(t->tag++);
    CHECK(s != NULL);
    int rc = MPI_ERR_INTERN;
    switch (q->kind) {
    case K_BARRIER:
        rc = coll_shm_barrier(s, c);
        break;
    case K_BCAST:
        rc = coll_shm_bcast(s, c, q->buf, q->bytes, q->root);
        break;
    case K_REDUCE:
        rc = coll_shm_reduce(s, c, q->in, q->out, q->count, q->dt, q->op, q->root);
        break;
    case K_ALLREDUCE:
        rc = coll_shm_allreduce(s, c, q->in, q->out, q->count, q->dt, q->op);
        break;
    }
    if (rc == COLL_DECLINED) {
        icoll_sched_discard(s);
        return 0;
    }
    CHECK_RC(rc, MPI_SUCCESS);
    q->done = 0;
    icoll_sched_start(s, on_done, q);
    return 1;
}

static void finish(job_op_t *q)
{
    progress_wait(&q->done);
    CHECK_RC(q->err, MPI_SUCCESS);
}

/* Runs q to completion; 0 when declined. */
static int run(team_t *t, job_op_t *q)
{
    if (!start(t, q))
        return 0;
    finish(q);
    return 1;
}

/* ---- the node team --------------------------------------------------------------------- */

static void team_of(team_t *t, MPI_Comm h)
{
    t->h = h;
    t->tag = 1 << 29;
    t->c = comm_lookup(h);
    CHECK(t->c != NULL);
    const coll_hier_t *hi = coll_hier(t->c);
    CHECK(hi != NULL);
    t->n = hi->node.size;
    t->me = hi->node.rank;
    CHECK(t->n <= 64);
    for (int m = 0; m < t->n; m++)
        t->world[m] = comm_peer_world_rank(t->c, coll_team_peer(&hi->node, m));
}

/* Whether the shared-memory algorithms take operations on t (once set up). */
static int on(const team_t *t)
{
    return t->n > 1 && !shm_off;
}

/* A size limit from the environment (k/M suffixes), or dflt. */
static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    size_t x = strtoull(v, &end, 10);
    return *end == 'k' || *end == 'K' ? x << 10 : *end == 'm' || *end == 'M' ? x << 20 : x;
}

/* Whether a broadcast of bytes / an allreduce (root < 0) or reduce of bytes is taken. */
static int bcast_taken(const team_t *t, size_t bytes)
{
    if (t->n == 2) /* small ones, and large ones that both members copy (any size) */
        return on(t) && (bytes <= env_size("METAMPI_COLL_SHM_BCAST_MAX2", 2048) ||
                         (env_size("METAMPI_COLL_SHM_CMA", 1) &&
                          bytes >= env_size("METAMPI_COLL_SHM_CMA_MIN", 16384)));
    return on(t) && bytes <= env_size("METAMPI_COLL_SHM_BCAST_MAX", 1 << 20);
}
static int reduce_taken(const team_t *t, size_t bytes, int root)
{
    return on(t) && bytes <= (t->n == 2 && root < 0
                                  ? env_size("METAMPI_COLL_SHM_ALLREDUCE_MAX2", 128 << 10)
                                  : env_size("METAMPI_COLL_SHM_REDUCE_MAX", 1 << 20));
}

/* Member 0's bytes at every member (point-to-point over MPI_COMM_WORLD). */
static void team_same(team_t *t, void *buf, size_t bytes, int tag)
{
    if (t->me == 0) {
        for (int m = 1; m < t->n; m++)
            MPI_Send(buf, (int)bytes, MPI_BYTE, t->world[m], tag, MPI_COMM_WORLD);
    } else {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, t->world[0], tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
}

/* A job-wide barrier that uses nothing under test. */
static void world_sync(void)
{
    for (int k = 1; k < wsize; k <<= 1) {
        char x = 0, y;
        MPI_Sendrecv(&x, 1, MPI_BYTE, (wrank + k) % wsize, 99, &y, 1, MPI_BYTE,
                     (wrank - k + wsize) % wsize, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* The first call starts the setup and waits for its verdict, as every call does until the
 * verdict is known (so the first call runs the same algorithm as the later ones: the same
 * bits of a reduction every time); with a team of one, or METAMPI_COLL_SHM=0, every call
 * declines. */
static void first_calls(team_t *t)
{
    job_op_t q = { .kind = K_BARRIER };
    CHECK(run(t, &q) == on(t));
    CHECK(run(t, &q) == on(t));
}

/* ---- barrier ---------------------------------------------------------------------------- */

/* Each member adds 1 to a counter of the test's own before barrier i; after it, the counter
 * must show all n additions of round i. Member i % n is slow to arrive. */
static void test_barrier(team_t *t, int rounds)
{
    char name[128];
    snprintf(name, sizeof name, "/metampi.%s.test.%d", job.id, t->world[0]);
    int fd = -1;
    if (t->me == 0)
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    char token = 0;
    team_same(t, &token, 1, 11); /* created before the others open it */
    if (t->me != 0)
        fd = shm_open(name, O_RDWR, 0);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, 4096) == 0);
    _Atomic long *counter = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(counter != MAP_FAILED);
    close(fd);
    world_sync(); /* everyone has it mapped */
    if (t->me == 0)
        shm_unlink(name);
    for (int i = 0; i < rounds; i++) {
        if (i % t->n == t->me && i % 8 == 0)
            usleep(2000);
        atomic_fetch_add(counter, 1);
        job_op_t q = { .kind = K_BARRIER };
        if (i % 3 == 0) {
            CHECK(start(t, &q) == on(t));
            if (on(t))
                finish(&q);
        } else {
            CHECK(run(t, &q) == on(t));
        }
        if (on(t))
            CHECK(atomic_load(counter) >= (long)t->n * (i + 1));
    }
    munmap((void *)counter, 4096);
}

/* ---- broadcast -------------------------------------------------------------------------- */

static unsigned char pattern(size_t i, int root, size_t bytes, int it)
{
    return (unsigned char)(i * 131 + (size_t)root * 17 + bytes * 3 + (size_t)it * 5 + 1);
}

static void bcast_once(team_t *t, unsigned char *buf, size_t bytes, int root, int it,
                       int expect_taken)
{
    for (size_t i = 0; i < bytes; i++)
        buf[i] = t->me == root ? pattern(i, root, bytes, it) : 0xee;
    job_op_t q = { .kind = K_BCAST, .buf = buf, .bytes = bytes, .root = root };
    int taken = run(t, &q);
    CHECK(taken == expect_taken);
    if (!taken)
        return;
    for (size_t i = 0; i < bytes; i++)
        if (buf[i] != pattern(i, root, bytes, it)) {
            fprintf(stderr, "rank %d: bcast of %zu bytes from member %d: byte %zu is %d\n",
                    wrank, bytes, root, i, buf[i]);
            CHECK(!"bcast data");
        }
}

static void test_bcast(team_t *t)
{
    static const size_t sizes[] = { 0, 1, 7, 64, 1000, 4095, 32767, 32768, 32769,
                                    3 * 32768 + 5, 200000, 1 << 20 };
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    unsigned char *buf = malloc((1 << 20) + 1);
    CHECK(buf != NULL);
    for (size_t k = 0; k < nsizes; k++)
        for (int root = 0; root < t->n; root++)
            bcast_once(t, buf, sizes[k], root, (int)k, bcast_taken(t, sizes[k]));
    /* above the limit: declined (except by a pair) */
    bcast_once(t, buf, (1 << 20) + 1, 0, 0, bcast_taken(t, (1 << 20) + 1));
    size_t limit = t->n == 2 ? env_size("METAMPI_COLL_SHM_BCAST_MAX2", 2048) : 1 << 20;
    if (limit < 1 << 20) {
        bcast_once(t, buf, limit, t->n - 1, 1, on(t));
        bcast_once(t, buf, limit + 1, t->n - 1, 1, 0);
    }
    free(buf);
}

/* ---- reductions ------------------------------------------------------------------------- */

/* An affine map x -> a x + b (mod 2^32) as two uint32. (f op g) = f o g: associative, not
 * commutative. */
typedef struct affine {
    uint32_t a, b;
} affine_t;

static void affine_compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    MPI_Aint lb, extent;
    MPI_Type_get_true_extent(*dt, &lb, &extent);
    for (int i = 0; i < *len; i++) {
        const affine_t *f = (const affine_t *)((char *)in + lb) + i;
        affine_t *g = (affine_t *)((char *)inout + lb) + i;
        g->b = f->a * g->b + f->b;
        g->a = f->a * g->a;
    }
}

static affine_t affine_of(int member, size_t i, int it)
{
    return (affine_t){ 2u * (uint32_t)member + 3u + (uint32_t)(i % 5) * 2u,
                       (uint32_t)member * 17u + (uint32_t)i + (uint32_t)it };
}

static int int_of(int member, size_t i, int it)
{
    return (member + 1) * 1000 + (int)(i % 1000) * 7 + it;
}

static double double_of(int member, size_t i)
{
    return 1.0 / (double)(member + 3 + (int)(i % 97)) + (double)i * 1e-7;
}

typedef struct types {
    dtype_t *i32, *f64, *affine, *shifted;
    op_t *sum, *compose;
    MPI_Datatype affine_h, shifted_h;
    MPI_Op compose_h;
} types_t;

/* One reduce (root >= 0) or allreduce of count elements of kind v (0 int sum, 1 affine,
 * 2 affine with shifted type, 3 double sum), in place when asked. */
static void reduce_once(team_t *t, const types_t *ty, int v, size_t count, int root,
                        int in_place, int it, int expect_taken)
{
    size_t es = v == 0 ? 4 : 8;
    unsigned char *in = malloc(count * es + 1), *out = malloc(count * es + 1);
    CHECK(in && out);
    for (size_t i = 0; i < count; i++) {
        if (v == 0)
            ((int *)in)[i] = int_of(t->me, i, it);
        else if (v == 3)
            ((double *)in)[i] = double_of(t->me, i);
        else
            ((affine_t *)in)[i] = affine_of(t->me, i, it);
    }
    memset(out, 0xee, count * es);
    int gets = root < 0 || root == t->me;
    if (in_place && gets)
        memcpy(out, in, count * es);
    dtype_t *dt = v == 0 ? ty->i32 : v == 1 ? ty->affine : v == 2 ? ty->shifted : ty->f64;
    op_t *op = v == 1 || v == 2 ? ty->compose : ty->sum;
    job_op_t q = { .kind = root < 0 ? K_ALLREDUCE : K_REDUCE, .count = count, .dt = dt,
                   .op = op, .root = root };
    q.in = in_place && gets ? out : in;
    q.out = gets ? out : (root >= 0 && t->me % 2 ? NULL : out);
    int taken = run(t, &q);
    CHECK(taken == expect_taken);
    if (taken && gets) {
        for (size_t i = 0; i < count; i++) {
            int ok;
            if (v == 0) {
                int want = 0;
                for (int m = 0; m < t->n; m++)
                    want += int_of(m, i, it);
                ok = ((int *)out)[i] == want;
            } else if (v == 3) {
                double want = double_of(t->n - 1, i);
                for (int m = t->n - 2; m >= 0; m--)
                    want = double_of(m, i) + want;
                ok = memcmp(&((double *)out)[i], &want, 8) == 0;
            } else {
                affine_t want = affine_of(t->n - 1, i, it);
                for (int m = t->n - 2; m >= 0; m--) {
                    affine_t f = affine_of(m, i, it);
                    want.b = f.a * want.b + f.b;
                    want.a = f.a * want.a;
                }
                const affine_t *got = &((affine_t *)out)[i];
                ok = got->a == want.a && got->b == want.b;
            }
            if (!ok) {
                fprintf(stderr,
                        "rank %d: %s v%d count %zu root %d in_place %d: element %zu wrong\n",
                        wrank, root < 0 ? "allreduce" : "reduce", v, count, root, in_place, i);
                CHECK(!"reduction result");
            }
        }
    }
    free(in);
    free(out);
}

static void make_types(types_t *ty)
{
    ty->i32 = dtype_lookup(MPI_INT);
    ty->f64 = dtype_lookup(MPI_DOUBLE);
    MPI_Datatype aff, sh;
    MPI_Type_contiguous(2, MPI_UINT32_T, &aff);
    MPI_Type_commit(&aff);
    /* the same two uint32, but the data sits 8 bytes above the buffer address */
    int one = 2;
    MPI_Aint disp = 8;
    MPI_Type_create_hindexed(1, &one, &disp, MPI_UINT32_T, &sh);
    MPI_Type_commit(&sh);
    ty->affine = dtype_lookup(aff);
    ty->shifted = dtype_lookup(sh);
    CHECK(ty->shifted->true_lb == 8 && ty->shifted->size == 8 &&
          ty->shifted->ub - ty->shifted->lb == 8);
    MPI_Op compose;
    MPI_Op_create(affine_compose, 0, &compose);
    ty->compose = op_lookup(compose);
    ty->affine_h = aff;
    ty->shifted_h = sh;
    ty->compose_h = compose;
    ty->sum = op_lookup(MPI_SUM);
    CHECK(ty->i32 && ty->f64 && ty->affine && ty->compose && ty->sum);
}

static void free_types(types_t *ty)
{
    MPI_Type_free(&ty->affine_h);
    MPI_Type_free(&ty->shifted_h);
    MPI_Op_free(&ty->compose_h);
}

static void test_reductions(team_t *t, const types_t *ty)
{
    /* int counts around the split size (4 KiB), the slot (32 KiB) and the limit (1 MiB) */
    static const size_t counts[] = { 0, 1, 3, 100, 1023, 1024, 1025, 8191, 8192, 8193,
                                     3 * 8192 + 11, 100000, 262144 };
    size_t ncounts = sizeof counts / sizeof counts[0];
    for (size_t k = 0; k < ncounts; k++) {
        size_t n = counts[k];
        reduce_once(t, ty, 0, n, -1, 0, (int)k, reduce_taken(t, 4 * n, -1));
        reduce_once(t, ty, 0, n, -1, 1, (int)k, reduce_taken(t, 4 * n, -1));
        for (int root = 0; root < t->n; root++)
            reduce_once(t, ty, 0, n, root, root % 2, (int)k, reduce_taken(t, 4 * n, root));
    }
    static const size_t acounts[] = { 1, 2, 511, 512, 513, 4096, 4097, 30000, 131072 };
    for (size_t k = 0; k < sizeof acounts / sizeof acounts[0]; k++) {
        size_t n = acounts[k];
        for (int v = 1; v <= 3; v++) {
            reduce_once(t, ty, v, n, -1, v == 2, (int)k, reduce_taken(t, 8 * n, -1));
            reduce_once(t, ty, v, n, (int)(k % (size_t)t->n), v == 1, (int)k, on(t));
        }
    }
    /* floating-point sums in rank order at every root, in place or not, whole and split */
    for (int root = 0; root < t->n; root++) {
        reduce_once(t, ty, 3, 300, root, root % 2, root, on(t));
        reduce_once(t, ty, 3, 300, root, 1 - root % 2, root, on(t));
        reduce_once(t, ty, 3, 3000, root, root % 2, root, on(t));
    }
    /* above METAMPI_COLL_SHM_REDUCE_MAX: declined */
    reduce_once(t, ty, 0, 262145, -1, 0, 0, 0);
    reduce_once(t, ty, 0, 262145, 0, 0, 0, 0);

    /* the same bits at every member */
    size_t n = 5000;
    double *in = malloc(n * 8), *out = malloc(n * 8), *ref = malloc(n * 8);
    CHECK(in && out && ref);
    for (size_t i = 0; i < n; i++)
        in[i] = double_of(t->me, i) * (t->me % 2 ? -1e3 : 1e-3);
    job_op_t q = { .kind = K_ALLREDUCE, .in = in, .out = out, .count = n, .dt = ty->f64,
                   .op = ty->sum, .root = -1 };
    if (run(t, &q)) {
        memcpy(ref, out, n * 8);
        team_same(t, ref, n * 8, 13);
        CHECK(memcmp(ref, out, n * 8) == 0);
    }
    free(in);
    free(out);
    free(ref);
}

/* ---- many operations, and overlapping ones ---------------------------------------------- */

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 8;
}

/* Up to `depth` operations in flight at once (1: back to back), each one's result checked. */
static void test_stream(team_t *t, const types_t *ty, int ops, int depth)
{
    enum { MAXD = 16, MAXB = 70000 };
    job_op_t q[MAXD];
    unsigned char *bufs[MAXD], *outs[MAXD];
    int kinds[MAXD], its[MAXD], taken[MAXD];
    size_t sizes[MAXD];
    for (int d = 0; d < depth; d++) {
        bufs[d] = malloc(MAXB);
        outs[d] = malloc(MAXB);
        CHECK(bufs[d] && outs[d]);
    }
    uint32_t seed = 12345; /* the same sequence at every member */
    for (int i = 0; i < ops; i += depth) {
        for (int d = 0; d < depth; d++) {
            int kind = (int)(rnd(&seed) % 4), root = (int)(rnd(&seed) % (uint32_t)t->n);
            size_t size = rnd(&seed) % 8 == 0 ? rnd(&seed) % MAXB : rnd(&seed) % 200;
            int it = i + d;
            kinds[d] = kind;
            sizes[d] = size;
            its[d] = it;
            q[d] = (job_op_t){ .kind = kind, .root = root };
            if (kind == K_BCAST) {
                for (size_t b = 0; b < size; b++)
                    bufs[d][b] = t->me == root ? pattern(b, root, size, it) : 0;
                q[d].buf = bufs[d];
                q[d].bytes = size;
            } else if (kind != K_BARRIER) {
                size_t cnt = size / 4;
                sizes[d] = cnt;
                for (size_t e = 0; e < cnt; e++)
                    ((int *)bufs[d])[e] = int_of(t->me, e, it);
                q[d].in = bufs[d];
                q[d].out = outs[d];
                q[d].count = cnt;
                q[d].dt = ty->i32;
                q[d].op = ty->sum;
                if (kind == K_ALLREDUCE)
                    q[d].root = -1;
            }
            /* empty operations are taken too: they end at once */
            int expect = kind == K_BCAST     ? bcast_taken(t, size)
                         : kind == K_BARRIER ? on(t)
                                             : reduce_taken(t, size / 4 * 4, q[d].root);
            taken[d] = start(t, &q[d]);
            CHECK(taken[d] == expect);
        }
        for (int d = depth - 1; d >= 0; d--) {
            if (!taken[d])
                continue;
            finish(&q[d]);
            if (kinds[d] == K_BCAST) {
                for (size_t b = 0; b < sizes[d]; b++)
                    CHECK(bufs[d][b] == pattern(b, q[d].root, sizes[d], its[d]));
            } else if (kinds[d] != K_BARRIER && (kinds[d] == K_ALLREDUCE || q[d].root == t->me)) {
                for (size_t e = 0; e < sizes[d]; e++) {
                    int want = 0;
                    for (int m = 0; m < t->n; m++)
                        want += int_of(m, e, its[d]);
                    CHECK(((int *)outs[d])[e] == want);
                }
            }
        }
    }
    for (int d = 0; d < depth; d++) {
        free(bufs[d]);
        free(outs[d]);
    }
}

/* ---- wake-ups --------------------------------------------------------------------------- */

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One member arrives LATE_MS after the others, who by then sleep in the progress engine
 * (they spin for 2 ms at most): its flag stores must wake them at once, not when their
 * poll() times out (250 ms after they fell asleep, i.e. some 230 ms after the late member
 * came) — nor when a later message of the late member's rings them, which is why it keeps
 * quiet for QUIET_MS afterwards. WAKE_MS leaves room for a loaded machine's scheduling. q_of builds the operation; `late` is the
 * member that comes late; `k` operations are started back to back (k > slots makes a writer
 * wait for a late reader's acks) and the last one is timed. */
enum { LATE_MS = 20, QUIET_MS = 300, WAKE_MS = 150 };

static void late_member(team_t *t, const char *what, int late, int k,
                        void (*q_of)(job_op_t *q, int i, int me, void *arg), void *arg)
{
    job_op_t q[16];
    world_sync();
    double entered = 0;
    if (t->me == late) {
        usleep(LATE_MS * 1000);
        entered = mono();
    }
    for (int i = 0; i < k; i++) {
        q_of(&q[i], i, t->me, arg);
        CHECK(start(t, &q[i]) == 1);
    }
    for (int i = 0; i < k; i++)
        finish(&q[i]);
    double left = mono();
    if (t->me == late) /* no message of ours may wake them instead (they would ring) */
        usleep(QUIET_MS * 1000);
    /* the late one's arrival, through member 0 to everyone */
    if (t->me == 0 && late != 0)
        MPI_Recv(&entered, 1, MPI_DOUBLE, t->world[late], 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (t->me == late && late != 0)
        MPI_Send(&entered, 1, MPI_DOUBLE, t->world[0], 41, MPI_COMM_WORLD);
    team_same(t, &entered, sizeof entered, 51);
    if (t->me != late && left - entered > WAKE_MS * 1e-3) {
        fprintf(stderr, "rank %d: %s: left %.1f ms after the late member %d arrived\n", wrank,
                what, (left - entered) * 1e3, late);
        CHECK(!"woken at once");
    }
}

static unsigned char wake_buf[16][1 << 16];

static void q_barrier(job_op_t *q, int i, int me, void *arg)
{
    (void)i, (void)me, (void)arg;
    *q = (job_op_t){ .kind = K_BARRIER };
}

static void q_bcast(job_op_t *q, int i, int me, void *arg)
{
    (void)me;
    *q = (job_op_t){ .kind = K_BCAST, .buf = wake_buf[i], .bytes = *(size_t *)arg, .root = 0 };
}

static void q_allreduce(job_op_t *q, int i, int me, void *arg)
{
    (void)me;
    const types_t *ty = arg;
    *q = (job_op_t){ .kind = K_ALLREDUCE, .in = wake_buf[i], .out = wake_buf[i + 8],
                     .count = 2048, .dt = ty->i32, .op = ty->sum, .root = -1 };
}

static void test_wakeups(team_t *t, const types_t *ty)
{
    if (!on(t) || fail_mode)
        return;
    size_t small = 8, large = 1 << 16;
    late_member(t, "barrier", 0, 1, q_barrier, NULL);
    late_member(t, "barrier", t->n - 1, 1, q_barrier, NULL);
    late_member(t, "bcast (readers wait for the root)", 0, 1, q_bcast, &small);
    /* the root runs ahead by its slots, then waits for the late reader's acks */
    late_member(t, "bcast (the root waits for slots)", t->n - 1, 12, q_bcast, &small);
    if (bcast_taken(t, large))
        late_member(t, "large bcast", t->n - 1, 2, q_bcast, &large);
    late_member(t, "allreduce", t->n - 1, 2, q_allreduce, (void *)ty);
}

/* ---- communicators: dup and split, created and freed ------------------------------------ */

static int coll_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[4096], key[128];
    snprintf(key, sizeof key, "/dev/shm/metampi.%s.coll.", job.id);
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, key) != NULL;
    fclose(f);
    return n;
}

static int coll_names(void)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "metampi.%s.coll.", job.id);
    DIR *d = opendir("/dev/shm");
    CHECK(d != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void test_comms(const types_t *ty)
{
    int before = coll_mappings();
    for (int i = 0; i < 12; i++) {
        MPI_Comm dup, split;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &split);
        team_t td, ts;
        team_of(&td, dup);
        team_of(&ts, split);
        first_calls(&td);
        first_calls(&ts);
        test_stream(&ts, ty, 20, 1 + i % 3);
        test_stream(&td, ty, 20, 1);
        unsigned char buf[100];
        bcast_once(&ts, buf, sizeof buf, ts.n - 1, i, on(&ts));
        MPI_Comm_free(&dup);
        MPI_Comm_free(&split);
    }
    CHECK(coll_mappings() == before);
}

int main(int argc, char **argv)
{
    /* teams of two hand large broadcasts and allreduces to point-to-point by default: here
     * they take every size up to the general limits, so two ranks test every path */
    setenv("METAMPI_COLL_SHM_BCAST_MAX2", "1M", 0);
    setenv("METAMPI_COLL_SHM_ALLREDUCE_MAX2", "1M", 0);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *off = getenv("METAMPI_COLL_SHM");
    shm_off = off && !strcmp(off, "0");
    const char *fail = getenv("METAMPI_COLL_SHM_FAIL");
    fail_mode = fail && *fail;

    team_t t;
    team_of(&t, MPI_COMM_WORLD);
    if (argc > 1 && !strcmp(argv[1], "kill")) {
        /* member 0 creates the segment in the first call (which then waits for the verdict);
         * member 1 dies before attaching */
        CHECK(t.n >= 2);
        if (t.me == 0) {
            job_op_t q = { .kind = K_BARRIER };
            CHECK(start(&t, &q) == 1);
            printf("job %s\n", job.id);
            fflush(stdout);
        }
        char token = 0;
        team_same(&t, &token, 1, 21);
        if (t.me == 1)
            raise(SIGKILL);
        for (;;)
            pause();
    }

    types_t ty;
    make_types(&ty);
    double t0 = MPI_Wtime();
#define STEP(x)                                                                                \
    do {                                                                                       \
        x;                                                                                     \
        if (getenv("ALGOS_TIMES"))                                                             \
            fprintf(stderr, "rank %d: %-40s %8.3f s\n", wrank, #x, MPI_Wtime() - t0);        \
    } while (0)
    STEP(first_calls(&t));
    if (argc > 1 && !strcmp(argv[1], "wakeups")) {
        STEP(test_wakeups(&t, &ty));
        free_types(&ty);
        world_sync();
        MPI_Finalize();
        if (wrank == 0)
            printf("coll_shm wakeups: ok (%d ranks, node team of %d)\n", wsize, t.n);
        return 0;
    }
    STEP(test_barrier(&t, 200));
    STEP(test_bcast(&t));
    STEP(test_reductions(&t, &ty));
    STEP(test_stream(&t, &ty, 2000, 1));
    STEP(test_stream(&t, &ty, 640, 16));
    STEP(test_comms(&ty));

    /* every area is set up by now and its name gone: nothing in /dev/shm, but mapped */
    world_sync();
    CHECK(coll_names() == 0);
    CHECK(coll_mappings() == (t.n > 1 && !shm_off && !fail_mode ? 1 : 0));
    free_types(&ty);
    world_sync();
    MPI_Finalize();
    if (wrank == 0)
        printf("coll_shm algos: ok (%d ranks, node team of %d)\n", wsize, t.n);
    return 0;
}
