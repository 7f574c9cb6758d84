/* Synchronous-send semantics: MPI_Issend does not complete, and MPI_Ssend does not return,
 * before the matching receive has been posted; sizes 0, 8 bytes and 1 MiB so that eager and
 * rendezvous paths are both covered. Ranks pair up (0-1, 2-3, ...); an unpaired rank (and the
 * only rank at np 1) works with itself.
 *
 * Both checks are causal, with no timing that an overloaded host could break: the Issend
 * check's receiver does not post its receive until it gets a message that the sender only
 * sends after having seen its Issend incomplete many times. For Ssend, the sender reports
 * "done" as soon as its MPI_Ssend returns; the receiver looks for that report for DELAY ms
 * before it posts its receive, and finding it means MPI_Ssend returned unmatched. (On a slow
 * host the report may come too late to be seen: the check can then miss a fault, never
 * invent one.) */
#include "p2p.h"

enum { TAG_DATA = 1, TAG_NOW = 2, TAG_GO = 3, TAG_DONE = 4, DELAY_MS = 250, BIG = 1 << 20 };
static const int sizes[] = {0, 8, BIG};

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size;
    int partner = rank ^ 1;
    if (partner >= size)
        partner = rank;
    int sender = rank <= partner; /* with itself, a rank is both */
    unsigned char *sbuf = malloc(BIG), *rbuf = malloc(BIG);
    CHECK(sbuf && rbuf);

    for (int k = 0; k < 3; k++) {
        int n = sizes[k];
        MPI_Request sreq = MPI_REQUEST_NULL, rreq = MPI_REQUEST_NULL, nreq = MPI_REQUEST_NULL;
        MPI_Status st;
        int flag = 1;

        /* Issend: incomplete until the receiver is told to post */
        if (sender) {
            p2p_fill(sbuf, (size_t)n, p2p_seed(rank, (size_t)n, k));
            CHECK_RC(MPI_Issend(sbuf, n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &sreq),
                     MPI_SUCCESS);
            for (int i = 0; i < 20; i++) {
                CHECK_RC(MPI_Test(&sreq, &flag, &st), MPI_SUCCESS);
                CHECK(!flag && sreq != MPI_REQUEST_NULL);
                p2p_sleep_ms(2);
            }
            /* MPI_Request_get_status does not complete it either */
            CHECK_RC(MPI_Request_get_status(sreq, &flag, &st), MPI_SUCCESS);
            CHECK(!flag);
            /* nonblocking: a standard send may wait for its receive, which comes next with
             * itself as partner */
            CHECK_RC(MPI_Isend(NULL, 0, MPI_BYTE, partner, TAG_NOW, MPI_COMM_WORLD, &nreq),
                     MPI_SUCCESS);
        }
        if (rank >= partner) { /* the receiver, also with itself */
            CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_NOW, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
            memset(rbuf, 0, BIG);
            CHECK_RC(MPI_Irecv(rbuf, BIG, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &rreq),
                     MPI_SUCCESS);
        }
        if (sender) {
            CHECK_RC(MPI_Wait(&nreq, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&sreq, &st), MPI_SUCCESS);
            CHECK(sreq == MPI_REQUEST_NULL);
        }
        if (rank >= partner) {
            CHECK_RC(MPI_Wait(&rreq, &st), MPI_SUCCESS);
            int count = -1;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == n && st.MPI_SOURCE == partner && st.MPI_TAG == TAG_DATA);
            CHECK(p2p_verify(rbuf, (size_t)n, p2p_seed(partner, (size_t)n, k)) == -1);
        }

        /* Ssend: takes as long as the receiver delays its receive (needs a partner) */
        if (partner == rank)
            continue;
        if (sender) {
            CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_GO, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK_RC(MPI_Ssend(sbuf, n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD),
                     MPI_SUCCESS);
            CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD),
                     MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_GO, MPI_COMM_WORLD), MPI_SUCCESS);
            for (int waited = 0; waited < DELAY_MS; waited += 5) {
                CHECK_RC(MPI_Iprobe(partner, TAG_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
                if (flag)
                    fprintf(stderr, "rank %d: MPI_Ssend of %d bytes returned before its "
                            "receive was posted\n", partner, n);
                CHECK(!flag);
                p2p_sleep_ms(5);
            }
            CHECK_RC(MPI_Recv(rbuf, BIG, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &st),
                     MPI_SUCCESS);
            CHECK(p2p_verify(rbuf, (size_t)n, p2p_seed(partner, (size_t)n, k)) == -1);
            CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD,
                              MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
    }
    free(sbuf);
    free(rbuf);
    p2p_finish("ssend");
    return 0;
}
