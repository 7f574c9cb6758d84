/* Collective latency, OSU method (osu_barrier, osu_bcast, osu_reduce, osu_allreduce,
 * osu_allgather, osu_alltoall), on MPI_COMM_WORLD with root 0:
 *   barrier     MPI_Barrier; the loop of back-to-back calls is timed as a whole
 *   bcast       MPI_Bcast of `bytes` MPI_CHAR
 *   reduce      MPI_Reduce of bytes / 4 MPI_FLOAT, MPI_SUM
 *   allreduce   MPI_Allreduce of bytes / 4 MPI_FLOAT, MPI_SUM
 *   allgather   MPI_Allgather, `bytes` MPI_CHAR from every rank
 *   alltoall    MPI_Alltoall, `bytes` MPI_CHAR to every rank
 * Sizes are 4 B, 16 B, 64 B, ... max_bytes (powers of 4; see `step` below). For every size:
 * one call whose result is checked exactly (a wrong result prints what is wrong and aborts the
 * job: a fast wrong collective is not a result), a probe (runs of 1, 2, 4, ... calls) that sets
 * the iteration count so the size takes about SIZE_BUDGET seconds whatever the MPI and the
 * load, warm-up calls (a tenth of that, after the probe's), then the timed calls. As in
 * OSU, each rank sums the time spent inside the collective call only, with a barrier after
 * every call so that no call overlaps the next one; the latency is that sum over the
 * iterations, averaged over the ranks (min and max over the ranks are printed too).
 *
 * Everything around the collective under test (the barrier between calls, agreeing on the
 * iteration count, collecting the timings) uses point-to-point calls only: the harness does
 * not depend on any collective, so it measures every MPI the same way and a program built with
 * -DONLY_<NAME> (e.g. -DONLY_BCAST, as the runner does) links against an MPI that has that one
 * collective, even if it lacks the others.
 *
 * Usage: mpirun -n N coll_latency [max_bytes [scale [names [step]]]]
 *   max_bytes  largest size (default 1 MiB); scale in (0, 1] shrinks the time per size (the
 *   runner's --quick); names: comma-separated collectives (default: every one built in);
 *   step: each size is the last times step, 2 to 1024 (default 4; the WAN benchmarks use 8,
 *   4 B ... 1 MiB in 7 sizes, since every call there costs a WAN round trip).
 * Rank 0 prints "# ranks N", then one line per collective and size:
 *   "<name> <bytes> <iterations> <avg_us> <min_us> <max_us>" (bytes is 0 for barrier). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !(defined ONLY_BARRIER || defined ONLY_BCAST || defined ONLY_REDUCE || \
      defined ONLY_ALLREDUCE || defined ONLY_ALLGATHER || defined ONLY_ALLTOALL)
#define WITH_ALL 1
#else
#define WITH_ALL 0
#endif

/* Helpers that a build with one collective may not need. */
#if defined __GNUC__
#define HELPER static __attribute__((unused))
#else
#define HELPER static
#endif

enum {
    DEFAULT_MAX_BYTES = 1 << 20,
    MIN_BYTES = 4,
    POISON = 0xA5,
    MAX_ITERATIONS = 200000,
    MIN_ITERATIONS = 10,
    TAG_SYNC = 101, TAG_COUNT, TAG_STATS, TAG_EXITED,
};
static const double SIZE_BUDGET = 0.1;    /* seconds of timed calls per size at scale 1 */
static const double PROBE_SHARE = 0.05;   /* of SIZE_BUDGET, for the calls that size the run */
static const char PROG[] = "coll_latency";

typedef struct {
    int rank, nranks;
    long bytes;                  /* per rank (allgather) or per pair of ranks (alltoall) */
    unsigned char *sbuf, *rbuf;  /* each holds max_bytes * nranks + 1 guard byte */
} ctx_t;

