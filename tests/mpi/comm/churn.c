/* Communicator churn: every constructor in many create/free cycles, with the memory of each
 * rank bounded (issue 15, item 3: 4 ranks calling MPI_Comm_create_group over a different
 * random subgroup each time grew one rank to 13.7 GB by the 15th cycle).
 *
 *   churn [cycles]          default 1000 (CHURN_CYCLES overrides both)
 *
 * Cycle j draws, identically on every rank, a constructor (the same for runs of 6 cycles)
 * and its arguments: MPI_Comm_dup,
 * MPI_Comm_idup (one, or two outstanding at once), MPI_Comm_create, MPI_Comm_create_group
 * (a random subgroup, as in the program, or two disjoint halves calling it at the
 * same time with the same tag), MPI_Comm_split (random colors, MPI_UNDEFINED included),
 * MPI_Comm_split_type, MPI_Intercomm_create between two random halves and MPI_Intercomm_merge,
 * MPI_Cart_create, MPI_Graph_create, MPI_Dist_graph_create(_adjacent); from MPI_COMM_WORLD
 * or from a long-lived duplicate or half of it. Consecutive cycles thus use overlapping and
 * disjoint groups, with members that skip cycles they are not part of. Each new communicator
 * must have the expected size and carry an allreduce and a barrier; then it is freed.
 *
 * Memory: the heap in use (glibc's mallinfo2, when it reports one: not under ASan) may grow
 * by at most CHURN_MAX_GROWTH_KB (256) between the end of the first tenth of the cycles and
 * the end, and the peak resident size (VmHWM) must stay below CHURN_MAX_HWM_MB (512). The
 * address space is limited to CHURN_MAX_VM_MB (2048; not under ASan, whose shadow needs far
 * more), so that runaway growth fails the test with MPI_ERR_NO_MEM in seconds instead of
 * taking the machine's memory.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mallinfo2 */
#endif
#include "../check.h"

#include <malloc.h>
#include <sys/resource.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrank, wsize;

static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct {
    uint64_t s;
} rng_t;

static int draw(rng_t *g, int n)
{
    g->s += 0x9e3779b97f4a7c15ull;
    return (int)(mix(g->s) % (uint64_t)n);
}

/* A new communicator of expected size n (MPI_COMM_NULL: must be null) works. */
static void use(MPI_Comm c, int n)
{
    if (n == 0) {
        CHECK(c == MPI_COMM_NULL);
        return;
    }
    CHECK(c != MPI_COMM_NULL);
    int inter = 0, size, one = 1, sum = 0;
    CHECK_RC(MPI_Comm_test_inter(c, &inter), MPI_SUCCESS);
    CHECK_RC(inter ? MPI_Comm_remote_size(c, &size) : MPI_Comm_size(c, &size), MPI_SUCCESS);
    if (!inter)
        CHECK(size == n);
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    CHECK(sum == (inter ? size : n));
    CHECK_RC(MPI_Barrier(c), MPI_SUCCESS);
}

static void use_free(MPI_Comm *c, int n)
{
    use(*c, n);
    if (*c != MPI_COMM_NULL)
        CHECK_RC(MPI_Comm_free(c), MPI_SUCCESS);
}

/* Members of a random subset of parent (size n), in[i] = whether rank i is in it; at least
 * one member. Returns how many. */
static int subset(rng_t *g, int n, int *in)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += in[i] = draw(g, 2);
    if (k == 0)
        k = in[draw(g, n)] = 1;
    return k;
}

enum {
    K_DUP, K_IDUP, K_IDUP2, K_CREATE, K_CREATE_GROUP, K_CREATE_GROUP_HALVES, K_SPLIT,
    K_SPLIT_TYPE, K_INTERCOMM, K_CART, K_GRAPH, K_DIST_GRAPH, K_DIST_GRAPH_ADJ, NKIND
};

static MPI_Comm parents[3];
static int nparents;

