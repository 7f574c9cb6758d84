/* MPI_Comm_disconnect (MPI-3.1 §10.5.4) on communicators of one job: an intra-communicator
 * with buffered sends of both protocols still leaving when it is called, an
 * inter-communicator, attribute delete callbacks, and the argument errors. */
#include "../check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;
static int deleted;

static int err_class(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static int count_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    deleted++;
    return MPI_SUCCESS;
}

/* Each rank bsends to the next a short and a long message on a duplicate of world, receives
 * from the previous one, and disconnects at once: the sends' copies may still be leaving. */
static void buffered_then_disconnect(void)
{
    enum { SHORT = 64, LONG = 1 << 20 };
    int bufsize = 2 * MPI_BSEND_OVERHEAD + SHORT + LONG;
    char *attached = malloc((size_t)bufsize), *out = malloc(LONG), *in = malloc(LONG);
    CHECK(attached && out && in);
    CHECK_RC(MPI_Buffer_attach(attached, bufsize), MPI_SUCCESS);
    MPI_Comm d;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    int key;
    CHECK_RC(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_delete, &key, NULL),
             MPI_SUCCESS);
    CHECK_RC(MPI_Comm_set_attr(d, key, NULL), MPI_SUCCESS);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    memset(out, rank + 1, LONG);
    CHECK_RC(MPI_Bsend(out, SHORT, MPI_CHAR, next, 1, d), MPI_SUCCESS);
    CHECK_RC(MPI_Bsend(out, LONG, MPI_CHAR, next, 2, d), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(in, SHORT, MPI_CHAR, prev, 1, d, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(in[0] == (char)(prev + 1) && in[SHORT - 1] == (char)(prev + 1));
    CHECK_RC(MPI_Recv(in, LONG, MPI_CHAR, prev, 2, d, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(in[0] == (char)(prev + 1) && in[LONG - 1] == (char)(prev + 1));
    CHECK_RC(MPI_Comm_disconnect(&d), MPI_SUCCESS);
    CHECK(d == MPI_COMM_NULL);
    CHECK(deleted == 1);
    CHECK_RC(MPI_Comm_free_keyval(&key), MPI_SUCCESS);
    void *detached;
    int detached_size;
    CHECK_RC(MPI_Buffer_detach(&detached, &detached_size), MPI_SUCCESS);
    CHECK(detached == attached && detached_size == bufsize);
    free(attached);
    free(out);
    free(in);
}

/* The lower and upper halves of world joined by an inter-communicator, which is disconnected
 * after one message across. */
static void intercomm(void)
{
    if (size < 2)
        return;
    int low = rank < size / 2;
    MPI_Comm half, inter;
    CHECK_RC(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half), MPI_SUCCESS);
    CHECK_RC(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 7, &inter),
             MPI_SUCCESS);
    int v = rank, got = -1, hrank;
    MPI_Comm_rank(half, &hrank);
    if (hrank == 0) {
        CHECK_RC(MPI_Sendrecv(&v, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, inter,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(got == (low ? size / 2 : 0));
    }
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
    CHECK(inter == MPI_COMM_NULL);
    CHECK_RC(MPI_Comm_free(&half), MPI_SUCCESS);
}

static void errors(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    CHECK(err_class(MPI_Comm_disconnect(&c)) == MPI_ERR_COMM);
#ifdef METAMPI /* MPICH takes world, and breaks in MPI_Finalize */
    c = MPI_COMM_WORLD;
    CHECK(err_class(MPI_Comm_disconnect(&c)) == MPI_ERR_COMM);
    CHECK(c == MPI_COMM_WORLD);
    c = MPI_COMM_SELF;
    CHECK(err_class(MPI_Comm_disconnect(&c)) == MPI_ERR_COMM);
    CHECK(err_class(MPI_Comm_disconnect(NULL)) == MPI_ERR_ARG);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    buffered_then_disconnect();
    intercomm();
    errors();
    MPI_Finalize();
    return 0;
}
