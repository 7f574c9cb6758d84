/* Statuses: MPI_Get_count, Get_elements, Get_elements_x for several types, MPI_UNDEFINED when
 * the byte count is no multiple of the type (or exceeds an int), MPI_Status_set_elements and
 * _x, MPI_Test_cancelled false for normal receives; MPI_PROC_NULL statuses from every kind of
 * receive; MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE; truncation (MPI_ERR_TRUNCATE) from Recv,
 * Wait, Waitany, small and 1 MiB messages, bytes beyond the receive buffer untouched, and
 * MPI_ERR_IN_STATUS with per-request MPI_ERROR fields from Waitall, Testall and Waitsome.
 * Messages go to self (with Isend) and around a ring. */
#include "p2p.h"

#include <limits.h>

enum { T_C = 110, T_TR = 111, T_MULTI = 112, BIG = 1 << 20 };

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, n, flag;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    MPI_Count nx;
    MPI_Request sq, rq;
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);

    /* 12 doubles = 96 bytes, around the ring */
    double d[12], e[20];
    for (int i = 0; i < 12; i++)
        d[i] = rank + i * 0.5;
    CHECK_RC(MPI_Isend(d, 12, MPI_DOUBLE, right, T_C, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(e, 20, MPI_DOUBLE, left, T_C, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(e[11] == left + 5.5);
    CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &n), MPI_SUCCESS);
    CHECK(n == 12);
    CHECK_RC(MPI_Get_count(&st, MPI_INT, &n), MPI_SUCCESS);
    CHECK(n == 24);
    CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &n), MPI_SUCCESS);
    CHECK(n == 96);
    CHECK_RC(MPI_Get_count(&st, MPI_LONG_DOUBLE, &n), MPI_SUCCESS); /* 96 / 16 */
    CHECK(n == (96 % (int)sizeof(long double) ? MPI_UNDEFINED : 96 / (int)sizeof(long double)));
    CHECK_RC(MPI_Get_elements(&st, MPI_DOUBLE, &n), MPI_SUCCESS);
    CHECK(n == 12);
    CHECK_RC(MPI_Get_elements(&st, MPI_SHORT, &n), MPI_SUCCESS);
    CHECK(n == 48);
    CHECK_RC(MPI_Get_elements_x(&st, MPI_DOUBLE, &nx), MPI_SUCCESS);
    CHECK(nx == 12);
    CHECK_RC(MPI_Get_elements_x(&st, MPI_CHAR, &nx), MPI_SUCCESS);
    CHECK(nx == 96);
    CHECK_RC(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(!flag);

    /* 3 bytes: no whole number of shorts or ints */
    char three[3] = {1, 2, 3}, r3[8];
    CHECK_RC(MPI_Isend(three, 3, MPI_CHAR, rank, T_C, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(r3, 8, MPI_CHAR, rank, T_C, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&st, MPI_SHORT, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Get_elements(&st, MPI_INT, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Get_elements_x(&st, MPI_INT, &nx), MPI_SUCCESS);
    CHECK(nx == MPI_UNDEFINED);
    CHECK_RC(MPI_Get_count(&st, MPI_CHAR, &n), MPI_SUCCESS);
    CHECK(n == 3);

    /* 0 bytes */
    CHECK_RC(MPI_Isend(NULL, 0, MPI_INT, rank, T_C, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(r3, 2, MPI_INT, rank, T_C, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&st, MPI_DOUBLE, &n), MPI_SUCCESS);
    CHECK(n == 0);
    CHECK_RC(MPI_Get_elements_x(&st, MPI_INT, &nx), MPI_SUCCESS);
    CHECK(nx == 0);

    /* MPI_Status_set_elements and _x */
    MPI_Status s2;
    CHECK_RC(MPI_Status_set_elements(&s2, MPI_INT, 5), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&s2, MPI_INT, &n), MPI_SUCCESS);
    CHECK(n == 5);
    CHECK_RC(MPI_Get_count(&s2, MPI_BYTE, &n), MPI_SUCCESS);
    CHECK(n == 20);
    CHECK_RC(MPI_Get_elements_x(&s2, MPI_SHORT, &nx), MPI_SUCCESS);
    CHECK(nx == 10);
    CHECK_RC(MPI_Get_count(&s2, MPI_DOUBLE, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Status_set_elements_x(&s2, MPI_DOUBLE, (MPI_Count)7), MPI_SUCCESS);
    CHECK_RC(MPI_Get_elements(&s2, MPI_DOUBLE, &n), MPI_SUCCESS);
    CHECK(n == 7);
    CHECK_RC(MPI_Get_count(&s2, MPI_INT, &n), MPI_SUCCESS);
    CHECK(n == 14);
    /* beyond an int: Get_count/Get_elements say MPI_UNDEFINED, Get_elements_x the value */
    MPI_Count huge = (MPI_Count)INT_MAX + 1000;
    CHECK_RC(MPI_Status_set_elements_x(&s2, MPI_BYTE, huge), MPI_SUCCESS);
    CHECK_RC(MPI_Get_elements_x(&s2, MPI_BYTE, &nx), MPI_SUCCESS);
    CHECK(nx == huge);
    CHECK_RC(MPI_Get_count(&s2, MPI_BYTE, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Get_elements(&s2, MPI_BYTE, &n), MPI_SUCCESS);
    CHECK(n == MPI_UNDEFINED);
    CHECK_RC(MPI_Status_set_elements_x(&s2, MPI_INT, (MPI_Count)600000000), MPI_SUCCESS);
    CHECK_RC(MPI_Get_count(&s2, MPI_INT, &n), MPI_SUCCESS);
    CHECK(n == 600000000);
    CHECK_RC(MPI_Get_elements_x(&s2, MPI_BYTE, &nx), MPI_SUCCESS);
    CHECK(nx == (MPI_Count)2400000000LL);

    /* MPI_PROC_NULL from Recv, Irecv+Wait, Irecv+Test, Sendrecv, Probe */
    int x = 42;
    st.MPI_SOURCE = 5;
    CHECK_RC(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK(x == 42);
    CHECK_PROC_NULL_STATUS(st);
    CHECK_RC(MPI_Get_elements_x(&st, MPI_INT, &nx), MPI_SUCCESS);
    CHECK(nx == 0);
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
    CHECK_PROC_NULL_STATUS_NB(st);
    CHECK_RC(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
    flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(&rq, &flag, &st), MPI_SUCCESS);
    CHECK_PROC_NULL_STATUS_NB(st);
    CHECK(x == 42);
    CHECK_RC(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Ssend(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Rsend(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD), MPI_SUCCESS);

    /* truncation: small and large, blocking and nonblocking; the guard beyond the receive
     * buffer is never written */
    unsigned char *sb = malloc(BIG), *rb = malloc(BIG);
    CHECK(sb && rb);
    for (int k = 0; k < 4; k++) {
        int len = (k & 1) ? BIG : 40, cap = (k & 1) ? 1000 : 16;
        p2p_fill(sb, (size_t)len, 5);
        memset(rb, 0xee, (size_t)cap + 64);
        CHECK_RC(MPI_Isend(sb, len, MPI_BYTE, right, T_TR, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
        if (k < 2) {
            CHECK_ERR(MPI_Recv(rb, cap, MPI_BYTE, left, T_TR, MPI_COMM_WORLD, &st),
                      MPI_ERR_TRUNCATE);
        } else {
            CHECK_RC(MPI_Irecv(rb, cap, MPI_BYTE, left, T_TR, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
            CHECK_ERR(MPI_Wait(&rq, &st), MPI_ERR_TRUNCATE);
            CHECK(rq == MPI_REQUEST_NULL);
        }
        CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_TR);
        CHECK(p2p_untouched(rb + cap, 64, 0xee) == -1);
        CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    /* Waitany reports the truncation as its own return code */
    MPI_Request one[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int idx = -1;
    CHECK_RC(MPI_Irecv(rb, 4, MPI_BYTE, left, T_TR, MPI_COMM_WORLD, &one[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(sb, 8, MPI_BYTE, right, T_TR, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_ERR(MPI_Waitany(2, one, &idx, &st), MPI_ERR_TRUNCATE);
    CHECK(idx == 1 && one[1] == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);

    /* multiple completion: MPI_ERR_IN_STATUS, the failed entry's MPI_ERROR has class
     * MPI_ERR_TRUNCATE, the others MPI_SUCCESS. Three messages from left: 4, 400, 4 bytes
     * into buffers of 8, 100, 8 bytes; by Waitall, polling Testall, and Waitsome. */
    for (int how = 0; how < 3; how++) {
        static const int lens[3] = {4, 400, 4}, caps[3] = {8, 100, 8};
        MPI_Request rr[3], ss[3];
        MPI_Status sts[3];
        unsigned char bufs[3][100];
        for (int i = 0; i < 3; i++) {
            sts[i].MPI_ERROR = -1;
            CHECK_RC(MPI_Irecv(bufs[i], caps[i], MPI_BYTE, left, T_MULTI, MPI_COMM_WORLD, &rr[i]),
                     MPI_SUCCESS);
        }
        for (int i = 0; i < 3; i++)
            CHECK_RC(MPI_Isend(sb, lens[i], MPI_BYTE, right, T_MULTI, MPI_COMM_WORLD, &ss[i]),
                     MPI_SUCCESS);
        if (how == 0) {
            CHECK_ERR(MPI_Waitall(3, rr, sts), MPI_ERR_IN_STATUS);
        } else if (how == 1) {
            int rc;
            flag = 0;
            while ((rc = MPI_Testall(3, rr, &flag, sts)) == MPI_SUCCESS && !flag)
                ;
            /* flag is not checked: MPICH returns MPI_ERR_IN_STATUS with flag false as soon
             * as one request failed, the rest MPI_ERR_PENDING; the standard only says
             * errors are reported as by MPI_Waitall */
            CHECK(p2p_class(rc) == MPI_ERR_IN_STATUS);
        } else {
            int out = 0, got = 0, ids[3], rc;
            MPI_Status part[3];
            while (got < 3) {
                rc = MPI_Waitsome(3, rr, &out, ids, part);
                CHECK(rc == MPI_SUCCESS || p2p_class(rc) == MPI_ERR_IN_STATUS);
                CHECK(out >= 1);
                for (int j = 0; j < out; j++) {
                    /* with MPI_ERR_IN_STATUS every reported entry's MPI_ERROR is set */
                    if (rc == MPI_SUCCESS)
                        part[j].MPI_ERROR = MPI_SUCCESS;
                    sts[ids[j]] = part[j];
                }
                got += out;
            }
        }
        /* An entry neither failed nor completed may be left active with MPI_ERR_PENDING
         * (MPICH stops at the failed entry); it completes normally later. */
        for (int i = 0; i < 3; i++) {
            if (i != 1 && p2p_class(sts[i].MPI_ERROR) == MPI_ERR_PENDING) {
                CHECK(rr[i] != MPI_REQUEST_NULL);
                CHECK_RC(MPI_Wait(&rr[i], &sts[i]), MPI_SUCCESS);
                sts[i].MPI_ERROR = MPI_SUCCESS;
            }
            CHECK(rr[i] == MPI_REQUEST_NULL);
            CHECK(sts[i].MPI_SOURCE == left && sts[i].MPI_TAG == T_MULTI);
            if (i == 1)
                CHECK(p2p_class(sts[i].MPI_ERROR) == MPI_ERR_TRUNCATE);
            else
                CHECK(sts[i].MPI_ERROR == MPI_SUCCESS);
        }
        CHECK_RC(MPI_Waitall(3, ss, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    }

    /* MPI_STATUS_IGNORE with every single-status call */
    int xr = 0;
    CHECK_RC(MPI_Isend(&x, 1, MPI_INT, rank, T_C, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_RC(MPI_Probe(rank, T_C, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Iprobe(rank, T_C, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(flag);
    CHECK_RC(MPI_Irecv(&xr, 1, MPI_INT, rank, T_C, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
    flag = 0;
    while (!flag)
        CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(xr == x);

    free(sb);
    free(rb);
    p2p_finish("status");
    return 0;
}
