/*
 * Site-aware collectives: results, and what crosses the WAN per call.
 *
 * Around each blocking collective call every rank reads its WAN counters (core/wan_stats.h:
 * messages and bytes it handed to the protocol for ranks at other sites, per destination
 * site); the differences of all ranks, summed per ordered pair of sites, are the call's WAN
 * traffic per link and direction, which must equal what docs/collectives.md ("Collectives
 * across sites") promises: e.g. a broadcast sends one message of the whole buffer from the
 * root's site to every other site and nothing else; alltoall one message per site pair with
 * every block between the two sites (a message of the site level travels in pieces of at most
 * METAMPI_COLL_SITES_SEGMENT bytes: pieces()). Every call's result is checked too.
 *
 * Communicators: the world; an uneven subset (site k of the world keeps its first k + 1
 * members: sites of 1, 2, 3 ... ranks); the world with the sites' members interleaved
 * (sites not consecutive: the packing paths, and non-commutative reductions, which then run
 * flat and are only checked for their result); the world reversed; two ranks at two sites.
 * Roots: the first member of every site and the last rank.
 *
 * Linked against the library's objects for the counters. Argument "flat": expect the
 * site-aware algorithms to be switched off (METAMPI_COLL_SITES=0): the program then fails at
 * the first call that crosses a link more than once, which shows the checks can fail.
 */
#include "core/p2p.h"
#include "core/wan_stats.h"

#include "../check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wsize, wrank, ns, *wsite;

/* ---- counting ------------------------------------------------------------------------- */

typedef struct {
    uint64_t m, b;
} link_t;

static link_t *got, *want; /* ns * ns: [from * ns + to] */
static uint64_t *before, *after, *all;

static void snap(uint64_t *v)
{
    for (int t = 0; t < ns; t++)
        wan_stats_get(t, &v[2 * t], &v[2 * t + 1]);
}

/* The traffic between `before` and `after` of every member, per link. */
static void links(void);

#define MEASURE(call)                                                                          \
    do {                                                                                       \
        snap(before);                                                                          \
        CHECK_RC(call, MPI_SUCCESS);                                                           \
        snap(after);                                                                           \
        links();                                                                               \
    } while (0)

static const char *what = "";
static const char *cx_name = "";
static int flat;
/* the 2x2 matrix product over sites (a non-commutative user op) and its type */
static MPI_Op op_mat;
static MPI_Datatype t_mat;

