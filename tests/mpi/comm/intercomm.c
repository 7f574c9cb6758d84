/* Inter-communicators (MPI-3.1 §6.6): MPI_Intercomm_create between halves of the world (and
 * between three groups pairwise), queries, point-to-point with ranks of the remote group
 * (MPI_ANY_SOURCE, MPI_ANY_TAG, rank checks), MPI_Intercomm_merge with every high/low
 * combination, dup/idup, split and create on inter-communicators, error classes. */
#include "../check.h"

#include <stdlib.h>

static int rank, size;

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* The world ranks of c's local (remote = 0) or remote group. */
static int *world_of(MPI_Comm c, int remote, int *n)
{
    MPI_Group g, w;
    if (remote) {
        CHECK_RC(MPI_Comm_remote_group(c, &g), MPI_SUCCESS);
    } else {
        CHECK_RC(MPI_Comm_group(c, &g), MPI_SUCCESS);
    }
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Group_size(g, n);
    int *idx = malloc((size_t)(*n + 1) * sizeof *idx), *out = malloc((size_t)(*n + 1) * sizeof *out);
    for (int i = 0; i < *n; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(g, *n, idx, w, out);
    free(idx);
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return out;
}

/* c is an inter-communicator whose local group is the world ranks lw[0..ln), remote group
 * rw[0..rn): check the queries, then point-to-point both ways with wildcards. */
static void check_inter(MPI_Comm c, const int *lw, int ln, const int *rw, int rn)
{
    int flag, n, r, me = -1;
    CHECK_RC(MPI_Comm_test_inter(c, &flag), MPI_SUCCESS);
    CHECK(flag);
    CHECK_RC(MPI_Comm_size(c, &n), MPI_SUCCESS);
    CHECK(n == ln);
    CHECK_RC(MPI_Comm_remote_size(c, &n), MPI_SUCCESS);
    CHECK(n == rn);
    for (int i = 0; i < ln; i++)
        if (lw[i] == rank)
            me = i;
    CHECK_RC(MPI_Comm_rank(c, &r), MPI_SUCCESS);
    CHECK(r == me);
    int *got = world_of(c, 0, &n);
    for (int i = 0; i < ln; i++)
        CHECK(got[i] == lw[i]);
    free(got);
    got = world_of(c, 1, &n);
    CHECK(n == rn);
    for (int i = 0; i < rn; i++)
        CHECK(got[i] == rw[i]);
    free(got);
    int result;
    CHECK_RC(MPI_Comm_compare(c, c, &result), MPI_SUCCESS);
    CHECK(result == MPI_IDENT);

    /* local rank i sends to remote ranks j with j % ln == i; so remote rank j receives from
     * local rank j % ln ... both sides do the same with their own sizes */
    int nsend = 0, nrecv = 0;
    for (int j = 0; j < rn; j++)
        nsend += j % ln == me;
    for (int i = 0; i < rn; i++)
        nrecv += me % rn == i;
    MPI_Request *rq = malloc((size_t)(nsend + 1) * sizeof *rq);
    int *vals = malloc((size_t)(nsend + 1) * sizeof *vals), k = 0;
    for (int j = 0; j < rn; j++)
        if (j % ln == me) {
            vals[k] = 1000 * rank + j;
            CHECK_RC(MPI_Isend(&vals[k], 1, MPI_INT, j, 7 + j, c, &rq[k]), MPI_SUCCESS);
            k++;
        }
    /* I receive from remote rank me % rn exactly once (it sends to me because me % rn's
     * residues... by construction: remote rank i sends to local j with j % rn == i) */
    for (int t = 0; t < nrecv; t++) {
        int v;
        MPI_Status st;
        CHECK_RC(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st), MPI_SUCCESS);
        CHECK(st.MPI_SOURCE == me % rn);
        CHECK(st.MPI_TAG == 7 + me);
        CHECK(v == 1000 * rw[st.MPI_SOURCE] + me);
    }
    CHECK_RC(MPI_Waitall(nsend, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    free(rq);
    free(vals);
    /* specific source, and MPI_PROC_NULL */
    int partner = me % rn, back = -1;
    if (me < rn && me < ln) { /* pairs (i, i) exist on both sides */
        CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, me, 1, &back, 1, MPI_INT, me, 1, c,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(back == rw[me]);
    }
    (void)partner;
    CHECK_RC(MPI_Send(&rank, 1, MPI_INT, MPI_PROC_NULL, 0, c), MPI_SUCCESS);
    /* ranks name the remote group: rn is out of range, whatever the local size */
    CHECK(err_class(MPI_Send(&rank, 1, MPI_INT, rn, 0, c)) == MPI_ERR_RANK);
    CHECK(err_class(MPI_Recv(&back, 1, MPI_INT, rn, 0, c, MPI_STATUS_IGNORE)) == MPI_ERR_RANK);
}

/* Two halves: A = even world ranks, B = odd ones (a half is its own local_comm). */
static void halves(void)
{
    int color = rank % 2, la = (size + 1) / 2, lb = size / 2;
    MPI_Comm local, inter;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local), MPI_SUCCESS);
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    int remote_leader = color ? 0 : 1; /* world rank of the other half's rank 0 */
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 42, &inter),
             MPI_SUCCESS);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int *a = malloc((size_t)la * sizeof *a), *b = malloc((size_t)(lb + 1) * sizeof *b);
    for (int i = 0; i < la; i++)
        a[i] = 2 * i;
    for (int i = 0; i < lb; i++)
        b[i] = 2 * i + 1;
    if (color)
        check_inter(inter, b, lb, a, la);
    else
        check_inter(inter, a, la, b, lb);

    /* dup and idup keep both groups */
    MPI_Comm d, e;
    MPI_Request rq;
    CHECK_RC(MPI_Comm_dup(inter, &d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_idup(inter, &e, &rq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    int result;
    CHECK_RC(MPI_Comm_compare(inter, d, &result), MPI_SUCCESS);
    CHECK(result == MPI_CONGRUENT);
    CHECK_RC(MPI_Comm_compare(inter, MPI_COMM_WORLD, &result), MPI_SUCCESS);
    CHECK(result == MPI_UNEQUAL);
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(e, MPI_ERRORS_RETURN);
    if (color) {
        check_inter(d, b, lb, a, la);
        check_inter(e, b, lb, a, la);
    } else {
        check_inter(d, a, la, b, lb);
        check_inter(e, a, la, b, lb);
    }
    CHECK_RC(MPI_Comm_free(&e), MPI_SUCCESS);

    /* merge: every combination of high */
    for (int hi = 0; hi < 4; hi++) {
        int high = color ? hi & 1 : (hi >> 1) & 1, high_a = (hi >> 1) & 1, high_b = hi & 1;
        MPI_Comm m;
        CHECK_RC(MPI_Intercomm_merge(hi % 2 ? inter : d, high, &m), MPI_SUCCESS);
        int n, r;
        MPI_Comm_size(m, &n);
        MPI_Comm_rank(m, &r);
        CHECK(n == size);
        CHECK_RC(MPI_Comm_test_inter(m, &result), MPI_SUCCESS);
        CHECK(!result);
        int *w = world_of(m, 0, &n);
        if (high_a != high_b) { /* the low group first, each in its own order */
            const int *first = high_a ? b : a, *second = high_a ? a : b;
            int nf = high_a ? lb : la, ns = high_a ? la : lb;
            for (int i = 0; i < nf; i++)
                CHECK(w[i] == first[i]);
            for (int i = 0; i < ns; i++)
                CHECK(w[nf + i] == second[i]);
        } else { /* either group first: each group contiguous and in order */
            int a_first = w[0] == a[0];
            for (int i = 0; i < size; i++) {
                int x = a_first ? (i < la ? a[i] : b[i - la]) : (i < lb ? b[i] : a[i - lb]);
                CHECK(w[i] == x);
            }
        }
        CHECK(w[r] == rank);
        free(w);
        int got = -1;
        CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, (r + 1) % size, 0, &got, 1, MPI_INT,
                              (r - 1 + size) % size, 0, m, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_free(&m), MPI_SUCCESS);
    }

    /* split: local rank parity; the remote group is the other side's members of that color */
    int lr;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm s;
    CHECK_RC(MPI_Comm_split(inter, lr % 2, -lr, &s), MPI_SUCCESS);
    {
        int *mine = color ? b : a, *theirs = color ? a : b, nm = color ? lb : la,
            nt = color ? la : lb;
        int *ls = malloc((size_t)nm * sizeof *ls), *rs = malloc((size_t)(nt + 1) * sizeof *rs);
        int kl = 0, kr = 0;
        for (int i = nm - 1; i >= 0; i--)
            if (i % 2 == lr % 2)
                ls[kl++] = mine[i];
        for (int i = nt - 1; i >= 0; i--)
            if (i % 2 == lr % 2)
                rs[kr++] = theirs[i];
        if (kr == 0) {
            CHECK(s == MPI_COMM_NULL);
        } else {
            MPI_Comm_set_errhandler(s, MPI_ERRORS_RETURN);
            check_inter(s, ls, kl, rs, kr);
            CHECK_RC(MPI_Comm_free(&s), MPI_SUCCESS);
        }
        free(ls);
        free(rs);
    }

    /* create: each side keeps the first half (rounded up) of its local group */
    MPI_Group lg, sub;
    MPI_Comm_group(inter, &lg);
    int ln;
    MPI_Comm_size(inter, &ln);
    int keep = (ln + 1) / 2, range[1][3] = { { 0, keep - 1, 1 } };
    MPI_Group_range_incl(lg, 1, range, &sub);
    MPI_Comm cr;
    CHECK_RC(MPI_Comm_create(inter, sub, &cr), MPI_SUCCESS);
    {
        int *mine = color ? b : a, *theirs = color ? a : b, nt = color ? la : lb;
        int keep_t = (nt + 1) / 2;
        if (lr >= keep) {
            CHECK(cr == MPI_COMM_NULL);
        } else {
            MPI_Comm_set_errhandler(cr, MPI_ERRORS_RETURN);
            check_inter(cr, mine, keep, theirs, keep_t);
            CHECK_RC(MPI_Comm_free(&cr), MPI_SUCCESS);
        }
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);

    /* errors */
    MPI_Comm x;
    CHECK(err_class(MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 1, &x)) == MPI_ERR_COMM);
#ifdef METAMPI /* MPICH 4.0.2 asserts in these instead of returning an error */
    CHECK(err_class(MPI_Intercomm_merge(local, 0, &x)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_create_group(inter, MPI_GROUP_EMPTY, 0, &x)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Intercomm_create(local, la + lb, MPI_COMM_WORLD, remote_leader, 1,
                                         &x)) == MPI_ERR_RANK);
    CHECK(err_class(MPI_Comm_remote_size(local, &result)) == MPI_ERR_COMM);
#endif
    free(a);
    free(b);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&inter), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&local), MPI_SUCCESS);
}

