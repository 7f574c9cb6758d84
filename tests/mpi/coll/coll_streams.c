/* Blocking and nonblocking collectives as two streams (core/comm.h): the members of a
 * communicator start its blocking collectives in one order and its nonblocking ones in one
 * order, but may interleave the two streams differently — a member may start a nonblocking
 * collective before a blocking one that the others call first, or be several collectives
 * ahead. MPI-3.1 §5.12 asks for one order of all collectives; Open MPI (libnbc's own tags) and
 * MPICH (a schedule tag sequence per communicator) keep the streams apart, and programs rely
 * on it: mpi4py's Comm.Iagree fallback is an MPI_Iallreduce(MPI_BAND), and its
 * test_ulfm.testIAgree starts it on one rank before a barrier the others call first.
 *
 *   coll_streams
 *
 * Parts: (1) testIAgree's sequence on MPI_COMM_WORLD and a duplicate, each root in turn (the
 * early Iallreduce must not complete before the others join, and gets 1011 & 1101);
 * (2) one member ahead by 1..3 nonblocking collectives; (3) random interleavings, different
 * on every rank, of a blocking and a nonblocking sequence of collectives of every kind on
 * MPI_COMM_WORLD, a duplicate, two halves and the inter-communicator between them, small
 * counts (through the shared-memory area within a host) and large ones, pending requests
 * tested in between, MPI_Comm_dup in the blocking stream and MPI_Comm_idup in the
 * nonblocking one. Every result is checked against what each rank computes locally.
 * STREAMS_ROUNDS=<k> sets the number of random rounds (default 6).
 */
#include "coll_check.h"

static int wrank, wsize;

/* ---- part 1: mpi4py's testIAgree ------------------------------------------------------ */

static void iagree(MPI_Comm comm)
{
    int rank, size, flag, done;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Request rq;
    for (int i = 0; i < 5; i++) {
        int in = i;
        flag = -1;
        CHECK_RC(MPI_Iallreduce(&in, &flag, 1, MPI_INT, MPI_BAND, comm, &rq), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(flag == i);
    }
    if (size < 2)
        return;
    for (int root = 0; root < size; root++) {
        CHECK_RC(MPI_Barrier(comm), MPI_SUCCESS);
        int in = rank == root ? 0xb : 0xd; /* 1011, 1101 */
        flag = -1;
        if (rank == root) {
            CHECK_RC(MPI_Iallreduce(&in, &flag, 1, MPI_INT, MPI_BAND, comm, &rq), MPI_SUCCESS);
            CHECK_RC(MPI_Test(&rq, &done, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK(!done); /* the others start it only after the next barrier */
            CHECK_RC(MPI_Barrier(comm), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Barrier(comm), MPI_SUCCESS);
            CHECK_RC(MPI_Iallreduce(&in, &flag, 1, MPI_INT, MPI_BAND, comm, &rq), MPI_SUCCESS);
        }
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(flag == 0x9); /* 1001 */
    }
}

/* ---- the communicators ------------------------------------------------------------------ */

enum { C_WORLD, C_DUP, C_HALF, C_INTER, NCOMM };
static MPI_Comm cs[NCOMM];
static int ncomm; /* C_INTER only with two or more ranks */

static void streams_comms_make(void)
{
    cs[C_WORLD] = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &cs[C_DUP]), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &cs[C_HALF]), MPI_SUCCESS);
    ncomm = C_INTER;
    if (wsize >= 2) {
        /* the halves' leaders are world ranks 0 and 1 */
        CHECK_RC(MPI_Intercomm_create(cs[C_HALF], 0, MPI_COMM_WORLD, 1 - wrank % 2, 77,
                                      &cs[C_INTER]),
                 MPI_SUCCESS);
        ncomm = NCOMM;
    }
}

static void streams_comms_free(void)
{
    for (int i = C_DUP; i < ncomm; i++)
        CHECK_RC(MPI_Comm_free(&cs[i]), MPI_SUCCESS);
}

/* ---- operations ------------------------------------------------------------------------ */

enum {
    K_BARRIER, K_BCAST, K_REDUCE, K_ALLREDUCE, K_ALLGATHER, K_ALLTOALL, K_GATHER, K_SCATTER,
    K_SCAN, K_REDUCE_SCATTER_BLOCK, NKIND_INTRA,
    K_DUP = NKIND_INTRA, /* blocking stream only: MPI_Comm_dup */
    K_IDUP = NKIND_INTRA /* nonblocking stream only: MPI_Comm_idup */
};
static const char *const kind_names[] = {
    "barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall", "gather", "scatter",
    "scan", "reduce_scatter_block", "(i)dup"};
