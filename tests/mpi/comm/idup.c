/* MPI_Comm_idup (MPI-3.1 §6.4.2): completion by every Wait/Test form, several in flight on
 * one communicator, concurrent ones on overlapping communicators started in different orders
 * on different ranks (as nonblocking collectives allow), mixed with blocking constructors and
 * point-to-point traffic, a parent freed before completion, and the local calls allowed on the
 * new communicator before completion. Every new communicator must
 * work and be isolated from the others. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

/* c is a working duplicate of the communicator whose world ranks are members[0..n): a ring
 * exchange in it, while the same tag travels on MPI_COMM_WORLD. */
static void check_dup(MPI_Comm c, MPI_Comm like)
{
    int n, r, ln, lr, result;
    CHECK_RC(MPI_Comm_size(c, &n), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(c, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_size(like, &ln), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(like, &lr), MPI_SUCCESS);
    CHECK(n == ln && r == lr);
    CHECK_RC(MPI_Comm_compare(c, like, &result), MPI_SUCCESS);
    CHECK(result == MPI_CONGRUENT);
    int to = (r + 1) % n, from = (r - 1 + n) % n, got = -1, wgot = -1;
    int wto = (rank + 1) % size, wfrom = (rank - 1 + size) % size, wsend = -rank - 1;
    MPI_Request w[2];
    MPI_Irecv(&wgot, 1, MPI_INT, wfrom, 0, MPI_COMM_WORLD, &w[0]);
    MPI_Isend(&wsend, 1, MPI_INT, wto, 0, MPI_COMM_WORLD, &w[1]);
    CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, to, 0, &got, 1, MPI_INT, from, 0, c,
                          MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Waitall(2, w, MPI_STATUSES_IGNORE);
    CHECK(wgot == -wfrom - 1);
    /* got is the world rank of c's rank `from`: compare through the groups */
    MPI_Group g, wg;
    int wr;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &from, wg, &wr);
    CHECK(got == wr);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

static void basic(void)
{
    MPI_Comm n;
    MPI_Request r;
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &n, &r), MPI_SUCCESS);
    CHECK(r != MPI_REQUEST_NULL);
    MPI_Status st;
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    check_dup(n, MPI_COMM_WORLD);
    /* Test until done */
    MPI_Comm m;
    CHECK_RC(MPI_Comm_idup(n, &m, &r), MPI_SUCCESS);
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_dup(m, MPI_COMM_WORLD);
    CHECK_RC(MPI_Comm_free(&m), MPI_SUCCESS);
    /* MPI-3.1 §5.12: a nonblocking collective's request can be neither freed nor cancelled */
    CHECK_RC(MPI_Comm_idup(n, &m, &r), MPI_SUCCESS);
    int c;
    MPI_Error_class(MPI_Request_free(&r), &c);
    CHECK(c != MPI_SUCCESS && r != MPI_REQUEST_NULL); /* the class is ours to choose */
#ifdef METAMPI
    CHECK(c == MPI_ERR_REQUEST);
    MPI_Error_class(MPI_Cancel(&r), &c);
    CHECK(c == MPI_ERR_REQUEST);
#endif
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_dup(m, MPI_COMM_WORLD);
    CHECK_RC(MPI_Comm_free(&m), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&n), MPI_SUCCESS);
}

