/* Groups (MPI-3.1 §6.3): every call on the world group and on random subsets against a
 * reference computed here, MPI_GROUP_EMPTY, MPI_PROC_NULL in translate_ranks, and the error
 * classes of invalid, freed and null handles and bad rank lists. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

static int gsize(MPI_Group g)
{
    int n;
    CHECK_RC(MPI_Group_size(g, &n), MPI_SUCCESS);
    return n;
}

static int grank(MPI_Group g)
{
    int r;
    CHECK_RC(MPI_Group_rank(g, &r), MPI_SUCCESS);
    return r;
}

static int gcompare(MPI_Group a, MPI_Group b)
{
    int r;
    CHECK_RC(MPI_Group_compare(a, b, &r), MPI_SUCCESS);
    return r;
}

/* The world ranks of g's members, through translate_ranks to the world group. */
static void members(MPI_Group g, MPI_Group world, int *out)
{
    int n = gsize(g);
    int *idx = malloc((size_t)(n + 1) * sizeof *idx);
    for (int i = 0; i < n; i++)
        idx[i] = i;
    CHECK_RC(MPI_Group_translate_ranks(g, n, idx, world, out), MPI_SUCCESS);
    free(idx);
}

static void expect_members(MPI_Group g, MPI_Group world, const int *ref, int n)
{
    CHECK(gsize(g) == n);
    int *m = malloc((size_t)(n + 1) * sizeof *m);
    members(g, world, m);
    int me = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        CHECK(m[i] == ref[i]);
        if (ref[i] == rank)
            me = i;
    }
    CHECK(grank(g) == me);
    free(m);
}

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void basics(MPI_Group w)
{
    CHECK(gsize(w) == size);
    CHECK(grank(w) == rank);
    CHECK(gsize(MPI_GROUP_EMPTY) == 0);
    CHECK(grank(MPI_GROUP_EMPTY) == MPI_UNDEFINED);
    CHECK(gcompare(w, w) == MPI_IDENT);
    CHECK(gcompare(MPI_GROUP_EMPTY, MPI_GROUP_EMPTY) == MPI_IDENT);
    CHECK(gcompare(w, MPI_GROUP_EMPTY) == MPI_UNEQUAL);

    /* a second handle on the communicator's group: the same group */
    MPI_Group w2;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &w2), MPI_SUCCESS);
    CHECK(gcompare(w, w2) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&w2), MPI_SUCCESS);
    CHECK(w2 == MPI_GROUP_NULL);
    CHECK(gsize(w) == size); /* w is still valid */

    MPI_Group self;
    CHECK_RC(MPI_Comm_group(MPI_COMM_SELF, &self), MPI_SUCCESS);
    CHECK(gsize(self) == 1 && grank(self) == 0);
    int zero = 0, back;
    CHECK_RC(MPI_Group_translate_ranks(self, 1, &zero, w, &back), MPI_SUCCESS);
    CHECK(back == rank);
    CHECK(gcompare(self, w) == (size == 1 ? MPI_IDENT : MPI_UNEQUAL));
    CHECK_RC(MPI_Group_free(&self), MPI_SUCCESS);
}