/* the kinds defined on inter-communicators that this test uses */
static const int inter_kinds[] = {K_BARRIER, K_ALLREDUCE, K_ALLGATHER, K_ALLTOALL};

typedef struct op {
    int nb;          /* stream */
    int kind, comm, root, count, key;
    int *sbuf, *rbuf;
    size_t rints;
    MPI_Request rq;
    MPI_Comm made;   /* dup/idup */
    int started;
} op_t;

/* What member `who` of the op's communicator (its local group) contributes: small values,
 * so that sums of 8 never overflow. */
static int v(const op_t *o, int who, int i)
{
    return (int)(mix3((uint32_t)o->key, (uint32_t)who, (uint32_t)i) & 0xffffff);
}

/* A random operation of stream nb (the same at every rank: g is seeded alike). */
static op_t gen(rng_t *g, int nb, int key)
{
    op_t o;
    memset(&o, 0, sizeof o);
    o.nb = nb;
    o.key = key;
    o.comm = rng_int(g, ncomm);
    if (o.comm == C_INTER)
        o.kind = inter_kinds[rng_int(g, (int)(sizeof inter_kinds / sizeof *inter_kinds))];
    else
        o.kind = rng_int(g, NKIND_INTRA + 1); /* + (i)dup */
#ifdef OPEN_MPI
    /* Open MPI's blocking MPI_Comm_dup agrees on its context id with nonblocking collectives
     * (libnbc), i.e. in the nonblocking stream; MPICH and metampi keep it in the blocking
     * one */
    if (!nb && o.kind == K_DUP)
        o.kind = K_BARRIER;
#endif
    o.root = rng_int(g, 1 << 20);             /* modulo the communicator's size */
    /* large data one time in eight: beyond the eager limit and the shared-memory inline
     * slots; small data otherwise */
    o.count = rng_int(g, 8) == 0 ? 4096 + rng_int(g, 4096) : 1 + rng_int(g, 6);
    o.rq = MPI_REQUEST_NULL;
    o.made = MPI_COMM_NULL;
    return o;
}

static int comm_size_of(MPI_Comm c, int remote)
{
    int n;
    if (remote)
        MPI_Comm_remote_size(c, &n);
    else
        MPI_Comm_size(c, &n);
    return n;
}

#define RUN(blocking, nonblocking, ...)                                                         \
    CHECK_RC(o->nb ? nonblocking(__VA_ARGS__, &o->rq) : blocking(__VA_ARGS__), MPI_SUCCESS)

/* Starts o (nonblocking) or runs it (blocking). */
static void start(op_t *o)
{
    MPI_Comm c = cs[o->comm];
    int inter = o->comm == C_INTER, me, n = comm_size_of(c, 0);
    MPI_Comm_rank(c, &me);
    int rn = inter ? comm_size_of(c, 1) : n; /* blocks received */
    int cnt = o->count, root = o->root % n;
    /* blocks sent: one per member of the communicator (inter: of the remote group) */
    size_t sints = (size_t)cnt * (size_t)(n > rn ? n : rn), rints = (size_t)cnt * (size_t)rn;
    o->sbuf = ibuf(sints);
    o->rbuf = ibuf(rints);
    o->rints = rints;
    for (size_t i = 0; i < sints; i++)
        o->sbuf[i] = v(o, me, (int)i);
    o->started = 1;
    switch (o->kind) {
    case K_BARRIER:
        CHECK_RC(o->nb ? MPI_Ibarrier(c, &o->rq) : MPI_Barrier(c), MPI_SUCCESS);
        break;
    case K_BCAST:
        if (me == root)
            memcpy(o->rbuf, o->sbuf, (size_t)cnt * sizeof(int));
        RUN(MPI_Bcast, MPI_Ibcast, o->rbuf, cnt, MPI_INT, root, c);
        break;
    case K_REDUCE:
        RUN(MPI_Reduce, MPI_Ireduce, o->sbuf, o->rbuf, cnt, MPI_INT, MPI_SUM, root, c);
        break;
    case K_ALLREDUCE:
        RUN(MPI_Allreduce, MPI_Iallreduce, o->sbuf, o->rbuf, cnt, MPI_INT, MPI_SUM, c);
        break;
    case K_ALLGATHER:
        RUN(MPI_Allgather, MPI_Iallgather, o->sbuf, cnt, MPI_INT, o->rbuf, cnt, MPI_INT, c);
        break;
    case K_ALLTOALL:
        RUN(MPI_Alltoall, MPI_Ialltoall, o->sbuf, cnt, MPI_INT, o->rbuf, cnt, MPI_INT, c);
        break;
    case K_GATHER:
        RUN(MPI_Gather, MPI_Igather, o->sbuf, cnt, MPI_INT, o->rbuf, cnt, MPI_INT, root, c);
        break;
    case K_SCATTER:
        RUN(MPI_Scatter, MPI_Iscatter, o->sbuf, cnt, MPI_INT, o->rbuf, cnt, MPI_INT, root, c);
        break;
    case K_SCAN:
        RUN(MPI_Scan, MPI_Iscan, o->sbuf, o->rbuf, cnt, MPI_INT, MPI_SUM, c);
        break;
    case K_REDUCE_SCATTER_BLOCK:
        RUN(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, o->sbuf, o->rbuf, cnt, MPI_INT, MPI_SUM, c);
        break;
    case K_DUP: /* == K_IDUP */
        CHECK_RC(o->nb ? MPI_Comm_idup(c, &o->made, &o->rq) : MPI_Comm_dup(c, &o->made),
                 MPI_SUCCESS);
        break;
    }
}