/* Three groups by rank % 3, inter-communicators between each pair, created in a
 * group-dependent order (each creation involves only the two groups), with leaders that are
 * not rank 0 and a duplicate of the world as peer_comm. */
static void three_groups(void)
{
    int color = rank % 3;
    MPI_Comm local, peer, inter[3] = { MPI_COMM_NULL, MPI_COMM_NULL, MPI_COMM_NULL };
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Comm_dup(MPI_COMM_WORLD, &peer);
    int ln;
    MPI_Comm_size(local, &ln);
    /* pairs (0,1), (1,2), (0,2): group g meets the other two in increasing pair order */
    int pairs[3][2] = { { 0, 1 }, { 1, 2 }, { 0, 2 } };
    for (int p = 0; p < 3; p++) {
        int g0 = pairs[p][0], g1 = pairs[p][1];
        if (color != g0 && color != g1)
            continue;
        int other = color == g0 ? g1 : g0;
        /* leaders: the last member of each group; world rank of group g's last member */
        int lastw = color + 3 * (ln - 1);
        int on = (size - other + 2) / 3, other_last = other + 3 * (on - 1);
        (void)lastw;
        CHECK_RC(MPI_Intercomm_create(local, ln - 1, peer, other_last, 100 + p, &inter[other]),
                 MPI_SUCCESS);
        MPI_Comm_set_errhandler(inter[other], MPI_ERRORS_RETURN);
        int *lw = malloc((size_t)ln * sizeof *lw), *rw = malloc((size_t)on * sizeof *rw);
        for (int i = 0; i < ln; i++)
            lw[i] = color + 3 * i;
        for (int i = 0; i < on; i++)
            rw[i] = other + 3 * i;
        check_inter(inter[other], lw, ln, rw, on);
        free(lw);
        free(rw);
    }
    for (int g = 0; g < 3; g++)
        if (inter[g] != MPI_COMM_NULL)
            MPI_Comm_free(&inter[g]);
    MPI_Comm_free(&peer);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size >= 2)
        halves();
    if (size >= 3)
        three_groups();
    /* an intra-communicator is no inter-communicator */
    int flag;
    CHECK_RC(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag), MPI_SUCCESS);
    CHECK(!flag);
#ifdef METAMPI
    MPI_Comm x;
    CHECK(err_class(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &x)) == MPI_ERR_COMM);
#endif
    MPI_Finalize();
    return 0;
}
