/* Communicator construction from a parent (MPI-3.1 §6.4.2): MPI_Comm_split with random
 * colors and keys against a reference, MPI_UNDEFINED, nested splits, MPI_Comm_split_type
 * (MPI_COMM_TYPE_SHARED against processor names), MPI_Comm_create (one group, and disjoint
 * groups per process), MPI_Comm_create_group by disjoint subsets at the same time. Every new
 * communicator is checked for size, rank, group and working point-to-point. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* c must hold exactly the world ranks members[0..n) in that order, and messages must flow
 * around it (a ring in c, while the same tag travels on MPI_COMM_WORLD). */
static void check_comm(MPI_Comm c, const int *members, int n)
{
    int csize, crank, me = -1;
    CHECK_RC(MPI_Comm_size(c, &csize), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(c, &crank), MPI_SUCCESS);
    CHECK(csize == n);
    for (int i = 0; i < n; i++)
        if (members[i] == rank)
            me = i;
    CHECK(crank == me);
    MPI_Group g, w;
    CHECK_RC(MPI_Comm_group(c, &g), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &w), MPI_SUCCESS);
    int *idx = malloc((size_t)n * sizeof *idx), *wr = malloc((size_t)n * sizeof *wr);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_RC(MPI_Group_translate_ranks(g, n, idx, w, wr), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(wr[i] == members[i]);
    free(idx);
    free(wr);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    int to = (crank + 1) % n, from = (crank - 1 + n) % n, got = -1;
    CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, to, 3, &got, 1, MPI_INT, from, 3, c,
                          MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(got == members[from]);
}

typedef struct {
    int color, key, rank;
} entry_t;

static int by_key(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* The members of my color, ordered by key then rank (the reference of MPI_Comm_split). */
static int reference(const int *color, const int *key, const int *world, int n, int me,
                     int *out)
{
    entry_t *e = malloc((size_t)n * sizeof *e);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (color[i] == color[me])
            e[k++] = (entry_t){ color[i], key[i], i };
    qsort(e, (size_t)k, sizeof *e, by_key);
    for (int i = 0; i < k; i++)
        out[i] = world[e[i].rank];
    free(e);
    return k;
}

static void random_splits(void)
{
    srand(4242); /* the same table on every rank */
    int *color = malloc((size_t)size * sizeof *color), *key = malloc((size_t)size * sizeof *key);
    int *world = malloc((size_t)size * sizeof *world), *ref = malloc((size_t)size * sizeof *ref);
    for (int i = 0; i < size; i++)
        world[i] = i;
    for (int iter = 0; iter < 60; iter++) {
        int ncolors = 1 + rand() % (size + 1);
        for (int i = 0; i < size; i++) {
            color[i] = rand() % (ncolors + 1);
            if (color[i] == ncolors)
                color[i] = MPI_UNDEFINED;
            key[i] = rand() % 4 - 2; /* many equal keys: ties go by rank */
        }
        MPI_Comm c;
        CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color[rank], key[rank], &c), MPI_SUCCESS);
        if (color[rank] == MPI_UNDEFINED) {
            CHECK(c == MPI_COMM_NULL);
            continue;
        }
        int n = reference(color, key, world, size, rank, ref);
        check_comm(c, ref, n);
        /* split again inside: halves by the new rank, reversed */
        int crank;
        MPI_Comm_rank(c, &crank);
        MPI_Comm h;
        CHECK_RC(MPI_Comm_split(c, crank % 2, n - crank, &h), MPI_SUCCESS);
        int *sub = malloc((size_t)n * sizeof *sub), m = 0;
        for (int i = n - 1; i >= 0; i--)
            if (i % 2 == crank % 2)
                sub[m++] = ref[i];
        check_comm(h, sub, m);
        free(sub);
        CHECK_RC(MPI_Comm_free(&h), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    }
    free(color);
    free(key);
    free(world);
    free(ref);
}

static void split_type(void)
{
    /* reference: the ranks with my processor name, in rank order */
    char (*names)[MPI_MAX_PROCESSOR_NAME] = calloc((size_t)size, sizeof *names);
    int len;
    MPI_Get_processor_name(names[rank], &len);
    for (int k = 1; k < size; k++) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        CHECK_RC(MPI_Sendrecv(names[rank], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, to, 1, names[from],
                              MPI_MAX_PROCESSOR_NAME, MPI_CHAR, from, 1, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    int *ref = malloc((size_t)size * sizeof *ref), n = 0;
    for (int i = size - 1; i >= 0; i--) /* key = -rank: reversed */
        if (strcmp(names[i], names[rank]) == 0)
            ref[n++] = i;
    MPI_Comm c;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -rank, MPI_INFO_NULL, &c),
             MPI_SUCCESS);
    check_comm(c, ref, n);
    CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    /* MPI_UNDEFINED on some ranks */
    int undef = rank % 3 == 1;
    CHECK_RC(MPI_Comm_split_type(MPI_COMM_WORLD, undef ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                                 MPI_INFO_NULL, &c), MPI_SUCCESS);
    if (undef) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        n = 0;
        for (int i = 0; i < size; i++)
            if (i % 3 != 1 && strcmp(names[i], names[rank]) == 0)
                ref[n++] = i;
        check_comm(c, ref, n);
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    }
    free(names);
    free(ref);
}

