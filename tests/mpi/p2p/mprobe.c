/* Matched probe and receive: MPI_Mprobe, Improbe, Mrecv, Imrecv. A matched message is taken
 * out of matching (later probes and receives see the next message), the message handle
 * becomes MPI_MESSAGE_NULL when received, sizes 0 to 1 MiB, wildcards, and MPI_PROC_NULL
 * (MPI_MESSAGE_NO_PROC, receivable with the MPI_PROC_NULL status). Around a ring. */
#include "p2p.h"

enum { T_M = 60, T_X = 61, BIG = 1 << 20 };
static const int sizes[] = {0, 17, 3000, BIG};
#define NS 4

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, count, flag;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st, st2;
    MPI_Message msg;
    MPI_Request rq, sq[NS + 2];
    unsigned char *sb[NS], *rb = malloc(BIG + 1);
    CHECK(rb);
    for (int k = 0; k < NS; k++) {
        sb[k] = malloc((size_t)sizes[k] + 1);
        CHECK(sb[k]);
        p2p_fill(sb[k], (size_t)sizes[k], p2p_seed(rank, (size_t)sizes[k], k));
        CHECK_RC(MPI_Isend(sb[k], sizes[k], MPI_BYTE, right, T_M, MPI_COMM_WORLD, &sq[k]),
                 MPI_SUCCESS);
    }

    /* message 0 by Mprobe + Mrecv; an Iprobe then sees message 1 */
    CHECK_RC(MPI_Mprobe(left, T_M, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
    CHECK(msg != MPI_MESSAGE_NULL && msg != MPI_MESSAGE_NO_PROC);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_M);
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
    CHECK(count == sizes[0]);
    do
        CHECK_RC(MPI_Iprobe(left, T_M, MPI_COMM_WORLD, &flag, &st2), MPI_SUCCESS);
    while (!flag);
    CHECK_RC(MPI_Get_count(&st2, MPI_BYTE, &count), MPI_SUCCESS);
    CHECK(count == sizes[1]);
    CHECK_RC(MPI_Mrecv(rb, BIG, MPI_BYTE, &msg, &st), MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == left && st.MPI_TAG == T_M);
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
    CHECK(count == 0);

    /* messages 1..3 by Improbe (wildcards) + Imrecv, completed by Wait or by polling Test */
    for (int k = 1; k < NS; k++) {
        flag = 0;
        while (!flag)
            CHECK_RC(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st),
                     MPI_SUCCESS);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_M);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == sizes[k]);
        memset(rb, 0, (size_t)count + 1);
        CHECK_RC(MPI_Imrecv(rb, count, MPI_BYTE, &msg, &rq), MPI_SUCCESS);
        CHECK(msg == MPI_MESSAGE_NULL);
        if (k % 2) {
            CHECK_RC(MPI_Wait(&rq, &st2), MPI_SUCCESS);
        } else {
            flag = 0;
            while (!flag)
                CHECK_RC(MPI_Test(&rq, &flag, &st2), MPI_SUCCESS);
        }
        CHECK(rq == MPI_REQUEST_NULL && st2.MPI_SOURCE == left && st2.MPI_TAG == T_M);
        CHECK(p2p_verify(rb, (size_t)count, p2p_seed(left, (size_t)count, k)) == -1);
        CHECK(rb[count] == 0);
    }
    CHECK_RC(MPI_Waitall(NS, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);

    /* a matched message is invisible to receives: X is matched, the Recv gets Y */
    int x = rank * 2 + 1, y = rank * 2 + 2, gx = 0, gy = 0;
    CHECK_RC(MPI_Isend(&x, 1, MPI_INT, right, T_X, MPI_COMM_WORLD, &sq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(&y, 1, MPI_INT, right, T_X, MPI_COMM_WORLD, &sq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Mprobe(MPI_ANY_SOURCE, T_X, MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(&gy, 1, MPI_INT, left, T_X, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(gy == left * 2 + 2);
    flag = 1;
    CHECK_RC(MPI_Iprobe(left, T_X, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(!flag);
    CHECK_RC(MPI_Mrecv(&gx, 1, MPI_INT, &msg, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(gx == left * 2 + 1 && msg == MPI_MESSAGE_NULL);
    CHECK_RC(MPI_Waitall(2, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);

    /* MPI_PROC_NULL */
    msg = MPI_MESSAGE_NULL;
    CHECK_RC(MPI_Mprobe(MPI_PROC_NULL, T_M, MPI_COMM_WORLD, &msg, &st), MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NO_PROC);
    CHECK_PROC_NULL_STATUS(st);
    st.MPI_SOURCE = 3;
    CHECK_RC(MPI_Mrecv(rb, 4, MPI_BYTE, &msg, &st), MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NULL);
    CHECK_PROC_NULL_STATUS(st);
    flag = 0;
    CHECK_RC(MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st),
             MPI_SUCCESS);
    CHECK(flag && msg == MPI_MESSAGE_NO_PROC);
    CHECK_PROC_NULL_STATUS(st);
    CHECK_RC(MPI_Imrecv(rb, 4, MPI_BYTE, &msg, &rq), MPI_SUCCESS);
    CHECK(msg == MPI_MESSAGE_NULL);
    CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
    CHECK_PROC_NULL_STATUS(st);

    for (int k = 0; k < NS; k++)
        free(sb[k]);
    free(rb);
    p2p_finish("mprobe");
    return 0;
}