static void cycle(int j)
{
    /* runs of RUN cycles share constructor and parent (runs of create_group over different
     * groups are the program), each cycle draws its own arguments */
    enum { RUN = 6 };
    rng_t run = {(uint64_t)(j / RUN) * 104729 + 3}, g = {(uint64_t)j * 7919 + 1};
    MPI_Comm p = parents[draw(&run, nparents)];
    int n, me;
    MPI_Comm_size(p, &n);
    MPI_Comm_rank(p, &me);
    MPI_Group pg;
    CHECK_RC(MPI_Comm_group(p, &pg), MPI_SUCCESS);
    int *in = malloc((size_t)n * sizeof *in), *ranks = malloc((size_t)n * sizeof *ranks);
    CHECK(in && ranks);
    MPI_Comm c = MPI_COMM_NULL, c2 = MPI_COMM_NULL;
    MPI_Request rq[2];
    int kind = draw(&run, NKIND);
    switch (kind) {
    case K_DUP:
        CHECK_RC(MPI_Comm_dup(p, &c), MPI_SUCCESS);
        use_free(&c, n);
        break;
    case K_IDUP:
        CHECK_RC(MPI_Comm_idup(p, &c, &rq[0]), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
        use_free(&c, n);
        break;
    case K_IDUP2:
        CHECK_RC(MPI_Comm_idup(p, &c, &rq[0]), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_idup(p, &c2, &rq[1]), MPI_SUCCESS);
        CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        use_free(&c2, n);
        use_free(&c, n);
        break;
    case K_CREATE:
    case K_CREATE_GROUP: {
        int k = subset(&g, n, in), m = 0;
        for (int i = 0; i < n; i++)
            if (in[i])
                ranks[m++] = i;
        MPI_Group sg;
        CHECK_RC(MPI_Group_incl(pg, k, ranks, &sg), MPI_SUCCESS);
        if (kind == K_CREATE)
            CHECK_RC(MPI_Comm_create(p, sg, &c), MPI_SUCCESS);
        else if (in[me])
            CHECK_RC(MPI_Comm_create_group(p, sg, j % 3, &c), MPI_SUCCESS);
        use_free(&c, in[me] ? k : 0);
        CHECK_RC(MPI_Group_free(&sg), MPI_SUCCESS);
        break;
    }
    case K_CREATE_GROUP_HALVES: {
        /* two disjoint groups (a random partition) create theirs at once, one tag */
        subset(&g, n, in);
        int m = 0;
        for (int i = 0; i < n; i++)
            if (in[i] == in[me])
                ranks[m++] = i;
        MPI_Group sg;
        CHECK_RC(MPI_Group_incl(pg, m, ranks, &sg), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_create_group(p, sg, 5, &c), MPI_SUCCESS);
        use_free(&c, m);
        CHECK_RC(MPI_Group_free(&sg), MPI_SUCCESS);
        break;
    }
    case K_SPLIT: {
        int colors = 1 + draw(&g, 3), mine = -1, k = 0;
        for (int i = 0; i < n; i++) {
            int col = draw(&g, colors + 1); /* == colors: MPI_UNDEFINED */
            if (i == me)
                mine = col;
            ranks[i] = col;
        }
        for (int i = 0; i < n; i++)
            k += ranks[i] == mine;
        CHECK_RC(MPI_Comm_split(p, mine == colors ? MPI_UNDEFINED : mine, n - me, &c),
                 MPI_SUCCESS);
        use_free(&c, mine == colors ? 0 : k);
        break;
    }
    case K_SPLIT_TYPE: {
        CHECK_RC(MPI_Comm_split_type(p, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c),
                 MPI_SUCCESS);
        int k;
        CHECK_RC(MPI_Comm_size(c, &k), MPI_SUCCESS);
        CHECK(k >= 1 && k <= n);
        use_free(&c, k);
        break;
    }
    case K_INTERCOMM: {
        if (n < 2)
            break;
        /* two random non-empty halves; leaders: each half's lowest rank in p */
        subset(&g, n, in);
        int k = 0;
        for (int i = 0; i < n; i++)
            k += in[i];
        if (k == n)
            in[draw(&g, n)] = 0;
        MPI_Comm half;
        CHECK_RC(MPI_Comm_split(p, in[me], me, &half), MPI_SUCCESS);
        int other = -1;
        for (int i = 0; i < n && other < 0; i++)
            if (in[i] != in[me])
                other = i;
        CHECK_RC(MPI_Intercomm_create(half, 0, p, other, 9, &c), MPI_SUCCESS);
        int rsize;
        CHECK_RC(MPI_Comm_remote_size(c, &rsize), MPI_SUCCESS);
        use(c, rsize);
        CHECK_RC(MPI_Intercomm_merge(c, in[me], &c2), MPI_SUCCESS);
        use_free(&c2, n);
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_free(&half), MPI_SUCCESS);
        break;
    }
    case K_CART: {
        int dims[2] = {0, 0}, periods[2] = {1, draw(&g, 2)};
        int nd = 1 + draw(&g, 2), nodes = 1 + draw(&g, n);
        CHECK_RC(MPI_Dims_create(nodes, nd, dims), MPI_SUCCESS);
        CHECK_RC(MPI_Cart_create(p, nd, dims, periods, 0, &c), MPI_SUCCESS);
        use_free(&c, me < nodes ? nodes : 0);
        break;
    }
    case K_GRAPH: {
        /* a ring over the first `nodes` ranks (a self-loop for one) */
        int nodes = 1 + draw(&g, n), *index = malloc((size_t)nodes * sizeof *index),
            *edges = malloc(2 * (size_t)nodes * sizeof *edges), e = 0;
        CHECK(index && edges);
        for (int i = 0; i < nodes; i++) {
            edges[e++] = (i + 1) % nodes;
            edges[e++] = (i + nodes - 1) % nodes;
            index[i] = e;
        }
        CHECK_RC(MPI_Graph_create(p, nodes, index, edges, 0, &c), MPI_SUCCESS);
        use_free(&c, me < nodes ? nodes : 0);
        free(index);
        free(edges);
        break;
    }
    case K_DIST_GRAPH:
    case K_DIST_GRAPH_ADJ: {
        int to = (me + 1) % n, from = (me + n - 1) % n;
        if (kind == K_DIST_GRAPH) {
            int deg = 1;
            CHECK_RC(MPI_Dist_graph_create(p, 1, &me, &deg, &to, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                           0, &c),
                     MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Dist_graph_create_adjacent(p, 1, &from, MPI_UNWEIGHTED, 1, &to,
                                                    MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
                     MPI_SUCCESS);
        }
        use_free(&c, n);
        break;
    }
    }
    free(in);
    free(ranks);
    CHECK_RC(MPI_Group_free(&pg), MPI_SUCCESS);
}

/* Bytes of heap in use (0: unknown, e.g. under ASan's allocator). */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static long status_kb(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    size_t len = strlen(field);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, field, len) && line[len] == ':')
            kb = atol(line + len + 1);
    if (f)
        fclose(f);
    return kb;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? atol(v) : dflt;
}