static void expect(void)
{
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < ns; t++) {
            link_t g = got[s * ns + t], w = want[s * ns + t];
            if (g.m == w.m && g.b == w.b)
                continue;
            if (flat) { /* what this run is for: every rank sees the same counts */
                if (wrank == 0)
                    printf("flat: %s on %s crosses site %d -> %d %llu times (%llu bytes): "
                           "noticed\n", what, cx_name, s, t, (unsigned long long)g.m,
                           (unsigned long long)g.b);
                MPI_Op_free(&op_mat); /* LeakSanitizer: what the normal end frees */
                MPI_Type_free(&t_mat);
                MPI_Finalize();
                exit(0);
            }
            fprintf(stderr, "FAIL rank %d: %s: site %d -> %d: %llu messages, %llu bytes; "
                    "expected %llu, %llu\n", wrank, what, s, t, (unsigned long long)g.m,
                    (unsigned long long)g.b, (unsigned long long)w.m,
                    (unsigned long long)w.b);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

static void want_none(void)
{
    memset(want, 0, (size_t)ns * ns * sizeof *want);
}

static void want_add(int s, int t, uint64_t m, uint64_t b)
{
    if (s != t) {
        want[s * ns + t].m += m;
        want[s * ns + t].b += b;
    }
}

/* ---- the communicator under test ---------------------------------------------------------- */

/* Only its members take part in a measurement (and exchange their counts over it). */
typedef struct {
    MPI_Comm comm;
    const char *name;
    int n, me;
    int *site;   /* comm rank -> world site */
    int *sz;     /* world site -> members in comm */
    int *first;  /* world site -> its lowest comm rank (-1: none) */
    int *order;  /* the sites present, by lowest comm rank (the library's site order) */
    int np;      /* sites present */
    int ordered; /* every site's members are consecutive ranks, in site order */
} cx_t;

static cx_t cx;

static void cx_open(MPI_Comm comm, const char *name)
{
    cx.comm = comm;
    cx.name = cx_name = name;
    MPI_Comm_size(comm, &cx.n);
    MPI_Comm_rank(comm, &cx.me);
    MPI_Group g, wg;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *r = malloc((size_t)cx.n * sizeof *r), *w = malloc((size_t)cx.n * sizeof *w);
    cx.site = malloc((size_t)cx.n * sizeof *cx.site);
    cx.sz = calloc((size_t)ns, sizeof *cx.sz);
    cx.first = malloc((size_t)ns * sizeof *cx.first);
    cx.order = malloc((size_t)ns * sizeof *cx.order);
    CHECK(r && w && cx.site && cx.sz && cx.first && cx.order);
    for (int i = 0; i < cx.n; i++)
        r[i] = i;
    MPI_Group_translate_ranks(g, cx.n, r, wg, w);
    for (int t = 0; t < ns; t++)
        cx.first[t] = -1;
    cx.np = 0;
    for (int i = 0; i < cx.n; i++) {
        int t = cx.site[i] = wsite[w[i]];
        if (cx.sz[t]++ == 0) {
            cx.first[t] = i;
            cx.order[cx.np++] = t;
        }
    }
    /* ordered: every site's members are consecutive ranks (a rank whose site differs from
     * its predecessor's starts that site) */
    cx.ordered = 1;
    for (int i = 1; i < cx.n; i++)
        if (cx.site[i] != cx.site[i - 1] && cx.first[cx.site[i]] != i)
            cx.ordered = 0;
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(r);
    free(w);
}

static void links(void)
{
    for (int i = 0; i < 2 * ns; i++)
        after[i] -= before[i];
    CHECK_RC(MPI_Allgather(after, 2 * ns, MPI_UINT64_T, all, 2 * ns, MPI_UINT64_T, cx.comm),
             MPI_SUCCESS);
    memset(got, 0, (size_t)ns * ns * sizeof *got);
    for (int r = 0; r < cx.n; r++)
        for (int t = 0; t < ns; t++) {
            got[cx.site[r] * ns + t].m += all[(size_t)r * 2 * ns + 2 * t];
            got[cx.site[r] * ns + t].b += all[(size_t)r * 2 * ns + 2 * t + 1];
        }
}

static void cx_close(void)
{
    free(cx.site);
    free(cx.sz);
    free(cx.first);
    free(cx.order);
}

/* Whether the site-aware algorithms run on this communicator (as the library decides). */
static int site_aware(void)
{
    return cx.np > 1 && cx.n >= 3;
}

/* A size from the environment as the library reads it (k/m suffixes), or dflt. */
static uint64_t env_size(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    uint64_t x = strtoull(v, &end, 10);
    return *end == 'k' || *end == 'K' ? x << 10 : *end == 'm' || *end == 'M' ? x << 20 : x;
}

/* The pieces one message of b bytes between two site leaders travels in: the site level cuts
 * them at METAMPI_COLL_SITES_SEGMENT bytes (32 KiB; 0: never); the flat algorithms of a
 * two-member communicator do not. */
static uint64_t pieces(uint64_t b)
{
    uint64_t seg = env_size("METAMPI_COLL_SITES_SEGMENT", 32 << 10);
    if (!site_aware() || seg == 0 || b == 0)
        return 1;
    return (b + seg - 1) / seg;
}

/* One message of b bytes from site s to site t, as the site level sends it. */
static void want_msg(int s, int t, uint64_t b)
{
    want_add(s, t, pieces(b), b);
}

/* ---- data ------------------------------------------------------------------------------- */

static int val(int key, int a, int b, int k)
{
    uint64_t z = (uint64_t)key * 0x9e3779b97f4a7c15ull ^ (uint64_t)a * 0xbf58476d1ce4e5b9ull ^
                 (uint64_t)b * 0x94d049bb133111ebull ^ (uint64_t)k * 0xff51afd7ed558ccdull;
    z ^= z >> 31;
    z *= 0xc4ceb9fe1a85ec53ull;
    return (int)((z >> 33) & 0xffff);
}

static int *ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    CHECK(p);
    return p;
}

#define SZ sizeof(int)

/* ---- the collectives --------------------------------------------------------------------- */

static void t_barrier(void)
{
    what = "barrier";
    MEASURE(MPI_Barrier(cx.comm));
    want_none();
    for (int a = 0; a < cx.np; a++)
        for (int b = 0; b < cx.np; b++)
            want_msg(cx.order[a], cx.order[b], 0);
    expect();
}

static void t_bcast(int root, int count)
{
    static char name[64];
    snprintf(name, sizeof name, "bcast root %d count %d", root, count);
    what = name;
    int *buf = ints((size_t)count);
    for (int i = 0; i < count; i++)
        buf[i] = cx.me == root ? val(1, root, count, i) : -1;
    MEASURE(MPI_Bcast(buf, count, MPI_INT, root, cx.comm));
    for (int i = 0; i < count; i++)
        CHECK(buf[i] == val(1, root, count, i));
    want_none();
    for (int a = 0; a < cx.np; a++)
        want_msg(cx.site[root], cx.order[a], (uint64_t)count * SZ);
    expect();
    free(buf);
}

/* ---- reductions: a commutative sum and a non-commutative product of 2x2 matrices ---------- */

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3];
        unsigned c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
        b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
    }
}

/* The expected element i of the reduction over every member, in rank order. */
static void mat_ref(int key, int count, unsigned *ref)
{
    for (int i = 0; i < count; i++) {
        unsigned *m = ref + 4 * i;
        m[0] = 1, m[1] = 0, m[2] = 0, m[3] = 1;
        for (int r = cx.n - 1; r >= 0; r--) {
            unsigned x[4];
            for (int j = 0; j < 4; j++)
                x[j] = (unsigned)val(key, r, j, i);
            int one = 1;
            matmul(x, m, &one, NULL);
        }
    }
}