static void create(void)
{
    MPI_Group w, first, mine;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    /* one group for all: the first half (at least one rank) */
    int half = (size + 1) / 2;
    int range[1][3] = { { 0, half - 1, 1 } };
    CHECK_RC(MPI_Group_range_incl(w, 1, range, &first), MPI_SUCCESS);
    MPI_Comm c;
    CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, first, &c), MPI_SUCCESS);
    int *ref = malloc((size_t)size * sizeof *ref);
    if (rank < half) {
        for (int i = 0; i < half; i++)
            ref[i] = i;
        check_comm(c, ref, half);
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    } else {
        CHECK(c == MPI_COMM_NULL);
    }
    /* disjoint groups, each process giving its own (MPI-2.2): residues mod 3, reversed */
    int n = 0;
    for (int i = size - 1; i >= 0; i--)
        if (i % 3 == rank % 3)
            ref[n++] = i;
    CHECK_RC(MPI_Group_incl(w, n, ref, &mine), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create(MPI_COMM_WORLD, mine, &c), MPI_SUCCESS);
    check_comm(c, ref, n);
    /* create on the new communicator with the empty group */
    MPI_Comm e;
    CHECK_RC(MPI_Comm_create(c, MPI_GROUP_EMPTY, &e), MPI_SUCCESS);
    CHECK(e == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    /* errors: a group that is not a subgroup */
    if (size > 1) {
        MPI_Comm s;
        int r;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &s);
        MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
        r = rank % 2 == 0 ? 1 : 0; /* a rank of the other half */
        MPI_Group other;
        MPI_Group_incl(w, 1, &r, &other);
#ifdef METAMPI
        CHECK(err_class(MPI_Comm_create(s, other, &e)) == MPI_ERR_GROUP);
        CHECK(err_class(MPI_Comm_create_group(s, other, 0, &e)) == MPI_ERR_GROUP);
#endif
        CHECK(err_class(MPI_Comm_create(s, MPI_GROUP_NULL, &e)) == MPI_ERR_GROUP);
        MPI_Group_free(&other);
        MPI_Comm_free(&s);
    }
    MPI_Group_free(&mine);
    MPI_Group_free(&first);
    MPI_Group_free(&w);
    free(ref);
}

/* MPICH 4.0.2 (ucx) crashes in MPI_Comm_create_group on any communicator but
 * MPI_COMM_WORLD: when validating with it, every call uses MPI_COMM_WORLD. */
#ifdef METAMPI
#define CG_PARENT(c) (c)
#define CG_NESTED 1
#else
#define CG_PARENT(c) MPI_COMM_WORLD
#define CG_NESTED 0
#endif

/* Disjoint subsets create their communicators at the same time, then overlapping subsets one
 * after another with different tags, on MPI_COMM_WORLD and on a duplicate. */
static void create_group(void)
{
    MPI_Group w;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    int *ref = malloc((size_t)size * sizeof *ref);
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    for (int round = 0; round < 20; round++) {
        int parts = 1 + round % 4, n = 0;
        for (int i = 0; i < size; i++)
            if ((i + round) % parts == (rank + round) % parts)
                ref[n++] = i;
        if (round % 2) /* reversed order in odd rounds */
            for (int i = 0; i < n / 2; i++) {
                int t = ref[i];
                ref[i] = ref[n - 1 - i];
                ref[n - 1 - i] = t;
            }
        MPI_Group g;
        CHECK_RC(MPI_Group_incl(w, n, ref, &g), MPI_SUCCESS);
        MPI_Comm c;
        CHECK_RC(MPI_Comm_create_group(CG_PARENT(round % 3 ? d : MPI_COMM_WORLD), g, round, &c),
                 MPI_SUCCESS);
        check_comm(c, ref, n);
        /* a sub-subgroup of the new communicator, created over it */
        if (n > 1 && CG_NESTED) {
            MPI_Group cg, half;
            MPI_Comm_group(c, &cg);
            int r[1][3] = { { 0, n - 1, 2 } }, crank;
            MPI_Comm_rank(c, &crank);
            MPI_Group_range_incl(cg, 1, r, &half);
            if (crank % 2 == 0) {
                MPI_Comm h;
                CHECK_RC(MPI_Comm_create_group(c, half, 1000 + round, &h), MPI_SUCCESS);
                int *sub = malloc((size_t)n * sizeof *sub), m = 0;
                for (int i = 0; i < n; i += 2)
                    sub[m++] = ref[i];
                check_comm(h, sub, m);
                free(sub);
                CHECK_RC(MPI_Comm_free(&h), MPI_SUCCESS);
            }
            MPI_Group_free(&half);
            MPI_Group_free(&cg);
        }
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
        MPI_Group_free(&g);
    }
    /* overlapping groups one after another: {0..k} for k = 0..size-1, each with its tag */
    for (int k = rank; k < size; k++) {
        int range[1][3] = { { 0, k, 1 } };
        MPI_Group g;
        MPI_Group_range_incl(w, 1, range, &g);
        MPI_Comm c;
        CHECK_RC(MPI_Comm_create_group(CG_PARENT(d), g, 77 + k, &c), MPI_SUCCESS);
        for (int i = 0; i <= k; i++)
            ref[i] = i;
        check_comm(c, ref, k + 1);
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
        MPI_Group_free(&g);
    }
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    MPI_Group_free(&w);
    free(ref);
}

static void errors(void)
{
    MPI_Comm c;
    CHECK(err_class(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &c)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_split_type(MPI_COMM_NULL, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                        &c)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_create(MPI_COMM_NULL, MPI_GROUP_EMPTY, &c)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_create_group(MPI_COMM_NULL, MPI_GROUP_EMPTY, 0, &c)) ==
          MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c)) ==
          MPI_ERR_ARG);
#ifdef METAMPI
    CHECK(err_class(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &c)) == MPI_ERR_ARG);
    MPI_Group w;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    CHECK(err_class(MPI_Comm_create_group(MPI_COMM_WORLD, w, -1, &c)) == MPI_ERR_TAG);
    MPI_Group_free(&w);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    random_splits();
    split_type();
    create();
    create_group();
    errors();
    MPI_Finalize();
    return 0;
}