/* Several idups of one communicator in flight, completed in random order. */
static void many_on_one(void)
{
    enum { N = 12 };
    MPI_Comm d, n[N];
    MPI_Request r[N];
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK_RC(MPI_Comm_idup(d, &n[i], &r[i]), MPI_SUCCESS);
    int left = N;
    while (left) {
        int idx;
        if (rank % 2) {
            CHECK_RC(MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
        } else {
            int out, ids[N];
            CHECK_RC(MPI_Waitsome(N, r, &out, ids, MPI_STATUSES_IGNORE), MPI_SUCCESS);
            left -= out - 1;
        }
        left--;
    }
    for (int i = 0; i < N; i++)
        check_dup(n[i], d);
    /* all isolated: a message on each, received by wildcard on each */
    int to = (rank + 1) % size;
    MPI_Request s[N];
    int vals[N];
    for (int i = 0; i < N; i++) {
        vals[i] = 1000 * i + rank;
        MPI_Isend(&vals[i], 1, MPI_INT, to, 0, n[N - 1 - i], &s[i]);
    }
    for (int i = 0; i < N; i++) {
        int got;
        MPI_Status st;
        CHECK_RC(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, n[i], &st), MPI_SUCCESS);
        CHECK(got == 1000 * (N - 1 - i) + (rank - 1 + size) % size);
    }
    MPI_Waitall(N, s, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++)
        CHECK_RC(MPI_Comm_free(&n[i]), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
}

/* Overlapping communicators (the world, two duplicates, a half and a residue split), idups on
 * all of them started in a rank-dependent order, completed together. */
static void overlapping(void)
{
    enum { K = 5 };
    MPI_Comm base[K], n[K];
    MPI_Request r[K];
    base[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &base[1]);
    MPI_Comm_dup(MPI_COMM_WORLD, &base[2]);
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &base[3]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, -rank, &base[4]);
    for (int round = 0; round < 10; round++) {
        int order[K];
        for (int i = 0; i < K; i++)
            order[i] = (i * (1 + 2 * ((rank + round) % 2)) + rank + round) % K;
        for (int i = 0; i < K; i++)
            CHECK_RC(MPI_Comm_idup(base[order[i]], &n[order[i]], &r[order[i]]), MPI_SUCCESS);
        CHECK_RC(MPI_Waitall(K, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int i = 0; i < K; i++) {
            check_dup(n[i], base[i]);
            CHECK_RC(MPI_Comm_free(&n[i]), MPI_SUCCESS);
        }
    }
    for (int i = 1; i < K; i++)
        MPI_Comm_free(&base[i]);
}

/* One rank waits for an idup before it starts the next, the other starts both first: the
 * standard allows it (nonblocking collectives on different communicators progress
 * independently), so no agreement may hold what the other one needs. */
static void waits_between(void)
{
    MPI_Comm a, b, na, nb;
    MPI_Request ra, rb;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    for (int round = 0; round < 10; round++) {
        if ((rank + round) % 2) {
            CHECK_RC(MPI_Comm_idup(b, &nb, &rb), MPI_SUCCESS);
            CHECK_RC(MPI_Comm_idup(a, &na, &ra), MPI_SUCCESS);
            MPI_Request both[2] = { ra, rb };
            CHECK_RC(MPI_Waitall(2, both, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Comm_idup(a, &na, &ra), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&ra, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK_RC(MPI_Comm_idup(b, &nb, &rb), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&rb, MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
        check_dup(na, a);
        check_dup(nb, b);
        MPI_Comm_free(&na);
        MPI_Comm_free(&nb);
    }
    /* an idup in flight across a blocking dup of another communicator, in either order */
    for (int round = 0; round < 6; round++) {
        MPI_Comm x;
        if ((rank + round) % 2) {
            CHECK_RC(MPI_Comm_idup(a, &na, &ra), MPI_SUCCESS);
            CHECK_RC(MPI_Comm_dup(b, &x), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&ra, MPI_STATUS_IGNORE), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Comm_dup(b, &x), MPI_SUCCESS);
            CHECK_RC(MPI_Comm_idup(a, &na, &ra), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&ra, MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
        check_dup(na, a);
        check_dup(x, b);
        MPI_Comm_free(&na);
        MPI_Comm_free(&x);
    }
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

/* The parent is freed while its idup is in flight; point-to-point traffic meanwhile. */
static void parent_freed(void)
{
    MPI_Comm d, n;
    MPI_Request r;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    CHECK_RC(MPI_Comm_idup(d, &n, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size, got = -1;
    CHECK_RC(MPI_Sendrecv(&rank, 1, MPI_INT, to, 4, &got, 1, MPI_INT, from, 4, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(got == from);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_dup(n, MPI_COMM_WORLD);
    MPI_Comm_free(&n);
}

/* Local calls on the new communicator before its request completes (MPICH and Open MPI
 * accept them; mpi4py's Comm.Idup sets the handler at once): handler, name, attributes,
 * groups, topology queries. A call that communicates is refused with MPI_ERR_COMM until then,
 * and everything set beforehand is still there afterwards. */
static int handler_calls;
static void count_handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
    handler_calls++;
}

static void local_before_completion(void)
{
    MPI_Comm n;
    MPI_Request r;
    MPI_Errhandler eh, got;
    int key, val = 42, *pv = NULL, flag = 0, sz = -1, rk = -1, result, inter = -1, topo;
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0;
    CHECK_RC(MPI_Comm_create_errhandler(count_handler, &eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_idup(MPI_COMM_WORLD, &n, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_errhandler(n, eh), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_errhandler(n, &got), MPI_SUCCESS);
    CHECK(got == eh);
    CHECK_RC(MPI_Errhandler_free(&got), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_name(n, "pending"), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(n, key, &val), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_size(n, &sz), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(n, &rk), MPI_SUCCESS);
    CHECK(sz == size && rk == rank);
    CHECK_RC(MPI_Comm_test_inter(n, &inter), MPI_SUCCESS);
    CHECK(inter == 0);
    CHECK_RC(MPI_Comm_compare(n, MPI_COMM_WORLD, &result), MPI_SUCCESS);
    CHECK(result == MPI_CONGRUENT);
    CHECK_RC(MPI_Topo_test(n, &topo), MPI_SUCCESS);
    CHECK(topo == MPI_UNDEFINED);
    MPI_Group g;
    CHECK_RC(MPI_Comm_group(n, &g), MPI_SUCCESS);
    CHECK_RC(MPI_Group_free(&g), MPI_SUCCESS);
    /* an error of a local call goes to the new communicator's own handler */
    CHECK_RC(MPI_Comm_set_name(n, NULL), MPI_ERR_ARG);
    CHECK(handler_calls == 1);
    /* communication waits for completion: refused (on MPI_COMM_WORLD, ERRORS_RETURN here).
     * With peers the agreement cannot have ended yet (none of these calls made progress);
     * alone, it ended within MPI_Comm_idup. */
    if (size > 1)
        CHECK_RC(MPI_Send(&val, 1, MPI_INT, rank, 0, n), MPI_ERR_COMM);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_name(n, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "pending") == 0 && len == 7);
    CHECK_RC(MPI_Comm_get_attr(n, key, &pv, &flag), MPI_SUCCESS);
    CHECK(flag && pv == &val);
    CHECK_RC(MPI_Comm_set_name(n, NULL), MPI_ERR_ARG);
    CHECK(handler_calls == 2);
    check_dup(n, MPI_COMM_WORLD);
    CHECK_RC(MPI_Comm_free(&n), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free_keyval(&key), MPI_SUCCESS);
    CHECK_RC(MPI_Errhandler_free(&eh), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    basic();
    many_on_one();
    overlapping();
    waits_between();
    parent_freed();
    local_before_completion();
    MPI_Finalize();
    return 0;
}
