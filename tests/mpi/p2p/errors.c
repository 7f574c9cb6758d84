/* Argument errors of the point-to-point calls under MPI_ERRORS_RETURN on MPI_COMM_WORLD,
 * each checked by error class (MPI_Error_class): invalid rank, tag, count, buffer, datatype,
 * communicator, request and message handles, buffer attach errors. After all of them,
 * communication still works and nothing stray was sent. */
#include "p2p.h"

#include <limits.h>

enum { T_OK = 180 };

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, flag, *tub = NULL;
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    CHECK_RC(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tub, &flag), MPI_SUCCESS);
    CHECK(flag && *tub >= 32767);
    int buf[4] = {0, 0, 0, 0}, me = rank;
    MPI_Request r;
    MPI_Status st;
    MPI_Message msg;

    /* invalid ranks: size, -5, MPI_ANY_SOURCE for sends */
    int bad_ranks[] = {size, -5, size + 100};
    for (int i = 0; i < 3; i++) {
        int d = bad_ranks[i];
        CHECK_ERR(MPI_Send(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
        CHECK_ERR(MPI_Ssend(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
        CHECK_ERR(MPI_Rsend(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
        CHECK_ERR(MPI_Isend(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
        CHECK_ERR(MPI_Issend(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
        CHECK_ERR(MPI_Irsend(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
        CHECK_ERR(MPI_Send_init(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
        CHECK_ERR(MPI_Recv(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
        CHECK_ERR(MPI_Irecv(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
        CHECK_ERR(MPI_Recv_init(buf, 1, MPI_INT, d, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
        CHECK_ERR(MPI_Probe(d, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
        CHECK_ERR(MPI_Iprobe(d, 0, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK);
        CHECK_ERR(MPI_Mprobe(d, 0, MPI_COMM_WORLD, &msg, &st), MPI_ERR_RANK);
        CHECK_ERR(MPI_Improbe(d, 0, MPI_COMM_WORLD, &flag, &msg, &st), MPI_ERR_RANK);
        CHECK_ERR(MPI_Sendrecv(buf, 1, MPI_INT, d, 0, buf + 1, 1, MPI_INT, rank, 0, MPI_COMM_WORLD,
                               &st), MPI_ERR_RANK);
        CHECK_ERR(MPI_Sendrecv_replace(buf, 1, MPI_INT, rank, 0, d, 0, MPI_COMM_WORLD, &st),
                  MPI_ERR_RANK);
    }
    CHECK_ERR(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_ERR(MPI_Isend(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);

    /* invalid tags: negative (and MPI_ANY_TAG) for sends, above MPI_TAG_UB for everything */
    int bad_tags[] = {-1, -5, MPI_ANY_TAG};
    for (int i = 0; i < 3; i++) {
        CHECK_ERR(MPI_Send(buf, 1, MPI_INT, rank, bad_tags[i], MPI_COMM_WORLD), MPI_ERR_TAG);
        CHECK_ERR(MPI_Isend(buf, 1, MPI_INT, rank, bad_tags[i], MPI_COMM_WORLD, &r), MPI_ERR_TAG);
        CHECK_ERR(MPI_Bsend_init(buf, 1, MPI_INT, rank, bad_tags[i], MPI_COMM_WORLD, &r),
                  MPI_ERR_TAG);
    }
    CHECK_ERR(MPI_Recv(buf, 1, MPI_INT, rank, -7, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    CHECK_ERR(MPI_Irecv(buf, 1, MPI_INT, rank, -7, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
    CHECK_ERR(MPI_Iprobe(rank, -7, MPI_COMM_WORLD, &flag, &st), MPI_ERR_TAG);
    if (*tub < INT_MAX) {
        int t = *tub + 1;
        CHECK_ERR(MPI_Send(buf, 1, MPI_INT, rank, t, MPI_COMM_WORLD), MPI_ERR_TAG);
        CHECK_ERR(MPI_Issend(buf, 1, MPI_INT, rank, t, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
        CHECK_ERR(MPI_Recv(buf, 1, MPI_INT, rank, t, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
        CHECK_ERR(MPI_Irecv(buf, 1, MPI_INT, rank, t, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
        CHECK_ERR(MPI_Probe(rank, t, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
        CHECK_ERR(MPI_Sendrecv(buf, 1, MPI_INT, rank, 0, buf + 1, 1, MPI_INT, rank, t,
                               MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    }
    /* the largest valid tag works (receive posted first: a send to self may block) */
    CHECK_RC(MPI_Irecv(buf + 1, 1, MPI_INT, rank, *tub, MPI_COMM_WORLD, &r), MPI_SUCCESS);
    CHECK_RC(MPI_Send(&me, 1, MPI_INT, rank, *tub, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    CHECK(buf[1] == rank && st.MPI_TAG == *tub);

    /* negative count; NULL buffer with a positive count; MPI_DATATYPE_NULL */
    CHECK_ERR(MPI_Send(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Isend(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Bsend(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Recv(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Irecv(buf, -3, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Ssend_init(buf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT);
    CHECK_ERR(MPI_Send(NULL, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Isend(NULL, 2, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Recv(NULL, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Irecv(NULL, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER);
    CHECK_ERR(MPI_Send(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Recv_init(buf, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_TYPE);
    CHECK_ERR(MPI_Get_count(&st, MPI_DATATYPE_NULL, &flag), MPI_ERR_TYPE);

    /* invalid communicator: raised on MPI_COMM_WORLD, which returns */
    CHECK_ERR(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_ERR(MPI_Isend(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM);
    CHECK_ERR(MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st), MPI_ERR_COMM);
    CHECK_ERR(MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM);
    CHECK_ERR(MPI_Iprobe(0, 0, MPI_COMM_NULL, &flag, &st), MPI_ERR_COMM);
    CHECK_ERR(MPI_Sendrecv(buf, 1, MPI_INT, 0, 0, buf + 1, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st),
              MPI_ERR_COMM);

    /* requests and messages: MPI_REQUEST_NULL cannot be started, freed or cancelled, and
     * stays MPI_REQUEST_NULL; MPI_MESSAGE_NULL cannot be received */
    r = MPI_REQUEST_NULL;
    CHECK_ERR(MPI_Start(&r), MPI_ERR_REQUEST);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_ERR(MPI_Request_free(&r), MPI_ERR_REQUEST);
    CHECK(r == MPI_REQUEST_NULL);
    CHECK_ERR(MPI_Cancel(&r), MPI_ERR_REQUEST);
    MPI_Request nulls[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK_ERR(MPI_Startall(2, nulls), MPI_ERR_REQUEST);
    msg = MPI_MESSAGE_NULL;
    CHECK_ERR(MPI_Mrecv(buf, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST);
    /* (MPI_Wait on a handle that was never a request, e.g. 12345, is undefined behaviour in
     * MPI, so it is not tested here.) */

    /* buffer attach: twice, negative size; Bsend without a buffer */
    static char bb[1000 + MPI_BSEND_OVERHEAD];
    CHECK_ERR(MPI_Buffer_attach(bb, -1), MPI_ERR_ARG); /* MPICH and Open MPI agree */
    CHECK_ERR(MPI_Bsend(buf, 1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Buffer_attach(bb, (int)sizeof bb), MPI_SUCCESS);
    static char bb2[2000];
    CHECK_ERR(MPI_Buffer_attach(bb2, (int)sizeof bb2), MPI_ERR_BUFFER);
    void *addr;
    int bsize;
    CHECK_RC(MPI_Buffer_detach(&addr, &bsize), MPI_SUCCESS);
    CHECK(addr == bb && bsize == (int)sizeof bb); /* the first one stayed attached */

    /* nothing stray arrived from the failed calls; communication still works */
    CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
    CHECK(!flag);
    CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, *tub, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
    CHECK(!flag);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    CHECK_RC(MPI_Sendrecv(&me, 1, MPI_INT, right, T_OK, &got, 1, MPI_INT, left, T_OK,
                          MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(got == left);
    p2p_finish("errors");
    return 0;
}