/* Expected WAN traffic of an allreduce of `bytes` (count elements of esize bytes). */
static void want_allreduce(size_t count, size_t esize)
{
    want_none();
    uint64_t bytes = count * esize;
    if (cx.np == 2 || bytes < (2u << 20) || count < (size_t)cx.np) {
        for (int a = 0; a < cx.np; a++)
            for (int b = 0; b < cx.np; b++)
                want_msg(cx.order[a], cx.order[b], bytes);
        return;
    }
    for (int a = 0; a < cx.np; a++) /* segment x of the vector belongs to site x */
        for (int b = 0; b < cx.np; b++) {
            uint64_t sa = count * (size_t)(a + 1) / (size_t)cx.np - count * (size_t)a / (size_t)cx.np;
            uint64_t sb = count * (size_t)(b + 1) / (size_t)cx.np - count * (size_t)b / (size_t)cx.np;
            want_msg(cx.order[a], cx.order[b], sb * esize); /* b's segment of a's partial */
            want_msg(cx.order[a], cx.order[b], sa * esize); /* a's folded segment */
        }
}

static void t_reduce(int root, int count, int inplace)
{
    static char name[80];
    snprintf(name, sizeof name, "reduce root %d count %d%s", root, count,
             inplace ? " in place" : "");
    what = name;
    int *in = ints((size_t)count), *out = ints((size_t)count);
    for (int i = 0; i < count; i++) {
        in[i] = val(3, cx.me, 0, i);
        out[i] = inplace && cx.me == root ? in[i] : -1;
    }
    const void *sb = inplace && cx.me == root ? MPI_IN_PLACE : in;
    MEASURE(MPI_Reduce(sb, out, count, MPI_INT, MPI_SUM, root, cx.comm));
    if (cx.me == root)
        for (int i = 0; i < count; i++) {
            int sum = 0;
            for (int r = 0; r < cx.n; r++)
                sum += val(3, r, 0, i);
            CHECK(out[i] == sum);
        }
    want_none();
    for (int a = 0; a < cx.np; a++)
        want_msg(cx.order[a], cx.site[root], (uint64_t)count * SZ);
    expect();
    /* non-commutative: the result in rank order; across sites only when they are in order */
    unsigned *m = malloc((size_t)count * 4 * sizeof *m), *r = malloc((size_t)count * 4 * sizeof *r);
    unsigned *ref = malloc((size_t)count * 4 * sizeof *ref);
    CHECK(m && r && ref);
    for (int i = 0; i < count; i++)
        for (int j = 0; j < 4; j++)
            m[4 * i + j] = (unsigned)val(4, cx.me, j, i);
    MEASURE(MPI_Reduce(m, r, count, t_mat, op_mat, root, cx.comm));
    if (cx.me == root) {
        mat_ref(4, count, ref);
        CHECK(memcmp(r, ref, (size_t)count * 4 * sizeof *r) == 0);
    }
    /* (two members: the flat tree reduces at rank 0 and forwards to root 1, once each way) */
    if (cx.ordered && site_aware()) {
        want_none();
        for (int a = 0; a < cx.np; a++)
            want_msg(cx.order[a], cx.site[root], (uint64_t)count * 4 * sizeof(unsigned));
        expect();
    }
    free(m), free(r), free(ref), free(in), free(out);
}

static void t_allreduce(int count, int inplace)
{
    static char name[80];
    snprintf(name, sizeof name, "allreduce count %d%s", count, inplace ? " in place" : "");
    what = name;
    int *in = ints((size_t)count), *out = ints((size_t)count);
    for (int i = 0; i < count; i++) {
        in[i] = val(5, cx.me, 0, i);
        out[i] = inplace ? in[i] : -1;
    }
    MEASURE(MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM, cx.comm));
    for (int i = 0; i < count; i++) {
        int sum = 0;
        for (int r = 0; r < cx.n; r++)
            sum += val(5, r, 0, i);
        CHECK(out[i] == sum);
    }
    /* two members, large: the flat Rabenseifner moves the vector once each way, in halves */
    if (site_aware() || (size_t)count * SZ < 16384) {
        want_allreduce((size_t)count, SZ);
        expect();
    }
    if (count <= 10000) {
        unsigned *m = malloc((size_t)count * 16), *r = malloc((size_t)count * 16);
        unsigned *ref = malloc((size_t)count * 16);
        CHECK(m && r && ref);
        for (int i = 0; i < count; i++)
            for (int j = 0; j < 4; j++)
                m[4 * i + j] = (unsigned)val(6, cx.me, j, i);
        MEASURE(MPI_Allreduce(m, r, count, t_mat, op_mat, cx.comm));
        mat_ref(6, count, ref);
        CHECK(memcmp(r, ref, (size_t)count * 16) == 0);
        if (cx.ordered && site_aware()) {
            want_allreduce((size_t)count, 16);
            expect();
        }
        free(m), free(r), free(ref);
    }
    free(in), free(out);
}

static void t_reduce_scatter(int count)
{
    what = "reduce_scatter_block";
    size_t total = (size_t)count * (size_t)cx.n;
    int *in = ints(total), *out = ints((size_t)count);
    for (size_t i = 0; i < total; i++)
        in[i] = val(7, cx.me, 0, (int)i);
    MEASURE(MPI_Reduce_scatter_block(in, out, count, MPI_INT, MPI_SUM, cx.comm));
    for (int i = 0; i < count; i++) {
        int sum = 0;
        for (int r = 0; r < cx.n; r++)
            sum += val(7, r, 0, cx.me * count + i);
        CHECK(out[i] == sum);
    }
    want_allreduce(total, SZ);
    expect();
    free(in), free(out);
}

