/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0 §3.10): a ring exchange with contiguous and
 * strided data, completion through Wait, Test and Waitall, MPI_PROC_NULL, MPI_Request_free
 * before completion, MPI_Cancel, truncation, and the argument checks. */
#include "../check.h"

#include <mpi.h>

enum { N = 64 };

static void ring(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[N], in[N];
    for (int i = 0; i < N; i++)
        out[i] = rank * 1000 + i, in[i] = -1;
    MPI_Request r;
    MPI_Status st;
    CHECK_RC(MPI_Isendrecv(out, N, MPI_INT, right, 5, in, N, MPI_INT, left, 5, MPI_COMM_WORLD,
                           &r),
             MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == 5);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == N);
    for (int i = 0; i < N; i++)
        CHECK(in[i] == left * 1000 + i);

    /* strided, in place, completed by Test */
    MPI_Datatype every_other;
    MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int buf[N];
    for (int i = 0; i < N; i++)
        buf[i] = rank * 1000 + i;
    CHECK_RC(MPI_Isendrecv_replace(buf, 1, every_other, right, 6, left, 6, MPI_COMM_WORLD, &r),
             MPI_SUCCESS);
    MPI_Type_free(&every_other); /* the request keeps the type alive */
    int flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(&r, &flag, &st), MPI_SUCCESS);
    for (int i = 0; i < N; i++)
        CHECK(buf[i] == (i % 2 ? rank : left) * 1000 + i);

    /* several at once, one of them with MPI_PROC_NULL on both sides */
    MPI_Request reqs[3];
    int a = rank, b = -1, c = 7, d = 7;
    MPI_Isendrecv(&a, 1, MPI_INT, right, 7, &b, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isendrecv(&c, 1, MPI_INT, MPI_PROC_NULL, 8, &d, 1, MPI_INT, MPI_PROC_NULL, 8,
                  MPI_COMM_WORLD, &reqs[1]);
    MPI_Isendrecv_replace(&c, 1, MPI_INT, left, 9, right, 9, MPI_COMM_WORLD, &reqs[2]);
    MPI_Status sts[3];
    CHECK_RC(MPI_Waitall(3, reqs, sts), MPI_SUCCESS);
    CHECK(b == left && d == 7 && sts[1].MPI_SOURCE == MPI_PROC_NULL && c == 7);

    /* freed before completion: the exchange still happens */
    b = -1;
    MPI_Isendrecv(&a, 1, MPI_INT, right, 10, &b, 1, MPI_INT, left, 10, MPI_COMM_WORLD, &r);
    CHECK_RC(MPI_Request_free(&r), MPI_SUCCESS);
    CHECK(r == MPI_REQUEST_NULL);
    volatile int *landed = &b; /* the receive lands without anyone waiting for it */
    while (*landed == -1)
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(b == left);
}

/* past the eager limit: the rendezvous path, both directions at once */
static void large(int rank, int size)
{
    enum { BIG = 1 << 18 };
    static int out[BIG], in[BIG];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < BIG; i++)
        out[i] = rank + i;
    MPI_Request r;
    MPI_Isendrecv(out, BIG, MPI_INT, left, 3, in, BIG, MPI_INT, right, 3, MPI_COMM_WORLD, &r);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < BIG; i += 4099)
        CHECK(in[i] == right + i);
    MPI_Isendrecv_replace(out, BIG, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &r);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < BIG; i += 4099)
        CHECK(out[i] == left + i);
}

static void cancel_and_errors(int rank, int size)
{
    /* a receive nobody matches, cancelled */
    int x = 0, y = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, 0, 77, MPI_COMM_SELF, &r);
    CHECK_RC(MPI_Cancel(&r), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    int cancelled;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int big[2] = { 1, 2 }, small = 0;
    MPI_Isendrecv(big, 2, MPI_INT, rank, 1, &small, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &r);
    CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
    CHECK_RC(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r),
             MPI_ERR_RANK);
    CHECK_RC(MPI_Isendrecv(&x, 1, MPI_INT, 0, -5, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r),
             MPI_ERR_TAG);
    CHECK_RC(MPI_Isendrecv(&x, -1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r),
             MPI_ERR_COUNT);
    CHECK_RC(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_DATATYPE_NULL, 0, 0,
                           MPI_COMM_WORLD, &r),
             MPI_ERR_TYPE);
    CHECK_RC(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL),
             MPI_ERR_ARG);
    CHECK_RC(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r),
             MPI_ERR_COMM);
    CHECK_RC(MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, size + 3, 0, MPI_COMM_WORLD, &r),
             MPI_ERR_RANK);
    CHECK_RC(MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, 0, 0, MPI_COMM_WORLD, NULL),
             MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring(rank, size);
    large(rank, size);
    cancel_and_errors(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
