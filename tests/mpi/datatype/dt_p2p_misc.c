/* Point-to-point with derived datatypes, the special cases: truncation into a typed buffer,
 * MPI_Type_free while sends and receives (and persistent requests) are pending, MPI_BOTTOM
 * with absolute addresses, errors (uncommitted, freed and null types), Sendrecv_replace,
 * Sendrecv with different types, Bsend and Ssend of typed data, unexpected typed messages,
 * matched probes, and counts of partial elements. Eager and rendezvous sizes, around a ring
 * (rank r sends to r + 1), so np 1 talks to itself. */
#include "dt_p2p.h"

static int dest, src;
static int ring_barrier(void);

/* A vector of n doubles, every third one; committed. */
static MPI_Datatype every_third(int n)
{
    MPI_Datatype t;
    CHECK_RC(MPI_Type_vector(n, 1, 3, MPI_DOUBLE, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
    return t;
}

static double value(int rank, int i)
{
    return rank * 1e6 + i;
}

static double *strided_source(int n, int rank)
{
    double *a = malloc(sizeof(double) * (size_t)(3 * n + 1));
    for (int i = 0; i < 3 * n + 1; i++)
        a[i] = -1;
    for (int i = 0; i < n; i++)
        a[3 * i] = value(rank, i);
    return a;
}

/* rank src's elements 0..got-1 at every third place of a, -2 everywhere else */
static void check_strided(const double *a, int n, int got)
{
    for (int i = 0; i < 3 * n; i++) {
        double want = i % 3 == 0 && i / 3 < got ? value(src, i / 3) : -2;
        if (a[i] != want) {
            fprintf(stderr, "rank %d: element %d is %g, expected %g\n", dt_rank, i, a[i], want);
            CHECK(0);
        }
    }
}

static double *fresh(int n)
{
    double *a = malloc(sizeof(double) * (size_t)(3 * n + 1));
    for (int i = 0; i < 3 * n + 1; i++)
        a[i] = -2;
    return a;
}

static void truncation(int n)
{
    MPI_Datatype big = every_third(n), small = every_third(n / 2);
    double *s = strided_source(n, dt_rank), *r = fresh(n);
    MPI_Request req;
    MPI_Status st;
    CHECK_RC(MPI_Isend(s, 1, big, dest, 1, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Recv(r, 1, small, src, 1, MPI_COMM_WORLD, &st);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE);
    check_strided(r, n, n / 2);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* a message of 1.5 elements of a 2-double struct: count undefined, elements 3 */
    double pair[4] = { 1, 2, 3, 4 }, got[4] = { 0, 0, 0, 0 };
    MPI_Datatype two;
    CHECK_RC(MPI_Type_contiguous(2, MPI_DOUBLE, &two), MPI_SUCCESS);
    MPI_Datatype two_r;
    CHECK_RC(MPI_Type_create_resized(two, 0, 24, &two_r), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&two_r), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(pair, 3, MPI_DOUBLE, dest, 2, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    double wide[6] = { 0 };
    CHECK_RC(MPI_Recv(wide, 2, two_r, src, 2, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    int count, elems;
    MPI_Get_count(&st, two_r, &count);
    MPI_Get_elements(&st, two_r, &elems);
    CHECK(count == MPI_UNDEFINED && elems == 3);
    CHECK(wide[0] == 1 && wide[1] == 2 && wide[2] == 0 && wide[3] == 3 && wide[4] == 0);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    (void)got;
    MPI_Type_free(&two);
    MPI_Type_free(&two_r);
    MPI_Type_free(&big);
    MPI_Type_free(&small);
    free(s);
    free(r);
}

/* The types are freed right after the operations start (and before the peer even sends). */
static void free_while_pending(int n)
{
    MPI_Datatype ts = every_third(n), tr = every_third(n);
    double *s = strided_source(n, dt_rank), *r = fresh(n);
    MPI_Request rq[2];
    CHECK_RC(MPI_Irecv(r, 1, tr, src, 3, MPI_COMM_WORLD, &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&tr), MPI_SUCCESS);
    CHECK(tr == MPI_DATATYPE_NULL);
    CHECK_RC(ring_barrier(), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(s, 1, ts, dest, 3, MPI_COMM_WORLD, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Type_free(&ts), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    check_strided(r, n, n);
    /* persistent requests outlive their types: started twice after the free */
    ts = every_third(n);
    tr = every_third(n);
    CHECK_RC(MPI_Send_init(s, 1, ts, dest, 4, MPI_COMM_WORLD, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Recv_init(r, 1, tr, src, 4, MPI_COMM_WORLD, &rq[0]), MPI_SUCCESS);
    MPI_Type_free(&ts);
    MPI_Type_free(&tr);
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 3 * n; i++)
            r[i] = -2;
        CHECK_RC(MPI_Startall(2, rq), MPI_SUCCESS);
        CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        check_strided(r, n, n);
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    free(s);
    free(r);
}

/* Two separate arrays described by one struct of absolute addresses. */
static void bottom(int n)
{
    int *a = malloc(sizeof(int) * (size_t)n);
    double *b = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        a[i] = dt_rank * 1000 + i;
        b[i] = dt_rank + i * 0.5;
    }
    MPI_Aint addr[2];
    MPI_Get_address(a, &addr[0]);
    MPI_Get_address(b, &addr[1]);
    int bl[2] = { n, n };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE }, t;
    CHECK_RC(MPI_Type_create_struct(2, bl, addr, ty, &t), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
    size_t bytes = (size_t)n * (sizeof(int) + sizeof(double));
    unsigned char *flat = malloc(bytes);
    MPI_Request req;
    CHECK_RC(MPI_Isend(MPI_BOTTOM, 1, t, dest, 5, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(flat, (int)bytes, MPI_BYTE, src, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < n; i++) {
        int x;
        double y;
        memcpy(&x, flat + sizeof(int) * (size_t)i, sizeof x);
        memcpy(&y, flat + sizeof(int) * (size_t)n + sizeof(double) * (size_t)i, sizeof y);
        CHECK(x == src * 1000 + i && y == src + i * 0.5);
    }
    /* and back into MPI_BOTTOM: our arrays get the source's values */
    CHECK_RC(MPI_Isend(flat, (int)bytes, MPI_BYTE, dest, 6, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    int prev = (src + dt_size - 1) % dt_size;
    CHECK_RC(MPI_Recv(MPI_BOTTOM, 1, t, src, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(a[i] == prev * 1000 + i && b[i] == prev + i * 0.5);
    MPI_Type_free(&t);
    free(a);
    free(b);
    free(flat);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t, freed;
    int buf[64] = { 0 }, cls;
    MPI_Request req;
    CHECK_RC(MPI_Type_vector(4, 1, 2, MPI_INT, &t), MPI_SUCCESS); /* not committed */
#define EXPECT_TYPE_ERROR(call)                                                                \
    do {                                                                                       \
        int rc_ = (call);                                                                      \
        MPI_Error_class(rc_, &cls);                                                            \
        CHECK(rc_ != MPI_SUCCESS && cls == MPI_ERR_TYPE);                                      \
    } while (0)
    EXPECT_TYPE_ERROR(MPI_Send(buf, 1, t, dest, 9, MPI_COMM_WORLD));
    EXPECT_TYPE_ERROR(MPI_Recv(buf, 1, t, src, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    EXPECT_TYPE_ERROR(MPI_Isend(buf, 1, t, dest, 9, MPI_COMM_WORLD, &req));
    EXPECT_TYPE_ERROR(MPI_Irecv(buf, 1, t, src, 9, MPI_COMM_WORLD, &req));
    EXPECT_TYPE_ERROR(MPI_Send_init(buf, 1, t, dest, 9, MPI_COMM_WORLD, &req));
    EXPECT_TYPE_ERROR(MPI_Sendrecv(buf, 1, t, dest, 9, buf, 1, MPI_INT, src, 9, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
    EXPECT_TYPE_ERROR(MPI_Send(buf, 1, MPI_DATATYPE_NULL, dest, 9, MPI_COMM_WORLD));
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
    freed = t;
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);
    EXPECT_TYPE_ERROR(MPI_Send(buf, 1, freed, dest, 9, MPI_COMM_WORLD));
    EXPECT_TYPE_ERROR(MPI_Recv(buf, 1, freed, src, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int rc = MPI_Send(buf, -1, MPI_INT, dest, 9, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#undef EXPECT_TYPE_ERROR
}

static void replace_and_mixed(int n)
{
    MPI_Datatype t = every_third(n);
    double *a = strided_source(n, dt_rank);
    MPI_Status st;
    CHECK_RC(MPI_Sendrecv_replace(a, 1, t, dest, 10, src, 10, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    for (int i = 0; i < 3 * n; i++)
        CHECK(a[i] == (i % 3 ? -1 : value(src, i / 3)));
    /* Sendrecv: typed out, contiguous in */
    double *flat = malloc(sizeof(double) * (size_t)n);
    free(a);
    a = strided_source(n, dt_rank);
    CHECK_RC(MPI_Sendrecv(a, 1, t, dest, 11, flat, n, MPI_DOUBLE, src, 11, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(flat[i] == value(src, i));
    free(flat);
    free(a);
    MPI_Type_free(&t);
}

static void modes(int n)
{
    MPI_Datatype t = every_third(n);
    double *s = strided_source(n, dt_rank), *r = fresh(n);
    /* synchronous */
    MPI_Request req;
    CHECK_RC(MPI_Irecv(r, 1, t, src, 12, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    CHECK_RC(MPI_Ssend(s, 1, t, dest, 12, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_strided(r, n, n);
    /* buffered: packed into the attached buffer */
    int size = (int)(n * sizeof(double)) + MPI_BSEND_OVERHEAD;
    void *bb = malloc((size_t)size);
    CHECK_RC(MPI_Buffer_attach(bb, size), MPI_SUCCESS);
    for (int i = 0; i < 3 * n; i++)
        r[i] = -2;
    CHECK_RC(MPI_Bsend(s, 1, t, dest, 13, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        s[3 * i] = -7; /* the message left with the old values */
    CHECK_RC(MPI_Recv(r, 1, t, src, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_strided(r, n, n);
    void *back;
    int bsize;
    CHECK_RC(MPI_Buffer_detach(&back, &bsize), MPI_SUCCESS);
    free(bb);
    MPI_Type_free(&t);
    free(s);
    free(r);
}

/* Sent before the receive is posted: the unexpected copy is unpacked later; found by a
 * matched probe and received with a typed MPI_Mrecv, and a second one with MPI_Imrecv. */
static void unexpected_and_mprobe(int n)
{
    MPI_Datatype t = every_third(n);
    double *s = strided_source(n, dt_rank), *r = fresh(n);
    MPI_Request req[2];
    CHECK_RC(MPI_Isend(s, 1, t, dest, 14, MPI_COMM_WORLD, &req[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(s, 1, t, dest, 15, MPI_COMM_WORLD, &req[1]), MPI_SUCCESS);
    CHECK_RC(ring_barrier(), MPI_SUCCESS);
    MPI_Message msg;
    MPI_Status st;
    CHECK_RC(MPI_Mprobe(src, 14, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
    int count;
    MPI_Get_count(&st, t, &count);
    CHECK(count == 1);
    CHECK_RC(MPI_Mrecv(r, 1, t, &msg, &st), MPI_SUCCESS);
    check_strided(r, n, n);
    for (int i = 0; i < 3 * n; i++)
        r[i] = -2;
    MPI_Request rr;
    CHECK_RC(MPI_Mprobe(src, 15, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Imrecv(r, 1, t, &msg, &rr), MPI_SUCCESS);
    MPI_Type_free(&t);
    CHECK_RC(MPI_Wait(&rr, &st), MPI_SUCCESS);
    check_strided(r, n, n);
    CHECK_RC(MPI_Waitall(2, req, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    free(s);
    free(r);
}

/* A barrier of point-to-point calls only (the collectives chapter is not needed). */
static int ring_barrier(void)
{
    char x = 0;
    for (int k = 1; k < dt_size; k <<= 1) {
        int to = (dt_rank + k) % dt_size, from = (dt_rank - k + dt_size) % dt_size;
        int rc = MPI_Sendrecv(&x, 1, MPI_CHAR, to, 99, &x, 1, MPI_CHAR, from, 99,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    dest = (dt_rank + 1) % dt_size;
    src = (dt_rank + dt_size - 1) % dt_size;
    errors();
    /* 40 doubles: eager; 20000 doubles (160 KB): rendezvous */
    static const int sizes[2] = { 40, 20000 };
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        truncation(n);
        free_while_pending(n);
        bottom(n);
        replace_and_mixed(n);
        modes(n);
        unexpected_and_mprobe(n);
    }
    dt_finish("dt_p2p_misc");
    return 0;
}
