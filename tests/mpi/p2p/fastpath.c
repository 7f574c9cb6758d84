/* The small-message fast path of MPI_Isend/MPI_Irsend/MPI_Irecv and the completion calls
 * (docs/p2p.md): between pairs (2k, 2k+1; an odd last rank only takes part in the barriers).
 *  - order: a burst of small Isends far longer than the shared-memory ring (some leave at once,
 *    the rest queue behind the first that found no room), interleaved with rendezvous,
 *    synchronous and ready sends, arrives in order, received with MPI_ANY_TAG and
 *    MPI_ANY_SOURCE by receives posted both before and after the data came;
 *  - a send that completed in MPI_Isend behaves as a complete request: MPI_Request_get_status
 *    says so without freeing it, MPI_Cancel leaves it delivered (the receiver gets it when
 *    Test_cancelled says false), MPI_Request_free of it still delivers the message;
 *  - zero-byte messages from a NULL buffer; typed (MPI_INT) counts in the status;
 *  - MPI_Waitall and MPI_Testall over arrays mixing MPI_REQUEST_NULL, an inactive persistent
 *    request and pending receives: Testall reports nothing until all are complete (and then
 *    all), Waitall completes every one and leaves the persistent request inactive, not null. */
#include "p2p.h"

enum { BURST = 1000, BIG = 64 * 1024, NBIG = BURST / 97 + 1, SMALL = 40 };
enum { T_BURST = 5, T_ST = 6, T_ZERO = 7, T_ARR = 8, NARR = 6 };

/* Message i of the burst: its first int is i; every 97th is BIG bytes (rendezvous), every
 * 101st synchronous, every 103rd of the first half ready (the receiver posted those receives
 * before it let the sender start). */
static int burst_bytes(int i)
{
    return i % 97 == 50 ? BIG : 4 + (i % 9) * 4;
}

static int *burst_buf(int i)
{
    static int small[BURST][SMALL / sizeof(int)], big[NBIG][BIG / sizeof(int)];
    return i % 97 == 50 ? big[i / 97] : small[i];
}

static void burst(int peer, int sender)
{
    static MPI_Request rq[BURST];
    if (sender) {
        int go;
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, T_BURST, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        for (int i = 0; i < BURST; i++) {
            int n = burst_bytes(i) / (int)sizeof(int), *d = burst_buf(i);
            for (int k = 0; k < n; k++)
                d[k] = i * 7 + k;
            d[0] = i;
            int tag = T_BURST + 1 + i % 3;
            if (i % 101 == 3)
                CHECK_RC(MPI_Issend(d, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq[i]),
                         MPI_SUCCESS);
            else if (i % 103 == 4 && i < BURST / 2)
                CHECK_RC(MPI_Irsend(d, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq[i]),
                         MPI_SUCCESS);
            else
                CHECK_RC(MPI_Isend(d, n, MPI_INT, peer, tag, MPI_COMM_WORLD, &rq[i]),
                         MPI_SUCCESS);
        }
        CHECK_RC(MPI_Waitall(BURST, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int i = 0; i < BURST; i++)
            CHECK(rq[i] == MPI_REQUEST_NULL);
        return;
    }
    /* the first half posted before the data can come (MPI_ANY_SOURCE: no other rank sends
     * here before the next barrier), the rest probably after it came */
    for (int i = 0; i < BURST / 2; i++)
        CHECK_RC(MPI_Irecv(burst_buf(i), burst_bytes(i) / (int)sizeof(int), MPI_INT,
                           MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]), MPI_SUCCESS);
    int go = 1;
    CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, T_BURST, MPI_COMM_WORLD), MPI_SUCCESS);
    p2p_sleep_ms(20);
    for (int i = BURST / 2; i < BURST; i++)
        CHECK_RC(MPI_Irecv(burst_buf(i), burst_bytes(i) / (int)sizeof(int), MPI_INT, peer,
                           MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]), MPI_SUCCESS);
    static MPI_Status st[BURST];
    CHECK_RC(MPI_Waitall(BURST, rq, st), MPI_SUCCESS);
    for (int i = 0; i < BURST; i++) {
        int n = burst_bytes(i) / (int)sizeof(int), count = -1, *d = burst_buf(i);
        CHECK(st[i].MPI_SOURCE == peer && st[i].MPI_TAG == T_BURST + 1 + i % 3);
        CHECK_RC(MPI_Get_count(&st[i], MPI_INT, &count), MPI_SUCCESS);
        CHECK(count == n && d[0] == i);
        for (int k = 1; k < n; k++)
            CHECK(d[k] == i * 7 + k);
    }
}

