/* Communicator management (MPI-3.1 §6.4, §6.8): dup, dup_with_info, compare, names, hints,
 * test_inter, Comm_group, free (also of a communicator with pending operations), the
 * inherited error handler, that messages on different communicators never match, and
 * MPI_Comm_get_parent's MPI_COMM_NULL for a process started by mpirun (§10.3.2). */
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

static int compare(MPI_Comm a, MPI_Comm b)
{
    int r;
    CHECK_RC(MPI_Comm_compare(a, b, &r), MPI_SUCCESS);
    return r;
}

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_RC(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
    CHECK_RC(MPI_Comm_get_name(MPI_COMM_SELF, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13);
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_name(d, name, &len), MPI_SUCCESS);
    CHECK(len == 0 && name[0] == '\0'); /* names are not copied by dup */
    CHECK_RC(MPI_Comm_set_name(d, "my communicator"), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_name(d, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "my communicator") == 0 && len == 15);
    CHECK_RC(MPI_Comm_set_name(MPI_COMM_WORLD, "world renamed"), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len), MPI_SUCCESS);
    CHECK(strcmp(name, "world renamed") == 0);
    CHECK_RC(MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD"), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    CHECK(d == MPI_COMM_NULL);
}

static void dups(void)
{
    MPI_Comm d, dd, s;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    CHECK(d != MPI_COMM_WORLD);
    int n, r, flag;
    CHECK_RC(MPI_Comm_size(d, &n), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_rank(d, &r), MPI_SUCCESS);
    CHECK(n == size && r == rank);
    CHECK(compare(d, MPI_COMM_WORLD) == MPI_CONGRUENT);
    CHECK(compare(d, d) == MPI_IDENT);
    CHECK(compare(MPI_COMM_WORLD, MPI_COMM_WORLD) == MPI_IDENT);
    CHECK(compare(MPI_COMM_SELF, MPI_COMM_WORLD) == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
    CHECK_RC(MPI_Comm_test_inter(d, &flag), MPI_SUCCESS);
    CHECK(!flag);
    CHECK_RC(MPI_Comm_dup(d, &dd), MPI_SUCCESS);
    CHECK(compare(d, dd) == MPI_CONGRUENT);
    /* a reversed split is similar to the world */
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &s), MPI_SUCCESS);
    CHECK(compare(s, MPI_COMM_WORLD) == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT));
    CHECK_RC(MPI_Comm_rank(s, &r), MPI_SUCCESS);
    CHECK(r == size - 1 - rank);
    MPI_Group g1, g2;
    CHECK_RC(MPI_Comm_group(s, &g1), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_group(MPI_COMM_WORLD, &g2), MPI_SUCCESS);
    int gc;
    CHECK_RC(MPI_Group_compare(g1, g2, &gc), MPI_SUCCESS);
    CHECK(gc == (size > 1 ? MPI_SIMILAR : MPI_IDENT));
    CHECK_RC(MPI_Group_free(&g1), MPI_SUCCESS);
    CHECK_RC(MPI_Group_free(&g2), MPI_SUCCESS);
    /* the group handle outlives the communicator */
    CHECK_RC(MPI_Comm_group(dd, &g1), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&dd), MPI_SUCCESS);
    CHECK_RC(MPI_Group_size(g1, &n), MPI_SUCCESS);
    CHECK(n == size);
    CHECK_RC(MPI_Group_free(&g1), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&s), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
}

static void errhandler_inherited(void)
{
    MPI_Comm d;
    MPI_Errhandler e;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS); /* world has ERRORS_RETURN */
    CHECK_RC(MPI_Comm_get_errhandler(d, &e), MPI_SUCCESS);
    CHECK(e == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&e);
    CHECK_RC(MPI_Comm_set_errhandler(d, MPI_ERRORS_ARE_FATAL), MPI_SUCCESS);
    MPI_Comm dd;
    CHECK_RC(MPI_Comm_dup(d, &dd), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_errhandler(dd, &e), MPI_SUCCESS);
    CHECK(e == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&e);
    CHECK_RC(MPI_Comm_free(&dd), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
}

