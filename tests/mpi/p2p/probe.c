/* MPI_Probe and MPI_Iprobe: probing does not receive (a message is probed twice, then
 * received with the probed size and envelope), specific and wildcard source and tag, a
 * specific tag found past older messages, probe order = send order, sizes 0 to 1 MiB
 * (eager and rendezvous), Iprobe false for a message never sent, MPI_PROC_NULL. Around a
 * ring, to self at np 1. */
#include "p2p.h"

enum { T_A = 50, T_B = 51, T_NEVER = 52, BIG = 1 << 20 };
static const int sizes[] = {0, 13, 5000, BIG};
#define NS 4

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, count, flag;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st, st2;
    unsigned char *sb[NS], *rb = malloc(BIG + 1); /* room for the guard byte after a BIG message */
    MPI_Request sq[NS + 1];
    CHECK(rb);
    for (int k = 0; k < NS; k++) {
        sb[k] = malloc((size_t)sizes[k] + 1);
        CHECK(sb[k]);
        p2p_fill(sb[k], (size_t)sizes[k], p2p_seed(rank, (size_t)sizes[k], k));
        CHECK_RC(MPI_Isend(sb[k], sizes[k], MPI_BYTE, right, T_A, MPI_COMM_WORLD, &sq[k]),
                 MPI_SUCCESS);
    }
    int b = rank + 500;
    CHECK_RC(MPI_Isend(&b, 1, MPI_INT, right, T_B, MPI_COMM_WORLD, &sq[NS]), MPI_SUCCESS);

    /* the message with tag T_B, sent last, is found by a specific probe */
    CHECK_RC(MPI_Probe(left, T_B, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_B);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &count), MPI_SUCCESS);
    CHECK(count == 1);
    int got = -1;
    CHECK_RC(MPI_Recv(&got, 1, MPI_INT, left, T_B, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(got == left + 500);

    /* the T_A messages in send order, each probed twice (wildcards, then specific) */
    for (int k = 0; k < NS; k++) {
        CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_A);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == sizes[k]);
        flag = 0;
        while (!flag)
            CHECK_RC(MPI_Iprobe(left, T_A, MPI_COMM_WORLD, &flag, &st2), MPI_SUCCESS);
        CHECK(st2.MPI_SOURCE == left && st2.MPI_TAG == T_A);
        CHECK_RC(MPI_Get_count(&st2, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == sizes[k]);
        CHECK_RC(MPI_Probe(left, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
        memset(rb, 0, (size_t)count + 1);
        CHECK_RC(MPI_Recv(rb, count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2),
                 MPI_SUCCESS);
        CHECK(p2p_verify(rb, (size_t)count, p2p_seed(left, (size_t)count, k)) == -1);
        CHECK(rb[count] == 0);
    }
    CHECK_RC(MPI_Waitall(NS + 1, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);

    /* nothing with T_NEVER is ever sent */
    for (int i = 0; i < 20; i++) {
        flag = 1;
        CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, T_NEVER, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
        CHECK(!flag);
        CHECK_RC(MPI_Iprobe(left, T_NEVER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK(!flag);
    }

    /* Iprobe with the status ignored, then a receive with MPI_ANY_SOURCE */
    CHECK_RC(MPI_Isend(&b, 1, MPI_INT, right, T_B, MPI_COMM_WORLD, &sq[0]), MPI_SUCCESS);
    do
        CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, T_B, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
    while (!flag);
    got = -1;
    CHECK_RC(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, T_B, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(got == left + 500 && st.MPI_SOURCE == left);
    CHECK_RC(MPI_Wait(&sq[0], MPI_STATUS_IGNORE), MPI_SUCCESS);

    /* MPI_PROC_NULL: immediately, with the MPI_PROC_NULL status */
    CHECK_RC(MPI_Probe(MPI_PROC_NULL, T_A, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK_PROC_NULL_STATUS(st);
    flag = 0;
    CHECK_RC(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), MPI_SUCCESS);
    CHECK(flag);
    CHECK_PROC_NULL_STATUS(st);

    for (int k = 0; k < NS; k++)
        free(sb[k]);
    free(rb);
    p2p_finish("probe");
    return 0;
}
