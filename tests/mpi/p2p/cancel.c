/* MPI_Cancel and MPI_Test_cancelled. A receive that cannot match is cancelled (Wait
 * completes, Test_cancelled true); a completed receive or a received send is not; a started
 * persistent receive can be cancelled and restarted. A send nobody receives yet (Issend,
 * Isend, Ibsend and a persistent send, small and 1 MiB) may or may not be cancellable, but the outcome must be consistent:
 * if Test_cancelled says so the receiver never gets it, otherwise it does. Around a ring.
 * Sends to self: the cancel is decided within MPI_Cancel, in every send mode. */
#include "p2p.h"

enum { T_NEVER = 70, T_DONE = 71, T_SEND = 72, T_CTL = 73, T_PERS = 74, BIG = 1 << 20 };

enum { T_SELF = 123 };

static void self_sends(int rank)
{
    static unsigned char sb[BIG], rb[BIG];
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_SELF, &dup), MPI_SUCCESS);
    for (int c = 0; c < 2; c++) {
        MPI_Comm comm = c ? MPI_COMM_WORLD : dup;
        int me = c ? rank : 0;
        for (int k = 0; k < 10; k++) {
            int mode = k % 5, n = k < 5 ? 8 : BIG, flag = 0, cancelled = -1, count = -1;
            MPI_Request sq, rq = MPI_REQUEST_NULL;
            MPI_Status st;
            p2p_fill(sb, (size_t)n, p2p_seed(rank, (size_t)n, k));
            if (mode == 3) /* ready mode needs the receive first: matched at once */
                CHECK_RC(MPI_Irecv(rb, BIG, MPI_BYTE, me, T_SELF, comm, &rq), MPI_SUCCESS);
            switch (mode) {
            case 0: CHECK_RC(MPI_Issend(sb, n, MPI_BYTE, me, T_SELF, comm, &sq), MPI_SUCCESS); break;
            case 1: CHECK_RC(MPI_Isend(sb, n, MPI_BYTE, me, T_SELF, comm, &sq), MPI_SUCCESS); break;
            case 2: {
                int size = 0;
                CHECK_RC(MPI_Pack_size(n, MPI_BYTE, comm, &size), MPI_SUCCESS);
                static unsigned char bbuf[BIG + 2 * MPI_BSEND_OVERHEAD];
                CHECK_RC(MPI_Buffer_attach(bbuf, (int)sizeof bbuf), MPI_SUCCESS);
                CHECK_RC(MPI_Ibsend(sb, n, MPI_BYTE, me, T_SELF, comm, &sq), MPI_SUCCESS);
                break;
            }
            case 3: CHECK_RC(MPI_Irsend(sb, n, MPI_BYTE, me, T_SELF, comm, &sq), MPI_SUCCESS); break;
            default: CHECK_RC(MPI_Send_init(sb, n, MPI_BYTE, me, T_SELF, comm, &sq), MPI_SUCCESS);
                     CHECK_RC(MPI_Start(&sq), MPI_SUCCESS); break;
            }
            if (mode != 3)
                CHECK_RC(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st), MPI_SUCCESS);
            CHECK_RC(MPI_Cancel(&sq), MPI_SUCCESS);
            CHECK_RC(MPI_Request_get_status(sq, &flag, &st), MPI_SUCCESS);
            CHECK(flag);
            CHECK_RC(MPI_Test_cancelled(&st, &cancelled), MPI_SUCCESS);
            if (mode == 3) {
                CHECK(!cancelled);
            } else if (!cancelled) {
                CHECK_RC(MPI_Irecv(rb, BIG, MPI_BYTE, me, T_SELF, comm, &rq), MPI_SUCCESS);
            } else { /* withdrawn: nothing left to receive */
                flag = 1;
                CHECK_RC(MPI_Iprobe(me, T_SELF, comm, &flag, &st), MPI_SUCCESS);
                CHECK(!flag);
            }
            if (rq != MPI_REQUEST_NULL) {
                CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
                CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
                CHECK(count == n && p2p_verify(rb, (size_t)n, p2p_seed(rank, (size_t)n, k)) == -1);
            }
            CHECK_RC(MPI_Wait(&sq, &st), MPI_SUCCESS);
            if (mode == 4)
                CHECK_RC(MPI_Request_free(&sq), MPI_SUCCESS);
            if (mode == 2) {
                void *b;
                int bs;
                CHECK_RC(MPI_Buffer_detach(&b, &bs), MPI_SUCCESS);
            }
            /* a send matched by its receive before the cancel is not cancelled */
            CHECK_RC(MPI_Issend(sb, n, MPI_BYTE, me, T_SELF, comm, &sq), MPI_SUCCESS);
            CHECK_RC(MPI_Recv(rb, BIG, MPI_BYTE, me, T_SELF, comm, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK_RC(MPI_Cancel(&sq), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&sq, &st), MPI_SUCCESS);
            CHECK_RC(MPI_Test_cancelled(&st, &cancelled), MPI_SUCCESS);
            CHECK(!cancelled);
        }
    }
    CHECK_RC(MPI_Comm_free(&dup), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, flag;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request rq, sq;
    MPI_Status st;
    int buf[4];

    /* receives that cannot match: from left, from anyone; completed by Wait or by Test */
    for (int k = 0; k < 3; k++) {
        CHECK_RC(MPI_Irecv(buf, 4, MPI_INT, k == 1 ? MPI_ANY_SOURCE : left, T_NEVER,
                           MPI_COMM_WORLD, &rq), MPI_SUCCESS);
        CHECK_RC(MPI_Cancel(&rq), MPI_SUCCESS);
        CHECK(rq != MPI_REQUEST_NULL);
        if (k < 2) {
            CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
        } else {
            flag = 0;
            while (!flag)
                CHECK_RC(MPI_Test(&rq, &flag, &st), MPI_SUCCESS);
        }
        CHECK(rq == MPI_REQUEST_NULL);
        flag = 0;
        CHECK_RC(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
        CHECK(flag);
    }

    /* a receive that has completed is not cancelled by a late MPI_Cancel */
    int v = rank + 100, w = -1;
    CHECK_RC(MPI_Irecv(&w, 1, MPI_INT, left, T_DONE, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, right, T_DONE, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    do
        CHECK_RC(MPI_Request_get_status(rq, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    while (!flag);
    CHECK_RC(MPI_Cancel(&rq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(!flag && w == left + 100 && st.MPI_SOURCE == left);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);

    /* a send to self that has been received is not cancelled */
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, rank, T_DONE, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(&w, 1, MPI_INT, rank, T_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK(w == v);
    CHECK_RC(MPI_Cancel(&sq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&sq, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(!flag);

    /* Sends to self in every mode (small and 1 MiB), on a dup of MPI_COMM_SELF and on
     * MPI_COMM_WORLD, probed first as mpi4py's testProbeCancel does: our own progress decides
     * a cancel to self at once, so MPI_Request_get_status right after MPI_Cancel is final —
     * either cancelled (and no message is left to receive) or not (and the receive gets it). */
    self_sends(rank);

    /* a persistent receive: started, cancelled, restarted, then matched. The sender waits for
     * its receiver's word that the cancel is through before it sends. */
    CHECK_RC(MPI_Recv_init(&w, 1, MPI_INT, left, T_PERS, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
    CHECK_RC(MPI_Start(&rq), MPI_SUCCESS);
    CHECK_RC(MPI_Cancel(&rq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
    CHECK(rq != MPI_REQUEST_NULL); /* persistent: inactive, not freed */
    CHECK_RC(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(flag);
    w = -1;
    CHECK_RC(MPI_Start(&rq), MPI_SUCCESS);
    MPI_Request go;
    CHECK_RC(MPI_Isend(NULL, 0, MPI_BYTE, left, T_CTL, MPI_COMM_WORLD, &go), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, right, T_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
             MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&go, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(&v, 1, MPI_INT, right, T_PERS, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
    CHECK_RC(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(!flag && w == left + 100 && st.MPI_SOURCE == left && st.MPI_TAG == T_PERS);
    CHECK_RC(MPI_Request_free(&rq), MPI_SUCCESS);
    CHECK(rq == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Wait(&sq, MPI_STATUS_IGNORE), MPI_SUCCESS);

    /* Sends that nobody has received yet: cancelled or delivered, never both or neither.
     * Right after the cancel attempt the sender sends a sentinel with the same envelope,
     * which by non-overtaking comes after the original if that is delivered. The receiver
     * takes the first message: the sentinel iff the original was cancelled, which the sender
     * reports after MPI_Wait. (MPICH and Open MPI cannot cancel sends, and their MPI_Wait
     * after MPI_Cancel then waits for the receive, against MPI-3.1 3.8.4 "MPI_WAIT behaves
     * as a local function"; hence everything is sent and received before MPI_Wait.) */
    unsigned char *sb = malloc(BIG), *rb = malloc(BIG);
    CHECK(sb && rb);
    int ncancelled = 0;
    static unsigned char bbuf[BIG + MPI_BSEND_OVERHEAD];
    for (int k = 0; k < 8; k++) {
        /* k/2: synchronous, standard, buffered, persistent standard; k odd: 1 MiB */
        int n = (k & 1) ? BIG : 8, mode = k / 2, count = -1;
        /* bytes, as received: an int would arrive in its sender's byte order */
        static const unsigned char sentinel[4] = { 0xc7, 0xcf, 0xff, 0xff };
        MPI_Request tq, cq;
        p2p_fill(sb, (size_t)n, p2p_seed(rank, (size_t)n, k));
        if (mode == 0)
            CHECK_RC(MPI_Issend(sb, n, MPI_BYTE, right, T_SEND, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
        else if (mode == 1)
            CHECK_RC(MPI_Isend(sb, n, MPI_BYTE, right, T_SEND, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
        else if (mode == 2) {
            CHECK_RC(MPI_Buffer_attach(bbuf, (int)sizeof bbuf), MPI_SUCCESS);
            CHECK_RC(MPI_Ibsend(sb, n, MPI_BYTE, right, T_SEND, MPI_COMM_WORLD, &sq), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Send_init(sb, n, MPI_BYTE, right, T_SEND, MPI_COMM_WORLD, &sq),
                     MPI_SUCCESS);
            CHECK_RC(MPI_Start(&sq), MPI_SUCCESS);
        }
        CHECK_RC(MPI_Cancel(&sq), MPI_SUCCESS);
        CHECK_RC(MPI_Isend(sentinel, (int)sizeof sentinel, MPI_BYTE, right, T_SEND, MPI_COMM_WORLD, &tq), MPI_SUCCESS);

        CHECK_RC(MPI_Recv(rb, BIG, MPI_BYTE, left, T_SEND, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        int got_original = count == n;
        if (got_original) {
            CHECK(p2p_verify(rb, (size_t)n, p2p_seed(left, (size_t)n, k)) == -1);
            CHECK_RC(MPI_Recv(rb, BIG, MPI_BYTE, left, T_SEND, MPI_COMM_WORLD, &st), MPI_SUCCESS);
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        }
        CHECK(count == (int)sizeof sentinel && memcmp(rb, sentinel, sizeof sentinel) == 0);

        int cancelled = -1, theirs = -1;
        CHECK_RC(MPI_Wait(&sq, &st), MPI_SUCCESS);
        CHECK_RC(MPI_Test_cancelled(&st, &cancelled), MPI_SUCCESS);
        ncancelled += cancelled != 0;
        if (mode == 2) {
            void *b;
            int bs;
            CHECK_RC(MPI_Buffer_detach(&b, &bs), MPI_SUCCESS);
        } else if (mode == 3) {
            CHECK_RC(MPI_Request_free(&sq), MPI_SUCCESS);
        }
        CHECK_RC(MPI_Isend(&cancelled, 1, MPI_INT, right, T_CTL, MPI_COMM_WORLD, &cq), MPI_SUCCESS);
        CHECK_RC(MPI_Recv(&theirs, 1, MPI_INT, left, T_CTL, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK((theirs != 0) == !got_original);
        CHECK_RC(MPI_Wait(&cq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&tq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    if (rank == 0)
        printf("cancel: %d of 8 sends cancelled on rank 0\n", ncancelled);

    /* statuses of receives from MPI_PROC_NULL are not cancelled */
    CHECK_RC(MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    flag = 1;
    CHECK_RC(MPI_Test_cancelled(&st, &flag), MPI_SUCCESS);
    CHECK(!flag);

    free(sb);
    free(rb);
    p2p_finish("cancel");
    return 0;
}