/* ---- gather / scatter ----------------------------------------------------------------------- */

static void t_gather(int root, int count, int inplace)
{
    static char name[80];
    snprintf(name, sizeof name, "gather root %d count %d%s", root, count,
             inplace ? " in place" : "");
    what = name;
    int n = cx.n, *mine = ints((size_t)count), *all = ints((size_t)count * n);
    for (int i = 0; i < count; i++)
        mine[i] = val(8, cx.me, 0, i);
    for (int i = 0; i < count * n; i++)
        all[i] = -1;
    if (inplace && cx.me == root)
        memcpy(all + (size_t)root * count, mine, (size_t)count * SZ);
    const void *sb = inplace && cx.me == root ? MPI_IN_PLACE : mine;
    MEASURE(MPI_Gather(sb, count, MPI_INT, all, count, MPI_INT, root, cx.comm));
    if (cx.me == root)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < count; i++)
                CHECK(all[(size_t)r * count + i] == val(8, r, 0, i));
    want_none();
    for (int a = 0; a < cx.np; a++)
        want_msg(cx.order[a], cx.site[root], (uint64_t)cx.sz[cx.order[a]] * count * SZ);
    expect();

    snprintf(name, sizeof name, "scatter root %d count %d%s", root, count,
             inplace ? " in place" : "");
    for (int r = 0; r < n; r++)
        for (int i = 0; i < count; i++)
            all[(size_t)r * count + i] = val(9, r, 0, i);
    for (int i = 0; i < count; i++)
        mine[i] = -1;
    void *rb = inplace && cx.me == root ? MPI_IN_PLACE : mine;
    MEASURE(MPI_Scatter(all, count, MPI_INT, rb, count, MPI_INT, root, cx.comm));
    if (!(inplace && cx.me == root))
        for (int i = 0; i < count; i++)
            CHECK(mine[i] == val(9, cx.me, 0, i));
    want_none();
    for (int a = 0; a < cx.np; a++)
        want_msg(cx.site[root], cx.order[a], (uint64_t)cx.sz[cx.order[a]] * count * SZ);
    expect();
    free(mine), free(all);
}

/* v-form counts: some members contribute nothing */
static int vcount(int r, int scale)
{
    return (r * 7 + 3) % 5 * scale;
}

static void t_gatherv(int root, int scale)
{
    static char name[64];
    snprintf(name, sizeof name, "gatherv root %d", root);
    what = name;
    int n = cx.n, *cnt = ints((size_t)n), *dsp = ints((size_t)n), total = 0;
    for (int r = 0; r < n; r++) {
        cnt[r] = vcount(r, scale);
        dsp[r] = total + 1; /* a gap before every block */
        total += cnt[r] + 1;
    }
    int mc = cnt[cx.me], *mine = ints((size_t)mc), *all = ints((size_t)total);
    for (int i = 0; i < mc; i++)
        mine[i] = val(10, cx.me, 0, i);
    for (int i = 0; i < total; i++)
        all[i] = -1;
    MEASURE(MPI_Gatherv(mine, mc, MPI_INT, all, cnt, dsp, MPI_INT, root, cx.comm));
    if (cx.me == root)
        for (int r = 0; r < n; r++) {
            CHECK(all[dsp[r] - 1] == -1);
            for (int i = 0; i < cnt[r]; i++)
                CHECK(all[dsp[r] + i] == val(10, r, 0, i));
        }
    want_none();
    for (int a = 0; a < cx.np; a++) {
        uint64_t b = 0;
        for (int r = 0; r < n; r++)
            if (cx.site[r] == cx.order[a])
                b += (uint64_t)cnt[r] * SZ;
        if (b)
            want_msg(cx.order[a], cx.site[root], b);
    }
    expect();

    snprintf(name, sizeof name, "scatterv root %d", root);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < cnt[r]; i++)
            all[dsp[r] + i] = val(11, r, 0, i);
    for (int i = 0; i < mc; i++)
        mine[i] = -1;
    MEASURE(MPI_Scatterv(all, cnt, dsp, MPI_INT, mine, mc, MPI_INT, root, cx.comm));
    for (int i = 0; i < mc; i++)
        CHECK(mine[i] == val(11, cx.me, 0, i));
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < s; t++) { /* the mirror image */
            link_t x = want[s * ns + t];
            want[s * ns + t] = want[t * ns + s];
            want[t * ns + s] = x;
        }
    expect();
    free(cnt), free(dsp), free(mine), free(all);
}

/* ---- allgather(v), alltoall(v,w) ------------------------------------------------------------- */

static void t_allgather(int count, int inplace)
{
    static char name[64];
    snprintf(name, sizeof name, "allgather count %d%s", count, inplace ? " in place" : "");
    what = name;
    int n = cx.n, *mine = ints((size_t)count), *all = ints((size_t)count * n);
    for (int i = 0; i < count; i++)
        mine[i] = val(12, cx.me, 0, i);
    for (int i = 0; i < count * n; i++)
        all[i] = -1;
    if (inplace)
        memcpy(all + (size_t)cx.me * count, mine, (size_t)count * SZ);
    MEASURE(MPI_Allgather(inplace ? MPI_IN_PLACE : mine, count, MPI_INT, all, count, MPI_INT,
                          cx.comm));
    for (int r = 0; r < n; r++)
        for (int i = 0; i < count; i++)
            CHECK(all[(size_t)r * count + i] == val(12, r, 0, i));
    want_none();
    for (int a = 0; a < cx.np; a++)
        for (int b = 0; b < cx.np; b++)
            want_msg(cx.order[a], cx.order[b], (uint64_t)cx.sz[cx.order[a]] * count * SZ);
    expect();
    free(mine), free(all);
}