typedef struct {
    const char *name;
    int sized;                             /* 0: barrier, measured once, bytes = 0 */
    void (*call)(const ctx_t *c);          /* the call that is timed */
    void (*validate)(const ctx_t *c);      /* one checked call; aborts on a wrong result */
} coll_t;

/* --- failing ------------------------------------------------------------------------- */

static void fail(const ctx_t *c, const char *name, const char *what, long at)
{
    fprintf(stderr, "%s: rank %d: %s at %ld bytes: %s (offset %ld)\n", PROG, c->rank, name,
            c->bytes, what, at);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "%s: out of memory (%zu bytes)\n", PROG, bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* --- the harness: point to point only ------------------------------------------------ */

/* Dissemination barrier of zero-byte messages. In round k rank r hears from r - 2^k only, a
 * different rank in every round, so with FIFO order per pair and tag no message of one
 * barrier can be taken for one of the next. */
static void sync_ranks(const ctx_t *c)
{
    for (int k = 1; k < c->nranks; k <<= 1)
        MPI_Sendrecv(NULL, 0, MPI_BYTE, (c->rank + k) % c->nranks, TAG_SYNC, NULL, 0, MPI_BYTE,
                     (c->rank - k + c->nranks) % c->nranks, TAG_SYNC, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
}

/* Rank 0's value of n, on every rank. */
static long share_from_root(const ctx_t *c, long n)
{
    if (c->rank == 0) {
        for (int r = 1; r < c->nranks; r++)
            MPI_Send(&n, 1, MPI_LONG, r, TAG_COUNT, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&n, 1, MPI_LONG, 0, TAG_COUNT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return n;
}

/* Average, min and max of every rank's value, on rank 0. */
static void rank_stats(const ctx_t *c, double mine, double *avg, double *min, double *max)
{
    if (c->rank != 0) {
        MPI_Send(&mine, 1, MPI_DOUBLE, 0, TAG_STATS, MPI_COMM_WORLD);
        return;
    }
    double sum = mine;
    *min = *max = mine;
    for (int r = 1; r < c->nranks; r++) {
        double v;
        MPI_Recv(&v, 1, MPI_DOUBLE, r, TAG_STATS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sum += v;
        if (v < *min) *min = v;
        if (v > *max) *max = v;
    }
    *avg = sum / c->nranks;
}

/* --- data patterns and checks -------------------------------------------------------- */

/* A byte pattern that differs per size and per block (seed), so that a stale, misplaced or
 * misrouted block does not pass the check. */
HELPER unsigned char pattern_byte(long i, long bytes, long seed)
{
    return (unsigned char)(i * 131 + bytes * 7 + seed * 31 + 1);
}

HELPER void fill(unsigned char *buf, long bytes, long seed)
{
    for (long i = 0; i < bytes; i++) buf[i] = pattern_byte(i, bytes, seed);
}

HELPER void expect_pattern(const ctx_t *c, const char *name, const unsigned char *buf,
                           long bytes, long seed, long offset)
{
    for (long i = 0; i < bytes; i++)
        if (buf[i] != pattern_byte(i, bytes, seed)) fail(c, name, "wrong data", offset + i);
}

HELPER void expect_guard(const ctx_t *c, const char *name, const unsigned char *buf, long at)
{
    if (buf[at] != POISON) fail(c, name, "byte written past the end of the buffer", at);
}

/* Reduction input: small integers, so every partial sum of up to 2^14 ranks is exact in a
 * float whatever order the MPI adds them in. */
HELPER float input_value(long i, int rank, long bytes)
{
    return (float)((i * 7 + rank * 13 + bytes) % 1021);
}

HELPER void fill_floats(const ctx_t *c)
{
    float *in = (float *)c->sbuf;
    for (long i = 0; i < c->bytes / 4; i++) in[i] = input_value(i, c->rank, c->bytes);
}

/* The MPI_SUM over all ranks in recvbuf, the input untouched in sendbuf, nothing past the
 * end of either. */
HELPER void expect_sums(const ctx_t *c, const char *name)
{
    const float *in = (const float *)c->sbuf, *out = (const float *)c->rbuf;
    for (long i = 0; i < c->bytes / 4; i++) {
        float sum = 0;
        for (int r = 0; r < c->nranks; r++) sum += input_value(i, r, c->bytes);
        if (out[i] != sum) fail(c, name, "wrong sum", i * 4);
        if (in[i] != input_value(i, c->rank, c->bytes)) fail(c, name, "send buffer modified", i * 4);
    }
    expect_guard(c, name, c->rbuf, c->bytes);
}

/* --- the collectives ------------------------------------------------------------------- */

#if WITH_ALL || defined ONLY_BARRIER
static const double BARRIER_DELAY = 0.005; /* seconds a rank stays out of the checked barrier */

static void call_barrier(const ctx_t *c)
{
    (void)c;
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Each rank in turn stays out of the barrier for BARRIER_DELAY seconds while probing for a
 * message the others send as soon as they leave it: any such message means a rank left
 * before all had entered. (A broken barrier can slip through only if that message takes
 * longer than the delay to arrive; a correct one never fails.) */
static void validate_barrier(const ctx_t *c)
{
    for (int late = 0; late < c->nranks; late++) {
        if (c->rank == late) {
            double until = MPI_Wtime() + BARRIER_DELAY;
            while (MPI_Wtime() < until) {
                int early;
                MPI_Status status;
                MPI_Iprobe(MPI_ANY_SOURCE, TAG_EXITED, MPI_COMM_WORLD, &early, &status);
                if (early) fail(c, "barrier", "a rank left MPI_Barrier before all entered", 0);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (c->rank != late) {
            MPI_Send(NULL, 0, MPI_BYTE, late, TAG_EXITED, MPI_COMM_WORLD);
        } else {
            for (int r = 1; r < c->nranks; r++)
                MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, TAG_EXITED, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
    }
}
#endif

#if WITH_ALL || defined ONLY_BCAST
static void call_bcast(const ctx_t *c)
{
    MPI_Bcast(c->sbuf, (int)c->bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
}

static void validate_bcast(const ctx_t *c)
{
    memset(c->sbuf, POISON, (size_t)c->bytes + 1);
    if (c->rank == 0) fill(c->sbuf, c->bytes, 0);
    call_bcast(c);
    expect_pattern(c, "bcast", c->sbuf, c->bytes, 0, 0);
    expect_guard(c, "bcast", c->sbuf, c->bytes);
}
#endif

#if WITH_ALL || defined ONLY_REDUCE
static void call_reduce(const ctx_t *c)
{
    MPI_Reduce(c->sbuf, c->rbuf, (int)(c->bytes / 4), MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
}

/* recvbuf is significant at the root only: the other ranks' is not checked. */
static void validate_reduce(const ctx_t *c)
{
    fill_floats(c);
    memset(c->rbuf, POISON, (size_t)c->bytes + 1);
    call_reduce(c);
    if (c->rank == 0) expect_sums(c, "reduce");
}
#endif

#if WITH_ALL || defined ONLY_ALLREDUCE
static void call_allreduce(const ctx_t *c)
{
    MPI_Allreduce(c->sbuf, c->rbuf, (int)(c->bytes / 4), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

static void validate_allreduce(const ctx_t *c)
{
    fill_floats(c);
    memset(c->rbuf, POISON, (size_t)c->bytes + 1);
    call_allreduce(c);
    expect_sums(c, "allreduce");
}
#endif

#if WITH_ALL || defined ONLY_ALLGATHER
static void call_allgather(const ctx_t *c)
{
    MPI_Allgather(c->sbuf, (int)c->bytes, MPI_CHAR, c->rbuf, (int)c->bytes, MPI_CHAR,
                  MPI_COMM_WORLD);
}

/* Block r of the result is rank r's contribution (seed r). */
static void validate_allgather(const ctx_t *c)
{
    long total = c->bytes * c->nranks;
    fill(c->sbuf, c->bytes, c->rank);
    memset(c->rbuf, POISON, (size_t)total + 1);
    call_allgather(c);
    for (int r = 0; r < c->nranks; r++)
        expect_pattern(c, "allgather", c->rbuf + r * c->bytes, c->bytes, r, r * c->bytes);
    expect_guard(c, "allgather", c->rbuf, total);
}
#endif

#if WITH_ALL || defined ONLY_ALLTOALL
static void call_alltoall(const ctx_t *c)
{
    MPI_Alltoall(c->sbuf, (int)c->bytes, MPI_CHAR, c->rbuf, (int)c->bytes, MPI_CHAR,
                 MPI_COMM_WORLD);
}

/* Rank s sends block d to rank d with seed s * nranks + d: block s of rank d's result. */
static void validate_alltoall(const ctx_t *c)
{
    long total = c->bytes * c->nranks;
    for (int d = 0; d < c->nranks; d++)
        fill(c->sbuf + d * c->bytes, c->bytes, (long)c->rank * c->nranks + d);
    memset(c->rbuf, POISON, (size_t)total + 1);
    call_alltoall(c);
    for (int s = 0; s < c->nranks; s++)
        expect_pattern(c, "alltoall", c->rbuf + s * c->bytes, c->bytes,
                       (long)s * c->nranks + c->rank, s * c->bytes);
    expect_guard(c, "alltoall", c->rbuf, total);
}
#endif

static const coll_t COLLS[] = {
#if WITH_ALL || defined ONLY_BARRIER
    { "barrier", 0, call_barrier, validate_barrier },
#endif
#if WITH_ALL || defined ONLY_BCAST
    { "bcast", 1, call_bcast, validate_bcast },
#endif
#if WITH_ALL || defined ONLY_REDUCE
    { "reduce", 1, call_reduce, validate_reduce },
#endif
#if WITH_ALL || defined ONLY_ALLREDUCE
    { "allreduce", 1, call_allreduce, validate_allreduce },
#endif
#if WITH_ALL || defined ONLY_ALLGATHER
    { "allgather", 1, call_allgather, validate_allgather },
#endif
#if WITH_ALL || defined ONLY_ALLTOALL
    { "alltoall", 1, call_alltoall, validate_alltoall },
#endif
};
enum { NCOLLS = sizeof COLLS / sizeof COLLS[0] };

/* --- measuring ------------------------------------------------------------------------- */

/* n calls; returns the seconds this rank spent inside them. Barrier: n back-to-back calls
 * timed as a whole (osu_barrier); the others: each call timed alone and followed by an
 * untimed barrier (osu_bcast and the rest), so a rank cannot run ahead into the next call. */
static double run_calls(const coll_t *k, const ctx_t *c, long n)
{
    if (!k->sized) {
        double start = MPI_Wtime();
        for (long i = 0; i < n; i++) k->call(c);
        return MPI_Wtime() - start;
    }
    double inside = 0;
    for (long i = 0; i < n; i++) {
        double start = MPI_Wtime();
        k->call(c);
        inside += MPI_Wtime() - start;
        sync_ranks(c);
    }
    return inside;
}

/* Iterations for about `budget` seconds of calls, the same on every rank: rank 0 times runs
 * of 1, 2, 4, ... calls (barriers between them included) until one lasts PROBE_SHARE of the
 * budget, and scales that run's time per call up to the budget. */
static long iterations_for(const coll_t *k, const ctx_t *c, double budget, long min_iterations)
{
    double per_call;
    for (long n = 1;; n *= 2) {
        sync_ranks(c);
        double start = MPI_Wtime();
        run_calls(k, c, n);
        per_call = (MPI_Wtime() - start) / (double)n;
        long done = c->rank == 0 && (per_call * (double)n >= budget * PROBE_SHARE ||
                                     n >= MAX_ITERATIONS);
        if (share_from_root(c, done)) break;
    }
    long n = per_call > 0 ? (long)(budget / per_call) : MAX_ITERATIONS;
    if (n > MAX_ITERATIONS) n = MAX_ITERATIONS;
    if (n < min_iterations) n = min_iterations;
    return share_from_root(c, n);
}

static void measure(const coll_t *k, ctx_t *c, long bytes, double scale)
{
    c->bytes = bytes;
    sync_ranks(c);
    k->validate(c);   /* leaves valid inputs in the buffers for the timed calls */
    long min_iterations = (long)(MIN_ITERATIONS * scale);
    if (min_iterations < 2) min_iterations = 2;
    long n = iterations_for(k, c, SIZE_BUDGET * scale, min_iterations);
    run_calls(k, c, n / 10 + 1);      /* warm-up, after the probe's calls */
    sync_ranks(c);
    double us = run_calls(k, c, n) / (double)n * 1e6;
    double avg = 0, min = 0, max = 0;
    rank_stats(c, us, &avg, &min, &max);
    if (c->rank == 0) {
        printf("%s %ld %ld %.3f %.3f %.3f\n", k->name, bytes, n, avg, min, max);
        fflush(stdout);
    }
}

/* --- main -------------------------------------------------------------------------------- */

static int selected(const char *names, const char *name)
{
    if (!names) return 1;
    size_t len = strlen(name);
    for (const char *p = names; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, len) == 0) return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

/* Every name in the list must be a collective built into this program. */
static int known_names(const char *names)
{
    if (!names) return 1;
    for (const char *p = names; *p;) {
        size_t n = strcspn(p, ",");
        int found = 0;
        for (int i = 0; i < NCOLLS; i++)
            found |= strlen(COLLS[i].name) == n && strncmp(p, COLLS[i].name, n) == 0;
        if (!found) return 0;
        p += n + (p[n] == ',');
    }
    return 1;
}

int main(int argc, char **argv)
{
    ctx_t c = { 0 };
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
    long max_bytes = argc > 1 ? atol(argv[1]) : DEFAULT_MAX_BYTES;
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    const char *names = argc > 3 ? argv[3] : NULL;
    long step = argc > 4 ? atol(argv[4]) : 4;
    if (max_bytes < MIN_BYTES || scale <= 0 || scale > 1 || !known_names(names) ||
        step < 2 || step > 1024 || c.nranks < 2) {
        if (c.rank == 0) {
            fprintf(stderr, "usage: mpirun -n N %s [max_bytes >= %d [scale in (0,1] "
                            "[names [step from 2 to 1024]]]] with N >= 2; names, "
                            "comma-separated, from:", PROG, MIN_BYTES);
            for (int i = 0; i < NCOLLS; i++) fprintf(stderr, " %s", COLLS[i].name);
            fprintf(stderr, "\n");
        }
        MPI_Finalize();
        return 2;
    }
    size_t room = (size_t)max_bytes * (size_t)c.nranks + 1;
    c.sbuf = xmalloc(room);
    c.rbuf = xmalloc(room);
    memset(c.sbuf, 0, room);
    memset(c.rbuf, 0, room);
    if (c.rank == 0) {
        printf("# ranks %d\n# collective bytes iterations avg_us min_us max_us\n", c.nranks);
        fflush(stdout);
    }
    for (int i = 0; i < NCOLLS; i++) {
        if (!selected(names, COLLS[i].name)) continue;
        if (!COLLS[i].sized) {
            measure(&COLLS[i], &c, 0, scale);
            continue;
        }
        for (long bytes = MIN_BYTES; bytes <= max_bytes; bytes *= step)
            measure(&COLLS[i], &c, bytes, scale);
    }
    free(c.sbuf);
    free(c.rbuf);
    MPI_Finalize();
    return 0;
}