static void hints(void)
{
    MPI_Info info, got;
    CHECK_RC(MPI_Info_create(&info), MPI_SUCCESS);
    CHECK_RC(MPI_Info_set(info, "metampi_test_hint", "yes"), MPI_SUCCESS);
    MPI_Comm d, d2, d3;
    CHECK_RC(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d), MPI_SUCCESS);
    CHECK(compare(d, MPI_COMM_WORLD) == MPI_CONGRUENT);
    CHECK_RC(MPI_Info_free(&info), MPI_SUCCESS);
    char value[MPI_MAX_INFO_VAL];
    int flag;
#ifdef METAMPI /* MPICH returns only the hints it understands */
    CHECK_RC(MPI_Comm_get_info(d, &got), MPI_SUCCESS);
    CHECK_RC(MPI_Info_get(got, "metampi_test_hint", MPI_MAX_INFO_VAL - 1, value, &flag),
             MPI_SUCCESS);
    CHECK(flag && strcmp(value, "yes") == 0);
    CHECK_RC(MPI_Info_free(&got), MPI_SUCCESS);
    /* dup keeps the hints, dup_with_info replaces them */
    CHECK_RC(MPI_Comm_dup(d, &d2), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_info(d2, &got), MPI_SUCCESS);
    CHECK_RC(MPI_Info_get(got, "metampi_test_hint", MPI_MAX_INFO_VAL - 1, value, &flag),
             MPI_SUCCESS);
    CHECK(flag);
    CHECK_RC(MPI_Info_free(&got), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup_with_info(d, MPI_INFO_NULL, &d3), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_info(d3, &got), MPI_SUCCESS);
    int nkeys;
    CHECK_RC(MPI_Info_get_nkeys(got, &nkeys), MPI_SUCCESS);
    CHECK(nkeys == 0);
    CHECK_RC(MPI_Info_free(&got), MPI_SUCCESS);
    /* set_info replaces */
    CHECK_RC(MPI_Info_create(&info), MPI_SUCCESS);
    CHECK_RC(MPI_Info_set(info, "other", "1"), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_info(d3, info), MPI_SUCCESS);
    CHECK_RC(MPI_Info_free(&info), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_info(d3, &got), MPI_SUCCESS);
    CHECK_RC(MPI_Info_get(got, "other", MPI_MAX_INFO_VAL - 1, value, &flag), MPI_SUCCESS);
    CHECK(flag && strcmp(value, "1") == 0);
    CHECK_RC(MPI_Info_free(&got), MPI_SUCCESS);
    CHECK(err_class(MPI_Comm_set_info(d3, MPI_INFO_NULL)) == MPI_ERR_INFO);
    CHECK_RC(MPI_Comm_free(&d3), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d2), MPI_SUCCESS);
#else
    (void)got, (void)value, (void)flag, (void)d2, (void)d3;
#endif
    CHECK_RC(MPI_Comm_get_info(MPI_COMM_WORLD, &got), MPI_SUCCESS);
    CHECK(got != MPI_INFO_NULL);
    CHECK_RC(MPI_Info_free(&got), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
}

/* A message sent on one communicator is received only there, even by wildcard receives on
 * communicators with the same group. */
static void isolation(void)
{
    MPI_Comm a, b;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &a), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &b), MPI_SUCCESS);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int va = 100 + rank, vb = 200 + rank, vw = 300 + rank, x;
    MPI_Request rq[3];
    MPI_Status st;
    CHECK_RC(MPI_Isend(&vb, 1, MPI_INT, to, 5, b, &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(&va, 1, MPI_INT, to, 5, a, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(&vw, 1, MPI_INT, to, 5, MPI_COMM_WORLD, &rq[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    CHECK(x == 300 + from);
    CHECK_RC(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, a, &st), MPI_SUCCESS);
    CHECK(x == 100 + from && st.MPI_SOURCE == from);
    int flag;
    CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, a, &flag, &st), MPI_SUCCESS);
    CHECK(!flag);
    CHECK_RC(MPI_Recv(&x, 1, MPI_INT, from, 5, b, &st), MPI_SUCCESS);
    CHECK(x == 200 + from);
    CHECK_RC(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&a), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_free(&b), MPI_SUCCESS);
}