static void t_allgatherv(int scale)
{
    what = "allgatherv";
    int n = cx.n, *cnt = ints((size_t)n), *dsp = ints((size_t)n), total = 0;
    for (int r = 0; r < n; r++) {
        cnt[r] = vcount(r, scale);
        dsp[r] = total + 1;
        total += cnt[r] + 1;
    }
    int mc = cnt[cx.me], *mine = ints((size_t)mc), *all = ints((size_t)total);
    for (int i = 0; i < mc; i++)
        mine[i] = val(13, cx.me, 0, i);
    for (int i = 0; i < total; i++)
        all[i] = -1;
    MEASURE(MPI_Allgatherv(mine, mc, MPI_INT, all, cnt, dsp, MPI_INT, cx.comm));
    for (int r = 0; r < n; r++) {
        CHECK(all[dsp[r] - 1] == -1);
        for (int i = 0; i < cnt[r]; i++)
            CHECK(all[dsp[r] + i] == val(13, r, 0, i));
    }
    want_none();
    for (int a = 0; a < cx.np; a++) {
        uint64_t b = 0;
        for (int r = 0; r < n; r++)
            if (cx.site[r] == cx.order[a])
                b += (uint64_t)cnt[r] * SZ;
        for (int c = 0; c < cx.np && b; c++)
            want_msg(cx.order[a], cx.order[c], b);
    }
    expect();
    free(cnt), free(dsp), free(mine), free(all);
}

static void t_alltoall(int count, int inplace)
{
    static char name[64];
    snprintf(name, sizeof name, "alltoall count %d%s", count, inplace ? " in place" : "");
    what = name;
    int n = cx.n, *sb = ints((size_t)count * n), *rb = ints((size_t)count * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < count; i++) {
            sb[(size_t)j * count + i] = val(14, cx.me, j, i);
            rb[(size_t)j * count + i] = inplace ? sb[(size_t)j * count + i] : -1;
        }
    MEASURE(MPI_Alltoall(inplace ? MPI_IN_PLACE : sb, count, MPI_INT, rb, count, MPI_INT,
                         cx.comm));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < count; i++)
            CHECK(rb[(size_t)j * count + i] == val(14, j, cx.me, i));
    /* one message per site pair up to METAMPI_COLL_SITES_ALLTOALL_MAX (1 MiB), else every
     * rank pair directly */
    uint64_t largest = 0, bb = (uint64_t)count * SZ;
    for (int a = 0; a < cx.np; a++)
        for (int b = 0; b < cx.np; b++)
            if (a != b && (uint64_t)cx.sz[cx.order[a]] * cx.sz[cx.order[b]] * bb > largest)
                largest = (uint64_t)cx.sz[cx.order[a]] * cx.sz[cx.order[b]] * bb;
    int combined = largest <= env_size("METAMPI_COLL_SITES_ALLTOALL_MAX", 1 << 20);
    want_none();
    for (int a = 0; a < cx.np; a++)
        for (int b = 0; b < cx.np; b++) {
            uint64_t pairs = (uint64_t)cx.sz[cx.order[a]] * cx.sz[cx.order[b]];
            if (combined)
                want_msg(cx.order[a], cx.order[b], pairs * bb);
            else
                want_add(cx.order[a], cx.order[b], pairs, pairs * bb);
        }
    expect();
    free(sb), free(rb);
}

/* alltoallv / alltoallw: i sends a2c(i, j) ints to j (some zero); symmetric for in place */
static int a2c(int i, int j, int sym)
{
    return sym ? (i + j) % 3 : (i + 2 * j) % 4;
}