static void selections(MPI_Group w)
{
    int *all = malloc((size_t)size * sizeof *all), *ref = malloc((size_t)size * sizeof *ref);
    for (int i = 0; i < size; i++)
        all[i] = size - 1 - i;
    MPI_Group rev;
    CHECK_RC(MPI_Group_incl(w, size, all, &rev), MPI_SUCCESS);
    expect_members(rev, w, all, size);
    CHECK(gcompare(w, rev) == (size > 1 ? MPI_SIMILAR : MPI_IDENT));

    /* translate_ranks with MPI_PROC_NULL and to a group that lacks the rank */
    int in[3] = { MPI_PROC_NULL, 0, size - 1 }, out[3];
    CHECK_RC(MPI_Group_translate_ranks(rev, 3, in, w, out), MPI_SUCCESS);
    CHECK(out[0] == MPI_PROC_NULL && out[1] == size - 1 && out[2] == 0);
    CHECK_RC(MPI_Group_translate_ranks(w, 0, NULL, rev, NULL), MPI_SUCCESS);

    /* evens and odds by excl, incl and ranges */
    int ne = 0, no = 0;
    int *evens = malloc((size_t)size * sizeof *evens), *odds = malloc((size_t)size * sizeof *odds);
    for (int i = 0; i < size; i++) {
        if (i % 2)
            odds[no++] = i;
        else
            evens[ne++] = i;
    }
    MPI_Group ge, go, gr, gx;
    CHECK_RC(MPI_Group_incl(w, ne, evens, &ge), MPI_SUCCESS);
    expect_members(ge, w, evens, ne);
    CHECK_RC(MPI_Group_excl(w, ne, evens, &go), MPI_SUCCESS);
    expect_members(go, w, odds, no);
    int r1[1][3] = { { 0, size - 1, 2 } };
    CHECK_RC(MPI_Group_range_incl(w, 1, r1, &gr), MPI_SUCCESS);
    CHECK(gcompare(gr, ge) == MPI_IDENT);
    CHECK_RC(MPI_Group_range_excl(w, 1, r1, &gx), MPI_SUCCESS);
    CHECK(gcompare(gx, go) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&gr), MPI_SUCCESS);
    CHECK_RC(MPI_Group_free(&gx), MPI_SUCCESS);
    /* negative stride, several triplets */
    int r2[1][3] = { { size - 1, 0, -1 } };
    CHECK_RC(MPI_Group_range_incl(w, 1, r2, &gr), MPI_SUCCESS);
    CHECK(gcompare(gr, rev) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&gr), MPI_SUCCESS);
    if (size >= 4) {
        int r3[2][3] = { { 3, 3, 1 }, { 0, 1, 1 } };
        int exp3[3] = { 3, 0, 1 };
        CHECK_RC(MPI_Group_range_incl(w, 2, r3, &gr), MPI_SUCCESS);
        expect_members(gr, w, exp3, 3);
        CHECK_RC(MPI_Group_free(&gr), MPI_SUCCESS);
        CHECK_RC(MPI_Group_range_excl(w, 2, r3, &gr), MPI_SUCCESS);
        int k = 0;
        for (int i = 2; i < size; i++)
            if (i != 3)
                ref[k++] = i;
        expect_members(gr, w, ref, k);
        CHECK_RC(MPI_Group_free(&gr), MPI_SUCCESS);
    }

    /* set operations */
    MPI_Group u, x, d;
    CHECK_RC(MPI_Group_union(ge, go, &u), MPI_SUCCESS);
    memcpy(ref, evens, (size_t)ne * sizeof *ref);
    memcpy(ref + ne, odds, (size_t)no * sizeof *ref);
    expect_members(u, w, ref, size);
    CHECK(gcompare(u, w) == (size > 2 ? MPI_SIMILAR : MPI_IDENT));
    CHECK_RC(MPI_Group_free(&u), MPI_SUCCESS);
    CHECK_RC(MPI_Group_union(rev, ge, &u), MPI_SUCCESS); /* rev already has everyone */
    CHECK(gcompare(u, rev) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&u), MPI_SUCCESS);
    CHECK_RC(MPI_Group_intersection(rev, ge, &x), MPI_SUCCESS); /* in rev's order */
    int k = 0;
    for (int i = 0; i < size; i++)
        if (all[i] % 2 == 0)
            ref[k++] = all[i];
    expect_members(x, w, ref, k);
    CHECK_RC(MPI_Group_free(&x), MPI_SUCCESS);
    CHECK_RC(MPI_Group_intersection(ge, go, &x), MPI_SUCCESS);
    CHECK(gsize(x) == 0 && grank(x) == MPI_UNDEFINED);
    CHECK(gcompare(x, MPI_GROUP_EMPTY) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&x), MPI_SUCCESS);
    CHECK_RC(MPI_Group_difference(w, ge, &d), MPI_SUCCESS);
    CHECK(gcompare(d, go) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&d), MPI_SUCCESS);
    CHECK_RC(MPI_Group_difference(ge, w, &d), MPI_SUCCESS);
    CHECK(gsize(d) == 0);
    CHECK_RC(MPI_Group_free(&d), MPI_SUCCESS);
    CHECK_RC(MPI_Group_difference(MPI_GROUP_EMPTY, w, &d), MPI_SUCCESS);
    CHECK(gsize(d) == 0);
    CHECK_RC(MPI_Group_free(&d), MPI_SUCCESS);
    CHECK_RC(MPI_Group_union(MPI_GROUP_EMPTY, go, &u), MPI_SUCCESS);
    CHECK(gcompare(u, go) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&u), MPI_SUCCESS);

    /* translate to a group that lacks some ranks */
    for (int i = 0; i < size; i++)
        all[i] = i;
    CHECK_RC(MPI_Group_translate_ranks(w, size, all, go, ref), MPI_SUCCESS);
    for (int i = 0; i < size; i++)
        CHECK(ref[i] == (i % 2 ? i / 2 : MPI_UNDEFINED));

    /* empty selections */
    CHECK_RC(MPI_Group_incl(w, 0, NULL, &x), MPI_SUCCESS);
    CHECK(gsize(x) == 0);
    CHECK_RC(MPI_Group_free(&x), MPI_SUCCESS);
    CHECK_RC(MPI_Group_excl(w, 0, NULL, &x), MPI_SUCCESS);
    CHECK(gcompare(x, w) == MPI_IDENT);
    CHECK_RC(MPI_Group_free(&x), MPI_SUCCESS);
    CHECK_RC(MPI_Group_excl(w, size, all, &x), MPI_SUCCESS);
    CHECK(gsize(x) == 0);
    CHECK_RC(MPI_Group_free(&x), MPI_SUCCESS);

    CHECK_RC(MPI_Group_free(&ge), MPI_SUCCESS);
    CHECK_RC(MPI_Group_free(&go), MPI_SUCCESS);
    CHECK_RC(MPI_Group_free(&rev), MPI_SUCCESS);
    free(all);
    free(ref);
    free(evens);
    free(odds);
}