/* Checks o's result (complete here) and frees its buffers. */
static void finish(op_t *o)
{
    MPI_Comm c = cs[o->comm];
    int inter = o->comm == C_INTER, me, n = comm_size_of(c, 0);
    MPI_Comm_rank(c, &me);
    int rn = inter ? comm_size_of(c, 1) : n, cnt = o->count, root = o->root % n;
    int *exp = ibuf(o->rints);
    char what[160];
    snprintf(what, sizeof what, "%s %s on comm %d (key %d, count %d, root %d)",
             o->nb ? "nonblocking" : "blocking", kind_names[o->kind], o->comm, o->key, cnt,
             root);
    switch (o->kind) {
    case K_BARRIER:
        break;
    case K_BCAST:
        for (int i = 0; i < cnt; i++)
            exp[i] = v(o, root, i);
        break;
    case K_REDUCE:
    case K_ALLREDUCE:
        if (o->kind == K_REDUCE && me != root)
            break;
        for (int i = 0; i < cnt; i++) {
            exp[i] = 0;
            for (int r = 0; r < rn; r++) /* inter: the remote group's sum */
                exp[i] += v(o, r, i);
        }
        break;
    case K_ALLGATHER:
    case K_GATHER:
        if (o->kind == K_GATHER && me != root)
            break;
        for (int r = 0; r < rn; r++)
            for (int i = 0; i < cnt; i++)
                exp[(size_t)r * (size_t)cnt + (size_t)i] = v(o, r, i);
        break;
    case K_ALLTOALL:
        for (int r = 0; r < rn; r++)
            for (int i = 0; i < cnt; i++)
                exp[(size_t)r * (size_t)cnt + (size_t)i] = v(o, r, me * cnt + i);
        break;
    case K_SCATTER:
        for (int i = 0; i < cnt; i++)
            exp[i] = v(o, root, me * cnt + i);
        break;
    case K_SCAN:
        for (int i = 0; i < cnt; i++) {
            exp[i] = 0;
            for (int r = 0; r <= me; r++)
                exp[i] += v(o, r, i);
        }
        break;
    case K_REDUCE_SCATTER_BLOCK:
        for (int i = 0; i < cnt; i++) {
            exp[i] = 0;
            for (int r = 0; r < n; r++)
                exp[i] += v(o, r, me * cnt + i);
        }
        break;
    case K_DUP: {
        /* the new communicator works: an allreduce over it (blocking, in this rank's order of
         * finishing, which is the same everywhere: stream order) */
        int one = 1, sum = 0;
        CHECK(o->made != MPI_COMM_NULL);
        CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, o->made), MPI_SUCCESS);
        CHECK(sum == n);
        CHECK_RC(MPI_Comm_free(&o->made), MPI_SUCCESS);
        break;
    }
    }
    coll_ctx = what;
    check_ints(o->rbuf, exp, o->rints, what);
    free(exp);
    free(o->sbuf);
    free(o->rbuf);
    o->sbuf = o->rbuf = NULL;
    o->started = 0;
}