int main(int argc, char **argv)
{
#ifndef __SANITIZE_ADDRESS__
    struct rlimit as = {(rlim_t)env_long("CHURN_MAX_VM_MB", 2048) << 20,
                        (rlim_t)env_long("CHURN_MAX_VM_MB", 2048) << 20};
    setrlimit(RLIMIT_AS, &as);
#endif
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int cycles = (int)env_long("CHURN_CYCLES", argc > 1 ? atol(argv[1]) : 1000);
    long max_growth_kb = env_long("CHURN_MAX_GROWTH_KB", 256);
    long max_hwm_mb = env_long("CHURN_MAX_HWM_MB", 512);

    parents[0] = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &parents[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &parents[2]), MPI_SUCCESS);
    nparents = 3;

    size_t heap0 = 0;
    for (int j = 0; j < cycles; j++) {
        cycle(j);
        if (j + 1 == cycles / 10 + 1)
            heap0 = heap_in_use();
    }
    size_t heap1 = heap_in_use();
    long hwm = status_kb("VmHWM");
    if (heap0 && heap1 > heap0 + (size_t)max_growth_kb * 1024) {
        fprintf(stderr, "FAIL rank %d: heap in use grew from %zu to %zu bytes over %d cycles\n",
                wrank, heap0, heap1, cycles - cycles / 10 - 1);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (hwm > max_hwm_mb * 1024) {
        fprintf(stderr, "FAIL rank %d: peak resident size %ld kB (limit %ld MB)\n", wrank, hwm,
                max_hwm_mb);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 1; i < nparents; i++)
        CHECK_RC(MPI_Comm_free(&parents[i]), MPI_SUCCESS);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    if (getenv("CHURN_VERBOSE") || wrank == 0)
        printf("churn: rank %d, %d cycles, heap %zu -> %zu bytes, VmHWM %ld kB\n", wrank,
               cycles, heap0, heap1, hwm);
    MPI_Finalize();
    return 0;
}