/* Random permutations of random subsets, composed, against a reference. */
static void random_subsets(MPI_Group w)
{
    srand(12345); /* the same on every rank */
    int *perm = malloc((size_t)size * sizeof *perm), *ref = malloc((size_t)size * sizeof *ref);
    int *got = malloc((size_t)size * sizeof *got);
    for (int iter = 0; iter < 200; iter++) {
        for (int i = 0; i < size; i++)
            perm[i] = i;
        for (int i = size - 1; i > 0; i--) {
            int j = rand() % (i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        int n = rand() % (size + 1);
        MPI_Group a, b;
        CHECK_RC(MPI_Group_incl(w, n, perm, &a), MPI_SUCCESS);
        expect_members(a, w, perm, n);
        /* a subset of a, by its ranks in a */
        int m = n ? rand() % (n + 1) : 0;
        int *sel = malloc((size_t)(m + 1) * sizeof *sel);
        for (int i = 0; i < m; i++) {
            sel[i] = (i * 7 + iter) % n;
            for (int j = 0; j < i; j++)
                if (sel[j] == sel[i]) {
                    sel[i] = (sel[i] + 1) % n;
                    j = -1;
                }
            ref[i] = perm[sel[i]];
        }
        CHECK_RC(MPI_Group_incl(a, m, sel, &b), MPI_SUCCESS);
        expect_members(b, w, ref, m);
        /* translate b -> a gives sel back */
        for (int i = 0; i < m; i++)
            perm[i] = i;
        CHECK_RC(MPI_Group_translate_ranks(b, m, perm, a, got), MPI_SUCCESS);
        for (int i = 0; i < m; i++)
            CHECK(got[i] == sel[i]);
        MPI_Group d;
        CHECK_RC(MPI_Group_difference(a, b, &d), MPI_SUCCESS);
        CHECK(gsize(d) == n - m);
        CHECK_RC(MPI_Group_free(&d), MPI_SUCCESS);
        free(sel);
        CHECK_RC(MPI_Group_free(&a), MPI_SUCCESS);
        CHECK_RC(MPI_Group_free(&b), MPI_SUCCESS);
    }
    free(perm);
    free(ref);
    free(got);
}

static void errors(MPI_Group w)
{
    int n, r = size, two[2] = { 0, 0 }, out[2];
    MPI_Group g = MPI_GROUP_NULL;
    CHECK(err_class(MPI_Group_size(MPI_GROUP_NULL, &n)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_rank(MPI_GROUP_NULL, &n)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_free(&g)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_incl(w, 1, &r, &g)) == MPI_ERR_RANK);
    CHECK(err_class(MPI_Group_translate_ranks(w, 1, &r, w, out)) == MPI_ERR_RANK);
    CHECK(err_class(MPI_Group_translate_ranks(w, -1, two, w, out)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Group_incl(w, -1, two, &g)) == MPI_ERR_ARG);
    int z[1][3] = { { 0, 0, 0 } }, far[1][3] = { { 0, size, 1 } };
    int dup2[2][3] = { { 0, 0, 1 }, { 0, 0, 1 } };
    CHECK(err_class(MPI_Group_range_incl(w, 1, z, &g)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Group_range_incl(w, 1, far, &g)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Group_range_incl(w, 2, dup2, &g)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Group_range_excl(w, 1, z, &g)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Comm_group(MPI_COMM_NULL, &g)) == MPI_ERR_COMM);
#ifdef METAMPI
    /* checks MPICH leaves out */
    CHECK(err_class(MPI_Group_incl(w, 2, two, &g)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Group_excl(w, 2, two, &g)) == MPI_ERR_ARG);
    CHECK(err_class(MPI_Group_excl(w, 1, &r, &g)) == MPI_ERR_RANK);
    CHECK(err_class(MPI_Group_size((MPI_Group)0x12345, &n)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_size(MPI_COMM_WORLD, &n)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_union(w, MPI_GROUP_NULL, &g)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_compare(MPI_GROUP_NULL, w, &n)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_size(w, NULL)) == MPI_ERR_ARG);
    /* a stale copy of a freed handle */
    int one = 0;
    CHECK_RC(MPI_Group_incl(w, 1, &one, &g), MPI_SUCCESS);
    MPI_Group stale = g;
    CHECK_RC(MPI_Group_free(&g), MPI_SUCCESS);
    CHECK(err_class(MPI_Group_size(stale, &n)) == MPI_ERR_GROUP);
    CHECK(err_class(MPI_Group_free(&stale)) == MPI_ERR_GROUP);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group w;
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &w), MPI_SUCCESS);
    basics(w);
    selections(w);
    random_subsets(w);
    errors(w);
    /* freeing the predefined empty group is allowed, like any group a call returned */
    MPI_Group e = MPI_GROUP_EMPTY;
    CHECK_RC(MPI_Group_free(&e), MPI_SUCCESS);
    CHECK(e == MPI_GROUP_NULL);
    CHECK(gsize(MPI_GROUP_EMPTY) == 0);
    CHECK_RC(MPI_Group_free(&w), MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}
