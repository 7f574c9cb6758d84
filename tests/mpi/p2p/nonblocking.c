/* Completion calls of nonblocking requests: MPI_Wait, Test, Waitany, Testany, Waitall,
 * Testall with MPI_REQUEST_NULL entries, all-null arrays (MPI_UNDEFINED index, empty status),
 * MPI_STATUSES_IGNORE; MPI_Request_get_status (reports completion without freeing);
 * MPI_Request_free on active sends (the message is still delivered) and on an active receive
 * (it still matches the next message). Every rank exchanges with every rank, itself included. */
#include "p2p.h"

enum { T_ALL = 20, T_ANY = 21, T_TESTANY = 22, T_TESTALL = 23, T_STAT = 24, T_FREE = 25,
       T_ACK = 26, T_RFREE = 27 };

static int payload(int from, int to, int k) { return from * 10000 + to * 100 + k; }

/* every rank sends 2 ints to every rank (itself included) on tag, with Isend */
static void isend_all(int tag, int *sv, MPI_Request *sreq)
{
    for (int d = 0; d < p2p_size; d++) {
        sv[2 * d] = payload(p2p_rank, d, tag);
        sv[2 * d + 1] = -sv[2 * d];
        CHECK_RC(MPI_Isend(&sv[2 * d], 2, MPI_INT, d, tag, MPI_COMM_WORLD, &sreq[d]),
                 MPI_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, flag, idx, count;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *sv = malloc(2 * sizeof(int) * (size_t)size), *rv = malloc(2 * sizeof(int) * (size_t)size);
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (size_t)size);
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * 2 * ((size_t)size + 1));
    MPI_Status *sts = malloc(sizeof(MPI_Status) * 2 * ((size_t)size + 1));
    CHECK(sv && rv && sreq && rreq && sts);
    MPI_Status st;

    /* Waitall with statuses; sends completed with MPI_STATUSES_IGNORE */
    for (int s = 0; s < size; s++)
        CHECK_RC(MPI_Irecv(&rv[2 * s], 2, MPI_INT, s, T_ALL, MPI_COMM_WORLD, &rreq[s]),
                 MPI_SUCCESS);
    isend_all(T_ALL, sv, sreq);
    CHECK_RC(MPI_Waitall(size, rreq, sts), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(size, sreq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int s = 0; s < size; s++) {
        CHECK(rreq[s] == MPI_REQUEST_NULL && sreq[s] == MPI_REQUEST_NULL);
        CHECK(sts[s].MPI_SOURCE == s && sts[s].MPI_TAG == T_ALL);
        CHECK(rv[2 * s] == payload(s, rank, T_ALL) && rv[2 * s + 1] == -rv[2 * s]);
        CHECK_RC(MPI_Get_count(&sts[s], MPI_INT, &count), MPI_SUCCESS);
        CHECK(count == 2);
    }

    /* Waitany over [null, recv from 0, null, recv from 1, ...]: each index exactly once */
    memset(rv, 0, 2 * sizeof(int) * (size_t)size);
    for (int s = 0; s < size; s++) {
        rreq[2 * s] = MPI_REQUEST_NULL;
        CHECK_RC(MPI_Irecv(&rv[2 * s], 2, MPI_INT, MPI_ANY_SOURCE, T_ANY, MPI_COMM_WORLD,
                           &rreq[2 * s + 1]), MPI_SUCCESS);
    }
    isend_all(T_ANY, sv, sreq);
    unsigned char *seen_idx = calloc(2u * (unsigned)size, 1), *seen_src = calloc((unsigned)size, 1);
    for (int i = 0; i < size; i++) {
        CHECK_RC(MPI_Waitany(2 * size, rreq, &idx, &st), MPI_SUCCESS);
        CHECK(idx >= 0 && idx < 2 * size && idx % 2 == 1 && !seen_idx[idx]);
        seen_idx[idx] = 1;
        CHECK(rreq[idx] == MPI_REQUEST_NULL);
        CHECK(st.MPI_TAG == T_ANY && st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size);
        CHECK(!seen_src[st.MPI_SOURCE]);
        seen_src[st.MPI_SOURCE] = 1;
        CHECK(rv[idx - 1] == payload(st.MPI_SOURCE, rank, T_ANY));
    }
    /* all null now: MPI_UNDEFINED and an empty status */
    st.MPI_SOURCE = 77;
    CHECK_RC(MPI_Waitany(2 * size, rreq, &idx, &st), MPI_SUCCESS);
    CHECK(idx == MPI_UNDEFINED);
    CHECK_EMPTY_STATUS(st);
    CHECK_RC(MPI_Waitany(0, rreq, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(idx == MPI_UNDEFINED);
    for (int i = 0; i < size; i++) { /* Waitany on sends, status ignored */
        CHECK_RC(MPI_Waitany(size, sreq, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(idx >= 0 && idx < size && sreq[idx] == MPI_REQUEST_NULL);
    }
    CHECK_RC(MPI_Waitany(size, sreq, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(idx == MPI_UNDEFINED);

    /* Testany: nothing can have arrived (the only sender of T_TESTANY to me is myself) */
    int a = -1, b = 1234;
    MPI_Request two[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK_RC(MPI_Irecv(&a, 1, MPI_INT, rank, T_TESTANY, MPI_COMM_WORLD, &two[1]), MPI_SUCCESS);
    flag = 1;
    idx = 5;
    CHECK_RC(MPI_Testany(2, two, &idx, &flag, &st), MPI_SUCCESS);
    CHECK(!flag && idx == MPI_UNDEFINED && two[1] != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Isend(&b, 1, MPI_INT, rank, T_TESTANY, MPI_COMM_WORLD, &two[0]), MPI_SUCCESS);
    int done_send = 0, done_recv = 0;
    while (!(done_send && done_recv)) {
        CHECK_RC(MPI_Testany(2, two, &idx, &flag, &st), MPI_SUCCESS);
        if (!flag) {
            CHECK(idx == MPI_UNDEFINED);
            continue;
        }
        CHECK(idx == 0 || idx == 1);
        CHECK(two[idx] == MPI_REQUEST_NULL);
        if (idx == 1) {
            CHECK(!done_recv && st.MPI_SOURCE == rank && st.MPI_TAG == T_TESTANY && a == 1234);
            done_recv = 1;
        } else {
            CHECK(!done_send);
            done_send = 1;
        }
    }
    flag = 0;
    CHECK_RC(MPI_Testany(2, two, &idx, &flag, &st), MPI_SUCCESS);
    CHECK(flag && idx == MPI_UNDEFINED);
    CHECK_EMPTY_STATUS(st);

    /* Testall: false while one receive cannot complete, requests left alone; then true */
    int c[2] = {0, 0}, d[2] = {5, 6};
    MPI_Request three[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK_RC(MPI_Irecv(&c[0], 1, MPI_INT, rank, T_TESTALL, MPI_COMM_WORLD, &three[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Irecv(&c[1], 1, MPI_INT, rank, T_TESTALL, MPI_COMM_WORLD, &three[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Send(&d[0], 1, MPI_INT, rank, T_TESTALL, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < 10; i++) {
        CHECK_RC(MPI_Testall(3, three, &flag, sts), MPI_SUCCESS);
        CHECK(!flag && three[0] != MPI_REQUEST_NULL && three[2] != MPI_REQUEST_NULL);
    }
    CHECK(c[1] == 0);
    CHECK_RC(MPI_Send(&d[1], 1, MPI_INT, rank, T_TESTALL, MPI_COMM_WORLD), MPI_SUCCESS);
    do
        CHECK_RC(MPI_Testall(3, three, &flag, sts), MPI_SUCCESS);
    while (!flag);
    CHECK(three[0] == MPI_REQUEST_NULL && three[2] == MPI_REQUEST_NULL);
    CHECK(c[0] == 5 && c[1] == 6); /* posting order for equal envelopes */
    CHECK(sts[0].MPI_SOURCE == rank && sts[2].MPI_SOURCE == rank && sts[2].MPI_TAG == T_TESTALL);
    CHECK_EMPTY_STATUS(sts[1]); /* a null entry gets an empty status */
    CHECK_RC(MPI_Testall(3, three, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(flag);

    /* Wait and Test on MPI_REQUEST_NULL: immediately, empty status */
    MPI_Request nul = MPI_REQUEST_NULL;
    CHECK_RC(MPI_Wait(&nul, &st), MPI_SUCCESS);
    CHECK_EMPTY_STATUS(st);
    flag = 0;
    st.MPI_TAG = 3;
    CHECK_RC(MPI_Test(&nul, &flag, &st), MPI_SUCCESS);
    CHECK(flag && nul == MPI_REQUEST_NULL);
    CHECK_EMPTY_STATUS(st);

    /* MPI_Request_get_status: reports completion, leaves the request to MPI_Wait */
    MPI_Request gr, gs;
    CHECK_RC(MPI_Irecv(&a, 1, MPI_INT, left, T_STAT, MPI_COMM_WORLD, &gr), MPI_SUCCESS);
    b = rank + 4000;
    CHECK_RC(MPI_Isend(&b, 1, MPI_INT, right, T_STAT, MPI_COMM_WORLD, &gs), MPI_SUCCESS);
    do
        CHECK_RC(MPI_Request_get_status(gr, &flag, &st), MPI_SUCCESS);
    while (!flag);
    CHECK(gr != MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == T_STAT);
    CHECK(a == left + 4000);
    CHECK_RC(MPI_Request_get_status(gr, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(flag && gr != MPI_REQUEST_NULL);
    st.MPI_SOURCE = -77;
    CHECK_RC(MPI_Wait(&gr, &st), MPI_SUCCESS);
    CHECK(gr == MPI_REQUEST_NULL && st.MPI_SOURCE == left && st.MPI_TAG == T_STAT);
    CHECK_RC(MPI_Wait(&gs, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st), MPI_SUCCESS);
    CHECK(flag);
    CHECK_EMPTY_STATUS(st);

    /* MPI_Request_free on active sends, small and 1 MiB: still delivered. The buffer stays
     * untouched until the receiver's acknowledgement says it got the message. */
    enum { BIG = 1 << 20 };
    unsigned char *fs = malloc(BIG), *fr = malloc(BIG);
    CHECK(fs && fr);
    for (int k = 0; k < 2; k++) {
        int n = k ? BIG : 3;
        MPI_Request fq, ack;
        p2p_fill(fs, (size_t)n, p2p_seed(rank, (size_t)n, T_FREE));
        CHECK_RC(MPI_Irecv(NULL, 0, MPI_BYTE, right, T_ACK, MPI_COMM_WORLD, &ack), MPI_SUCCESS);
        CHECK_RC(MPI_Isend(fs, n, MPI_BYTE, right, T_FREE, MPI_COMM_WORLD, &fq), MPI_SUCCESS);
        CHECK_RC(MPI_Request_free(&fq), MPI_SUCCESS);
        CHECK(fq == MPI_REQUEST_NULL);
        CHECK_RC(MPI_Recv(fr, BIG, MPI_BYTE, left, T_FREE, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == n && p2p_verify(fr, (size_t)n, p2p_seed(left, (size_t)n, T_FREE)) == -1);
        CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, left, T_ACK, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&ack, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    free(fs);
    free(fr);

    /* MPI_Request_free on an active receive: it stays posted and takes the first message, so
     * the next receive gets the second (its buffer is static: it may be written any time) */
    static int freed_target = 0;
    int one = 1, two_ = 2, got = 0;
    MPI_Request fr1, s2[2];
    CHECK_RC(MPI_Irecv(&freed_target, 1, MPI_INT, left, T_RFREE, MPI_COMM_WORLD, &fr1),
             MPI_SUCCESS);
    CHECK_RC(MPI_Request_free(&fr1), MPI_SUCCESS);
    CHECK(fr1 == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Isend(&one, 1, MPI_INT, right, T_RFREE, MPI_COMM_WORLD, &s2[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(&two_, 1, MPI_INT, right, T_RFREE, MPI_COMM_WORLD, &s2[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(&got, 1, MPI_INT, left, T_RFREE, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK(got == 2);
    CHECK_RC(MPI_Waitall(2, s2, MPI_STATUSES_IGNORE), MPI_SUCCESS);

    free(seen_idx);
    free(seen_src);
    free(sv);
    free(rv);
    free(sreq);
    free(rreq);
    free(sts);
    p2p_finish("nonblocking");
    return 0;
}