/* MPI_Comm_free while operations are pending: they complete normally, and persistent
 * requests made on the communicator can still be started. */
static void free_pending(void)
{
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    int to = (rank + 1) % size, from = (rank - 1 + size) % size;
    int out = 1000 + rank, in[2] = { -1, -1 };
    MPI_Request rq[4];
    CHECK_RC(MPI_Irecv(&in[0], 1, MPI_INT, from, 9, d, &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Recv_init(&in[1], 1, MPI_INT, from, 10, d, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(&out, 1, MPI_INT, to, 9, d, &rq[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Send_init(&out, 1, MPI_INT, to, 10, d, &rq[3]), MPI_SUCCESS);
    MPI_Comm stale = d;
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
    CHECK(d == MPI_COMM_NULL);
#ifdef METAMPI
    int n;
    CHECK(err_class(MPI_Comm_size(stale, &n)) == MPI_ERR_COMM);
#endif
    (void)stale;
    CHECK_RC(MPI_Start(&rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Start(&rq[3]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(in[0] == 1000 + from && in[1] == 1000 + from);
    CHECK_RC(MPI_Request_free(&rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Request_free(&rq[3]), MPI_SUCCESS);

    /* a matched message outlives its communicator: Mprobe, free, then Mrecv/Imrecv */
    for (int k = 0; k < 2; k++) {
        CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
        CHECK_RC(MPI_Isend(&out, 1, MPI_INT, to, 11, d, &rq[0]), MPI_SUCCESS);
        MPI_Message msg;
        CHECK_RC(MPI_Mprobe(from, 11, d, &msg, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq[0], MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
        in[0] = -1;
        MPI_Status st;
        if (k == 0) {
            CHECK_RC(MPI_Mrecv(&in[0], 1, MPI_INT, &msg, &st), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Imrecv(&in[0], 1, MPI_INT, &msg, &rq[0]), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&rq[0], &st), MPI_SUCCESS);
        }
        CHECK(msg == MPI_MESSAGE_NULL && in[0] == 1000 + from && st.MPI_SOURCE == from);
    }
}

static void errors(void)
{
    MPI_Comm c = MPI_COMM_NULL, n;
    int x;
    CHECK(err_class(MPI_Comm_dup(MPI_COMM_NULL, &n)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_free(&c)) == MPI_ERR_COMM);
    c = MPI_COMM_WORLD;
    CHECK(err_class(MPI_Comm_free(&c)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &x)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_set_name(MPI_COMM_NULL, "x")) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_test_inter(MPI_COMM_NULL, &x)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)0x7777, &n)) ==
          MPI_ERR_INFO);
#ifdef METAMPI
    CHECK(err_class(MPI_Comm_dup((MPI_Comm)0x12345, &n)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_dup(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
    c = MPI_COMM_SELF; /* raised on MPI_COMM_SELF */
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK(err_class(MPI_Comm_free(&c)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &x)) == MPI_ERR_COMM);
    MPI_Group g;
    CHECK(err_class(MPI_Comm_remote_group(MPI_COMM_WORLD, &g)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_set_name(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
    /* a long name is truncated */
    char longname[300], got[MPI_MAX_OBJECT_NAME];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &d), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_name(d, longname), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_name(d, got, &x), MPI_SUCCESS);
    CHECK(x == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(got) == x);
    CHECK_RC(MPI_Comm_free(&d), MPI_SUCCESS);
#endif
}

static void parent(void)
{
    MPI_Comm p = MPI_COMM_WORLD;
    CHECK_RC(MPI_Comm_get_parent(&p), MPI_SUCCESS);
    CHECK(p == MPI_COMM_NULL);
#ifdef METAMPI
    CHECK(err_class(MPI_Comm_get_parent(NULL)) == MPI_ERR_ARG);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    names();
    dups();
    errhandler_inherited();
    hints();
    isolation();
    free_pending();
    errors();
    parent();
    MPI_Finalize();
    return 0;
}