/* A send that completed inside MPI_Isend, seen through the completion calls. */
static void completed_sends(int peer, int sender)
{
    int v[3] = { 11, 12, 13 }, got = 0, flag = 0, cancelled = -1;
    MPI_Status st;
    if (sender) {
        MPI_Request r;
        CHECK_RC(MPI_Isend(&v[0], 1, MPI_INT, peer, T_ST, MPI_COMM_WORLD, &r), MPI_SUCCESS);
        CHECK_RC(MPI_Request_get_status(r, &flag, &st), MPI_SUCCESS);
        CHECK(r != MPI_REQUEST_NULL); /* get_status never frees */
        CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
        CHECK(r == MPI_REQUEST_NULL);
        CHECK_RC(MPI_Isend(&v[1], 1, MPI_INT, peer, T_ST, MPI_COMM_WORLD, &r), MPI_SUCCESS);
        CHECK_RC(MPI_Cancel(&r), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
        CHECK_RC(MPI_Test_cancelled(&st, &cancelled), MPI_SUCCESS);
        CHECK_RC(MPI_Send(&cancelled, 1, MPI_INT, peer, T_ST + 100, MPI_COMM_WORLD),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Isend(&v[2], 1, MPI_INT, peer, T_ST, MPI_COMM_WORLD, &r), MPI_SUCCESS);
        CHECK_RC(MPI_Request_free(&r), MPI_SUCCESS);
        CHECK(r == MPI_REQUEST_NULL);
        CHECK_RC(MPI_Isend(NULL, 0, MPI_INT, peer, T_ZERO, MPI_COMM_WORLD, &r), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
        return;
    }
    CHECK_RC(MPI_Recv(&got, 1, MPI_INT, peer, T_ST, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(got == 11);
    CHECK_RC(MPI_Recv(&cancelled, 1, MPI_INT, peer, T_ST + 100, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    if (!cancelled) {
        CHECK_RC(MPI_Recv(&got, 1, MPI_INT, peer, T_ST, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK(got == 12);
    }
    CHECK_RC(MPI_Recv(&got, 1, MPI_INT, peer, T_ST, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(got == 13);
    MPI_Request r;
    int count = -1;
    CHECK_RC(MPI_Irecv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, T_ZERO, MPI_COMM_WORLD, &r),
             MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&r, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &count), MPI_SUCCESS);
    CHECK(count == 0 && st.MPI_SOURCE == peer && st.MPI_TAG == T_ZERO);
}

/* Arrays of requests with null and inactive entries. */
static void arrays(int peer, int sender)
{
    int v[NARR] = { 0 }, go = 0, flag = -1;
    if (sender) {
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, peer, T_ARR + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        for (int i = 0; i < NARR; i++) {
            v[i] = 100 + i;
            CHECK_RC(MPI_Send(&v[i], 1, MPI_INT, peer, T_ARR, MPI_COMM_WORLD), MPI_SUCCESS);
        }
        return;
    }
    MPI_Request rq[NARR + 2], pers;
    CHECK_RC(MPI_Recv_init(&go, 1, MPI_INT, peer, T_ARR + 2, MPI_COMM_WORLD, &pers), MPI_SUCCESS);
    rq[0] = MPI_REQUEST_NULL;
    rq[NARR / 2 + 1] = pers; /* inactive: takes part in nothing */
    for (int i = 0, j = 1; i < NARR; i++, j++) {
        if (j == NARR / 2 + 1)
            j++;
        CHECK_RC(MPI_Irecv(&v[i], 1, MPI_INT, peer, T_ARR, MPI_COMM_WORLD, &rq[j]), MPI_SUCCESS);
    }
    MPI_Status st[NARR + 2];
    CHECK_RC(MPI_Testall(NARR + 2, rq, &flag, st), MPI_SUCCESS);
    CHECK(flag == 0); /* nothing was sent yet */
    for (int j = 1; j < NARR + 2; j++)
        CHECK(rq[j] != MPI_REQUEST_NULL);
    CHECK_RC(MPI_Send(&go, 1, MPI_INT, peer, T_ARR + 1, MPI_COMM_WORLD), MPI_SUCCESS);
    do
        CHECK_RC(MPI_Testall(NARR + 2, rq, &flag, st), MPI_SUCCESS);
    while (!flag);
    for (int i = 0; i < NARR; i++)
        CHECK(v[i] == 100 + i);
    for (int j = 0; j < NARR + 2; j++)
        CHECK(rq[j] == (j == NARR / 2 + 1 ? pers : MPI_REQUEST_NULL));
    CHECK(st[0].MPI_SOURCE == MPI_ANY_SOURCE && st[NARR / 2 + 1].MPI_TAG == MPI_ANY_TAG);
    CHECK_RC(MPI_Waitall(NARR + 2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS); /* nothing active */
    CHECK(rq[NARR / 2 + 1] == pers);
    CHECK_RC(MPI_Request_free(&pers), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int peer = p2p_rank ^ 1, pairs = peer < p2p_size;
    int sender = p2p_rank % 2 == 0;
    if (pairs)
        burst(peer, sender);
    p2p_barrier();
    if (pairs)
        completed_sends(peer, sender);
    p2p_barrier();
    if (pairs)
        arrays(peer, sender);
    p2p_barrier();
    p2p_finish("fastpath");
    return 0;
}