static void t_alltoallv(int w, int inplace)
{
    static char name[64];
    snprintf(name, sizeof name, "alltoall%s%s", w ? "w" : "v", inplace ? " in place" : "");
    what = name;
    int n = cx.n, me = cx.me;
    int *sc = ints((size_t)n), *sd = ints((size_t)n), *rc = ints((size_t)n),
        *rd = ints((size_t)n);
    MPI_Datatype *ty = malloc((size_t)n * sizeof *ty);
    CHECK(ty);
    int st = 0, rt = 0;
    for (int j = 0; j < n; j++) {
        sc[j] = a2c(me, j, inplace), rc[j] = a2c(j, me, inplace);
        sd[j] = st, rd[j] = rt + 2; /* gaps in the receive buffer */
        st += sc[j], rt += rc[j] + 2;
        ty[j] = MPI_INT;
    }
    int *sb = ints((size_t)st), *rb = ints((size_t)rt + 2);
    for (int i = 0; i < rt + 2; i++)
        rb[i] = -1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < sc[j]; i++) {
            sb[sd[j] + i] = val(15, me, j, i);
            if (inplace)
                rb[rd[j] + i] = sb[sd[j] + i];
        }
    const void *s = inplace ? MPI_IN_PLACE : sb;
    if (!w) {
        MEASURE(MPI_Alltoallv(s, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, cx.comm));
    } else {
        for (int j = 0; j < n; j++)
            sd[j] *= (int)SZ, rd[j] *= (int)SZ;
        MEASURE(MPI_Alltoallw(s, sc, sd, ty, rb, rc, rd, ty, cx.comm));
        for (int j = 0; j < n; j++)
            sd[j] /= (int)SZ, rd[j] /= (int)SZ;
    }
    for (int j = 0; j < n; j++) {
        CHECK(rb[rd[j] - 1] == -1);
        for (int i = 0; i < rc[j]; i++)
            CHECK(rb[rd[j] + i] == val(15, j, me, i));
    }
    want_none();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            want[cx.site[i] * ns + cx.site[j]].b += (uint64_t)a2c(i, j, inplace) * SZ;
    for (int s = 0; s < ns; s++)
        for (int t = 0; t < ns; t++)
            want[s * ns + t].m = s != t && want[s * ns + t].b ? pieces(want[s * ns + t].b) : 0;
    for (int s = 0; s < ns; s++)
        want[s * ns + s].b = 0;
    expect();
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb), free(ty);
}

/* ---- neighbourhood collectives ------------------------------------------------------------ */

/* WAN traffic of a neighbourhood call: one message per site pair with edges between them,
 * carrying every block on those edges — through the site gateways one message per
 * destination member (its slice), all sent together so that they cross as one WAN frame,
 * which that site's gateway splits. edge_bytes(i, k): bytes member i sends on its k-th
 * out-edge (to dst[k]). */
static void want_neighbor(MPI_Comm topo, int (*bytes_of)(int i, int k, int d))
{
    int n = cx.n;
    want_none();
    uint64_t *edges = calloc((size_t)ns * ns, sizeof *edges);
    /* per (source site, destination member): edges and bytes, for the gateway split */
    uint64_t *to_member = calloc((size_t)ns * n, sizeof *to_member);
    uint64_t *edges_member = calloc((size_t)ns * n, sizeof *edges_member);
    CHECK(edges && to_member && edges_member);
    /* every rank's destinations, gathered: each rank knows only its own */
    int indeg, outdeg, weighted, status;
    MPI_Topo_test(topo, &status);
    int *dst = NULL;
    if (status == MPI_CART) {
        int nd;
        MPI_Cartdim_get(topo, &nd);
        outdeg = 2 * nd;
        dst = ints((size_t)outdeg);
        for (int d = 0; d < nd; d++)
            MPI_Cart_shift(topo, d, 1, &dst[2 * d], &dst[2 * d + 1]);
    } else {
        MPI_Dist_graph_neighbors_count(topo, &indeg, &outdeg, &weighted);
        int *src = ints((size_t)indeg);
        dst = ints((size_t)outdeg);
        MPI_Dist_graph_neighbors(topo, indeg, src, MPI_UNWEIGHTED, outdeg, dst,
                                 MPI_UNWEIGHTED);
        free(src);
    }
    int *deg = ints((size_t)n), *dsp = ints((size_t)n), total = 0;
    MPI_Allgather(&outdeg, 1, MPI_INT, deg, 1, MPI_INT, topo);
    for (int r = 0; r < n; r++)
        dsp[r] = total, total += deg[r];
    int *alld = ints((size_t)total);
    MPI_Allgatherv(dst, outdeg, MPI_INT, alld, deg, dsp, MPI_INT, topo);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < deg[i]; k++) {
            int d = alld[dsp[i] + k];
            if (d == MPI_PROC_NULL || cx.site[d] == cx.site[i])
                continue;
            edges[cx.site[i] * ns + cx.site[d]]++;
            want[cx.site[i] * ns + cx.site[d]].b += (uint64_t)bytes_of(i, k, d);
            edges_member[cx.site[i] * n + d]++;
            to_member[cx.site[i] * n + d] += (uint64_t)bytes_of(i, k, d);
        }
    int gateways = 0; /* is another site reached through the gateways? */
    for (int r = 0; r < wsize; r++)
        if (wsite[r] != wsite[wrank]) {
            gateways = p2p_bundles(r);
            break;
        }
    for (int s = 0; s < ns * ns; s++)
        want[s].m = edges[s] ? pieces(want[s].b) : 0;
    if (gateways && site_aware())
        for (int s = 0; s < ns * ns; s++) {
            want[s].m = 0;
            for (int d = 0; d < n; d++)
                if (cx.site[d] == s % ns && edges_member[s / ns * n + d])
                    want[s].m += pieces(to_member[s / ns * n + d]);
        }
    free(edges), free(dst), free(deg), free(dsp), free(alld), free(to_member), free(edges_member);
}

static int nb_count;
static int uniform_bytes(int i, int k, int d)
{
    (void)i, (void)k, (void)d;
    return nb_count * (int)SZ;
}