/* ---- running two streams in a per-rank interleaving ----------------------------------- */

/* Runs blocking ops b[0..nb) and nonblocking ops q[0..nq) with this rank's interleaving:
 * order[i] is 0 (next blocking) or 1 (next nonblocking). Pending requests are tested now and
 * then (flag ignored: a request found complete is checked at the end like the others). */
static void run_streams(op_t *b, int nb, op_t *q, int nq, const int *order, rng_t *local)
{
    int ib = 0, iq = 0;
    for (int k = 0; k < nb + nq; k++) {
        if (order[k] == 0) {
            start(&b[ib]);
            if (b[ib].kind != K_DUP)
                finish(&b[ib]);
            ib++;
        } else {
            start(&q[iq++]);
        }
        if (iq > 0 && rng_int(local, 3) == 0) {
            int t = rng_int(local, iq), flag;
            CHECK_RC(MPI_Test(&q[t].rq, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
    }
    CHECK(ib == nb && iq == nq);
    MPI_Request *rq = malloc((size_t)(nq + 1) * sizeof *rq);
    CHECK(rq);
    for (int i = 0; i < nq; i++)
        rq[i] = q[i].rq;
    CHECK_RC(MPI_Waitall(nq, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    free(rq);
    /* the dups made in the blocking stream are checked after it, in stream order at every
     * rank, then the nonblocking operations in theirs */
    for (int i = 0; i < nb; i++)
        if (b[i].started)
            finish(&b[i]);
    for (int i = 0; i < nq; i++)
        finish(&q[i]);
}

static void make_ops(rng_t *g, op_t *b, int nb, op_t *q, int nq, int key0)
{
    for (int i = 0; i < nb; i++)
        b[i] = gen(g, 0, key0 + i);
    for (int i = 0; i < nq; i++)
        q[i] = gen(g, 1, key0 + nb + i);
}

/* Part 2: rank `ahead` starts m nonblocking collectives before m blocking ones that every
 * other rank calls first. */
static void one_ahead(int m, int ahead)
{
    op_t b[3], q[3];
    int order[6];
    rng_t g = {(uint64_t)(1000 + 10 * m + ahead)};
    make_ops(&g, b, m, q, m, 100000 * m + 1000 * ahead);
    for (int k = 0; k < 2 * m; k++)
        order[k] = (wrank == ahead) == (k < m);
    rng_t local = {(uint64_t)wrank};
    run_streams(b, m, q, m, order, &local);
}

/* Part 3: random interleavings. */
static void random_round(int round)
{
    enum { N = 16 };
    op_t b[N], q[N];
    int order[2 * N];
    rng_t g = {(uint64_t)(5000 + round)};
    int nb = 1 + rng_int(&g, N), nq = 1 + rng_int(&g, N);
    make_ops(&g, b, nb, q, nq, 10000000 + 1000 * round);
    /* this rank's interleaving: runs of 1..4 from either stream */
    rng_t local = {(uint64_t)(wrank * 7919 + round)};
    int ib = 0, iq = 0, k = 0;
    while (ib < nb || iq < nq) {
        int s = ib == nb ? 1 : iq == nq ? 0 : rng_int(&local, 2);
        for (int run = 1 + rng_int(&local, 4); run > 0; run--) {
            if (s == 0 && ib < nb)
                order[k++] = 0, ib++;
            else if (s == 1 && iq < nq)
                order[k++] = 1, iq++;
        }
    }
    run_streams(b, nb, q, nq, order, &local);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    const char *e = getenv("STREAMS_ROUNDS");
    int rounds = e && *e ? atoi(e) : 6;

    coll_ctx = "iagree";
    iagree(MPI_COMM_WORLD);
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    iagree(dup);
    CHECK_RC(MPI_Comm_free(&dup), MPI_SUCCESS);

    streams_comms_make();
    for (int m = 1; m <= 3; m++)
        for (int ahead = 0; ahead < wsize && ahead < 3; ahead++)
            one_ahead(m, ahead);
    for (int r = 0; r < rounds; r++)
        random_round(r);
    streams_comms_free();

    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    if (wrank == 0)
        printf("coll_streams: %d ranks OK\n", wsize);
    MPI_Finalize();
    return 0;
}
