/* Persistent requests: MPI_Send_init, Bsend_init, Ssend_init, Rsend_init, Recv_init, started
 * with MPI_Start and MPI_Startall several times with new contents each round, completed by
 * Wait/Waitall/Test; inactive persistent requests complete at once with an empty status;
 * MPI_PROC_NULL; MPI_Request_free at the end. Around a ring (self at np 1). */
#include "p2p.h"

enum { ROUNDS = 5, N = 3000, T_P = 80, T_READY = 90 };

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, flag, count;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char sb[4][N], rb[4][N + 8];
    MPI_Request sq[4], rq[4];
    MPI_Status st[4];
    int bsize = 2 * (N + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    CHECK(bbuf);
    CHECK_RC(MPI_Buffer_attach(bbuf, bsize), MPI_SUCCESS);

    /* one request per mode, tags T_P + mode; the receives take N + 8 bytes */
    CHECK_RC(MPI_Send_init(sb[0], N, MPI_BYTE, right, T_P + 0, MPI_COMM_WORLD, &sq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Bsend_init(sb[1], N, MPI_BYTE, right, T_P + 1, MPI_COMM_WORLD, &sq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Ssend_init(sb[2], N, MPI_BYTE, right, T_P + 2, MPI_COMM_WORLD, &sq[2]), MPI_SUCCESS);
    CHECK_RC(MPI_Rsend_init(sb[3], N, MPI_BYTE, right, T_P + 3, MPI_COMM_WORLD, &sq[3]), MPI_SUCCESS);
    for (int m = 0; m < 4; m++)
        CHECK_RC(MPI_Recv_init(rb[m], N + 8, MPI_BYTE, left, T_P + m, MPI_COMM_WORLD, &rq[m]),
                 MPI_SUCCESS);

    /* not started yet: inactive requests complete at once with an empty status */
    CHECK_RC(MPI_Wait(&rq[0], &st[0]), MPI_SUCCESS);
    CHECK(rq[0] != MPI_REQUEST_NULL);
    CHECK_EMPTY_STATUS(st[0]);
    flag = 0;
    CHECK_RC(MPI_Test(&sq[0], &flag, &st[0]), MPI_SUCCESS);
    CHECK(flag && sq[0] != MPI_REQUEST_NULL);
    CHECK_EMPTY_STATUS(st[0]);
    CHECK_RC(MPI_Waitall(4, rq, st), MPI_SUCCESS);
    for (int m = 0; m < 4; m++)
        CHECK(rq[m] != MPI_REQUEST_NULL);
    int idx = 0;
    CHECK_RC(MPI_Waitany(4, sq, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(idx == MPI_UNDEFINED);

    for (int r = 0; r < ROUNDS; r++) {
        for (int m = 0; m < 4; m++) {
            p2p_fill(sb[m], N, p2p_seed(rank, (size_t)m, r));
            memset(rb[m], 0xee, N + 8);
        }
        /* receives first (odd rounds one by one, even rounds together); the ready-mode
         * sender waits for its receiver's word */
        if (r % 2) {
            for (int m = 0; m < 4; m++)
                CHECK_RC(MPI_Start(&rq[m]), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Startall(4, rq), MPI_SUCCESS);
        }
        MPI_Request rdy;
        CHECK_RC(MPI_Isend(NULL, 0, MPI_BYTE, left, T_READY, MPI_COMM_WORLD, &rdy), MPI_SUCCESS);
        CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, right, T_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rdy, MPI_STATUS_IGNORE), MPI_SUCCESS);
        if (r % 2) {
            CHECK_RC(MPI_Startall(4, sq), MPI_SUCCESS);
        } else {
            for (int m = 3; m >= 0; m--)
                CHECK_RC(MPI_Start(&sq[m]), MPI_SUCCESS);
        }
        if (r == 2) { /* completion by polling */
            flag = 0;
            while (!flag)
                CHECK_RC(MPI_Testall(4, rq, &flag, st), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Waitall(4, rq, st), MPI_SUCCESS);
        }
        CHECK_RC(MPI_Waitall(4, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        for (int m = 0; m < 4; m++) {
            CHECK(rq[m] != MPI_REQUEST_NULL && sq[m] != MPI_REQUEST_NULL);
            CHECK(st[m].MPI_SOURCE == left && st[m].MPI_TAG == T_P + m);
            CHECK_RC(MPI_Get_count(&st[m], MPI_BYTE, &count), MPI_SUCCESS);
            CHECK(count == N);
            CHECK(p2p_verify(rb[m], N, p2p_seed(left, (size_t)m, r)) == -1);
            CHECK(p2p_untouched(rb[m] + N, 8, 0xee) == -1);
        }
        /* completed requests are inactive again */
        CHECK_RC(MPI_Wait(&rq[1], &st[1]), MPI_SUCCESS);
        CHECK_EMPTY_STATUS(st[1]);
    }
    for (int m = 0; m < 4; m++) {
        CHECK_RC(MPI_Request_free(&sq[m]), MPI_SUCCESS);
        CHECK_RC(MPI_Request_free(&rq[m]), MPI_SUCCESS);
        CHECK(sq[m] == MPI_REQUEST_NULL && rq[m] == MPI_REQUEST_NULL);
    }

    /* a persistent send freed while active is still delivered */
    int v = rank + 7, w = -1;
    MPI_Request p;
    CHECK_RC(MPI_Send_init(&v, 1, MPI_INT, right, T_P, MPI_COMM_WORLD, &p), MPI_SUCCESS);
    CHECK_RC(MPI_Start(&p), MPI_SUCCESS);
    CHECK_RC(MPI_Request_free(&p), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(&w, 1, MPI_INT, left, T_P, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(w == left + 7);

    /* MPI_PROC_NULL, restarted */
    MPI_Request pn[2];
    CHECK_RC(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, T_P, MPI_COMM_WORLD, &pn[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Recv_init(&w, 1, MPI_INT, MPI_PROC_NULL, T_P, MPI_COMM_WORLD, &pn[1]), MPI_SUCCESS);
    for (int r = 0; r < 3; r++) {
        w = 123;
        CHECK_RC(MPI_Startall(2, pn), MPI_SUCCESS);
        CHECK_RC(MPI_Waitall(2, pn, st), MPI_SUCCESS);
        CHECK_PROC_NULL_STATUS_NB(st[1]);
        CHECK(w == 123);
    }
    CHECK_RC(MPI_Request_free(&pn[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Request_free(&pn[1]), MPI_SUCCESS);

    void *addr;
    CHECK_RC(MPI_Buffer_detach(&addr, &bsize), MPI_SUCCESS);
    CHECK(addr == bbuf);
    free(bbuf);
    p2p_finish("persistent");
    return 0;
}