static void t_cart(int count)
{
    int n = cx.n, dims[2] = { 0, 0 }, periods[2] = { 1, 1 };
    MPI_Dims_create(n, 2, dims);
    MPI_Comm cart;
    CHECK_RC(MPI_Cart_create(cx.comm, 2, dims, periods, 0, &cart), MPI_SUCCESS);
    int src[4]; /* per dimension: the negative neighbour, then the positive one */
    for (int d = 0; d < 2; d++)
        MPI_Cart_shift(cart, d, 1, &src[2 * d], &src[2 * d + 1]);
    int *sb = ints((size_t)4 * count), *rb = ints((size_t)4 * count);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < count; i++)
            sb[k * count + i] = val(16, cx.me, k, i), rb[k * count + i] = -1;
    static char name[64];
    snprintf(name, sizeof name, "neighbor_alltoall cart %dx%d count %d", dims[0], dims[1],
             count);
    what = name;
    /* the library's own traffic for the expectation first, then the call */
    nb_count = count;
    want_neighbor(cart, uniform_bytes);
    link_t *keep = malloc((size_t)ns * ns * sizeof *keep);
    CHECK(keep);
    memcpy(keep, want, (size_t)ns * ns * sizeof *keep);
    MEASURE(MPI_Neighbor_alltoall(sb, count, MPI_INT, rb, count, MPI_INT, cart));
    /* block l comes from src[l], which sent it as its block l ^ 1 */
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < count; i++)
            CHECK(rb[l * count + i] == val(16, src[l], l ^ 1, i));
    memcpy(want, keep, (size_t)ns * ns * sizeof *keep);
    expect();

    snprintf(name, sizeof name, "neighbor_allgather cart count %d", count);
    for (int l = 0; l < 4 * count; l++)
        rb[l] = -1;
    MEASURE(MPI_Neighbor_allgather(sb, count, MPI_INT, rb, count, MPI_INT, cart));
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < count; i++)
            CHECK(rb[l * count + i] == val(16, src[l], 0, i));
    memcpy(want, keep, (size_t)ns * ns * sizeof *keep);
    expect();
    free(keep), free(sb), free(rb);
    MPI_Comm_free(&cart);
}

/* A distributed graph every rank derives from one seed: rank i's out-edges (repeated edges
 * and self-loops included); sources in rank order, repeated ones in edge order. */
static int g_out(int i, int k)
{
    return val(17, i, k, 0) % cx.n;
}
static int g_deg(int i)
{
    return 1 + val(18, i, 0, 0) % 4;
}
/* ints on the k-th edge from i to d (its occurrence e among i's edges to d) */
static int g_cnt(int i, int d, int e)
{
    return (i * 3 + d * 5 + e) % 4;
}
static int g_occ(int i, int k)
{
    int e = 0;
    for (int j = 0; j < k; j++)
        e += g_out(i, j) == g_out(i, k);
    return e;
}
static int graph_bytes(int i, int k, int d)
{
    return g_cnt(i, d, g_occ(i, k)) * (int)SZ;
}

static void t_dist_graph(int w)
{
    int n = cx.n, me = cx.me, outdeg = g_deg(me), indeg = 0;
    int *dst = ints((size_t)outdeg);
    for (int k = 0; k < outdeg; k++)
        dst[k] = g_out(me, k);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < g_deg(i); k++)
            indeg += g_out(i, k) == me;
    int *src = ints((size_t)indeg), *socc = ints((size_t)indeg), l = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0, e = 0; k < g_deg(i); k++)
            if (g_out(i, k) == me) {
                src[l] = i;
                socc[l++] = e++;
            }
    MPI_Comm g;
    CHECK_RC(MPI_Dist_graph_create_adjacent(cx.comm, indeg, src, MPI_UNWEIGHTED, outdeg, dst,
                                            MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g),
             MPI_SUCCESS);
    int *sc = ints((size_t)outdeg), *sd = ints((size_t)outdeg), *rc = ints((size_t)indeg),
        *rd = ints((size_t)indeg), st = 0, rt = 0;
    for (int k = 0; k < outdeg; k++)
        sc[k] = g_cnt(me, dst[k], g_occ(me, k)), sd[k] = st, st += sc[k];
    for (int j = 0; j < indeg; j++)
        rc[j] = g_cnt(src[j], me, socc[j]), rd[j] = rt + 1, rt += rc[j] + 1;
    int *sb = ints((size_t)st), *rb = ints((size_t)rt + 1);
    for (int k = 0; k < outdeg; k++)
        for (int i = 0; i < sc[k]; i++)
            sb[sd[k] + i] = val(19, me, dst[k] * 64 + g_occ(me, k), i);
    for (int i = 0; i < rt + 1; i++)
        rb[i] = -1;
    want_neighbor(g, graph_bytes);
    link_t *keep = malloc((size_t)ns * ns * sizeof *keep);
    CHECK(keep);
    memcpy(keep, want, (size_t)ns * ns * sizeof *keep);
    what = w ? "neighbor_alltoallw dist graph" : "neighbor_alltoallv dist graph";
    if (!w) {
        MEASURE(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, g));
    } else {
        MPI_Aint *sdb = malloc((size_t)(outdeg + indeg) * sizeof *sdb), *rdb = sdb + outdeg;
        MPI_Datatype *ty = malloc((size_t)(outdeg + indeg + 1) * sizeof *ty);
        CHECK(sdb && ty);
        for (int k = 0; k < outdeg; k++)
            sdb[k] = (MPI_Aint)sd[k] * (MPI_Aint)SZ;
        for (int j = 0; j < indeg; j++)
            rdb[j] = (MPI_Aint)rd[j] * (MPI_Aint)SZ;
        for (int k = 0; k < outdeg + indeg + 1; k++)
            ty[k] = MPI_INT;
        MEASURE(MPI_Neighbor_alltoallw(sb, sc, sdb, ty, rb, rc, rdb, ty, g));
        free(sdb), free(ty);
    }
    for (int j = 0; j < indeg; j++) {
        CHECK(rb[rd[j] - 1] == -1);
        for (int i = 0; i < rc[j]; i++)
            CHECK(rb[rd[j] + i] == val(19, src[j], me * 64 + socc[j], i));
    }
    memcpy(want, keep, (size_t)ns * ns * sizeof *keep);
    expect();
    free(keep), free(dst), free(src), free(socc), free(sc), free(sd), free(rc), free(rd);
    free(sb), free(rb);
    MPI_Comm_free(&g);
}

/* ---- the runs ------------------------------------------------------------------------------- */

static void run_all(MPI_Comm comm, const char *name)
{
    if (comm == MPI_COMM_NULL)
        return;
    cx_open(comm, name);
    int aware = site_aware();
    /* only where the site level runs are the counts promised (two members: at most one
     * message each way anyway, checked too) */
    t_barrier();
    int roots[64], nroots = 0;
    for (int a = 0; a < cx.np && nroots < 63; a++)
        roots[nroots++] = cx.first[cx.order[a]];
    roots[nroots++] = cx.n - 1;
    for (int k = 0; k < nroots; k++) {
        int root = roots[k];
        t_bcast(root, 1);
        t_bcast(root, 3000);
        t_reduce(root, 1, 0);
        t_reduce(root, 700, 1);
        t_gather(root, 1, 0);
        t_gather(root, 2000, 1);
        t_gatherv(root, 1);
        t_gatherv(root, 1000);
    }
    t_bcast(roots[0], 300000);
    t_allreduce(1, 0);
    t_allreduce(3000, 1);
    t_allreduce(600000, 0); /* 2.4 MB: split among more than two sites */
    if (aware) /* two members: recursive halving sends each only the other's half */
        t_reduce_scatter(5);
    t_allgather(1, 0);
    t_allgather(1500, 1);
    t_allgatherv(1);
    t_allgatherv(700);
    t_alltoall(1, 0);
    t_alltoall(600, 1);
    t_alltoall(70000, 0); /* 280 KB blocks: past 1 MiB per site pair from 2 x 2 ranks on */
    t_alltoallv(0, 0);
    t_alltoallv(0, 1);
    t_alltoallv(1, 0);
    if (aware) { /* two members: the flat exchange sends one message per edge */
        t_cart(1);
        t_cart(500);
        t_dist_graph(0);
        t_dist_graph(1);
    }
    if (wrank == 0)
        printf("%s: %d ranks at %d sites: ok\n", name, cx.n, cx.np);
    cx_close();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    flat = argc > 1 && strcmp(argv[1], "flat") == 0;
    ns = p2p_num_sites();
    wsite = ints((size_t)wsize);
    for (int r = 0; r < wsize; r++)
        wsite[r] = p2p_site_of(r);
    got = malloc((size_t)ns * ns * sizeof *got);
    want = malloc((size_t)ns * ns * sizeof *want);
    before = malloc(2 * (size_t)ns * sizeof *before);
    after = malloc(2 * (size_t)ns * sizeof *after);
    all = malloc(2 * (size_t)ns * (size_t)wsize * sizeof *all);
    CHECK(got && want && before && after && all);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &t_mat);
    MPI_Type_commit(&t_mat);
    MPI_Op_create(matmul, 0, &op_mat);

    /* this rank's index at its site, for the layouts below */
    int idx = 0, ssize = 0;
    for (int r = 0; r < wsize; r++)
        if (wsite[r] == wsite[wrank]) {
            idx += r < wrank;
            ssize++;
        }
    (void)ssize;
    run_all(MPI_COMM_WORLD, "world");
    MPI_Comm c;
    /* uneven: site k keeps its first k + 1 members */
    MPI_Comm_split(MPI_COMM_WORLD, idx <= wsite[wrank] ? 0 : MPI_UNDEFINED, wrank, &c);
    run_all(c, "uneven");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    /* interleaved: the sites' members alternate */
    MPI_Comm_split(MPI_COMM_WORLD, 0, idx * ns + wsite[wrank], &c);
    run_all(c, "interleaved");
    MPI_Comm_free(&c);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &c);
    run_all(c, "reversed");
    MPI_Comm_free(&c);
    /* two members at two sites: rank 0 and the last rank */
    int two = ns > 1 && (wrank == 0 || wrank == wsize - 1);
    MPI_Comm_split(MPI_COMM_WORLD, two ? 0 : MPI_UNDEFINED, wrank, &c);
    run_all(c, "two");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);

    MPI_Op_free(&op_mat);
    MPI_Type_free(&t_mat);
    free(got), free(want), free(before), free(after), free(all), free(wsite);
    MPI_Finalize();
    if (flat) { /* every call kept the promise: the checks did not notice the flat algorithms */
        if (wrank == 0)
            printf("FAIL flat: no collective crossed the WAN more than promised\n");
        return 1;
    }
    return 0;
}
