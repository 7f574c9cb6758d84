/* The four send modes, blocking and nonblocking (MPI_Send, Bsend, Ssend, Rsend, Isend,
 * Ibsend, Issend, Irsend) against MPI_Recv and MPI_Irecv, around a ring (to self with one
 * rank), for sizes from 0 bytes to 1 MiB. Ready sends only start after the receiver has told
 * the sender that its receive is posted. */
#include "p2p.h"

enum { TAG_DATA = 10, TAG_READY = 11, MAXN = 1 << 20 };
static const size_t sizes[] = {0, 1, 100, 4000, 70000, MAXN};
#define NSIZES (sizeof sizes / sizeof sizes[0])

enum mode { M_SEND, M_BSEND, M_SSEND, M_RSEND, NMODES };

static int right, left;
static unsigned char *sbuf, *rbuf;

static int do_send(enum mode m, int nonblocking, size_t n, MPI_Request *req)
{
    int c = (int)n;
    if (!nonblocking) {
        *req = MPI_REQUEST_NULL;
        switch (m) {
        case M_SEND: return MPI_Send(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD);
        case M_BSEND: return MPI_Bsend(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD);
        case M_SSEND: return MPI_Ssend(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD);
        default: return MPI_Rsend(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD);
        }
    }
    switch (m) {
    case M_SEND: return MPI_Isend(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD, req);
    case M_BSEND: return MPI_Ibsend(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD, req);
    case M_SSEND: return MPI_Issend(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD, req);
    default: return MPI_Irsend(sbuf, c, MPI_BYTE, right, TAG_DATA, MPI_COMM_WORLD, req);
    }
}

static void check_received(const MPI_Status *st, size_t n, int round)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == left && st->MPI_TAG == TAG_DATA);
    CHECK_RC(MPI_Get_count(st, MPI_BYTE, &count), MPI_SUCCESS);
    CHECK(count == (int)n);
    CHECK(p2p_verify(rbuf, n, p2p_seed(left, n, round)) == -1);
    CHECK(p2p_untouched(rbuf + n, 16, 0xee) == -1); /* the larger receive buffer's tail */
}

/* Receive posted first (MPI_Irecv), then the send, then MPI_Wait on both. Every mode may be
 * used this way, with a ring or to self. Ready mode: the receiver tells its sender. */
static void posted_first(enum mode m, int nonblocking, size_t n, int round)
{
    MPI_Request rreq, sreq;
    MPI_Status st;
    memset(rbuf, 0xee, n + 16);
    p2p_fill(sbuf, n, p2p_seed(p2p_rank, n, round));
    CHECK_RC(MPI_Irecv(rbuf, (int)n + 16, MPI_BYTE, left, TAG_DATA, MPI_COMM_WORLD, &rreq),
             MPI_SUCCESS);
    if (m == M_RSEND) {
        MPI_Request rdy;
        CHECK_RC(MPI_Isend(NULL, 0, MPI_BYTE, left, TAG_READY, MPI_COMM_WORLD, &rdy), MPI_SUCCESS);
        CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, right, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rdy, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    CHECK_RC(do_send(m, nonblocking, n, &sreq), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&rreq, &st), MPI_SUCCESS);
    CHECK(rreq == MPI_REQUEST_NULL);
    CHECK_RC(MPI_Wait(&sreq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(sreq == MPI_REQUEST_NULL);
    check_received(&st, n, round);
}

/* Nonblocking send first, then a blocking MPI_Recv (not for ready mode, whose receive must
 * come first). Works to self as well. */
static void isend_then_recv(enum mode m, size_t n, int round)
{
    MPI_Request sreq;
    MPI_Status st;
    memset(rbuf, 0xee, n + 16);
    p2p_fill(sbuf, n, p2p_seed(p2p_rank, n, round));
    CHECK_RC(do_send(m, 1, n, &sreq), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(rbuf, (int)n + 16, MPI_BYTE, left, TAG_DATA, MPI_COMM_WORLD, &st),
             MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&sreq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_received(&st, n, round);
}

/* Blocking send and blocking receive, even ranks sending first (a chain that resolves at odd
 * sizes too: rank 0 is never waiting for the last rank when it sends). Needs 2 ranks. */
static void blocking_both(enum mode m, size_t n, int round)
{
    MPI_Request none;
    MPI_Status st;
    memset(rbuf, 0xee, n + 16);
    p2p_fill(sbuf, n, p2p_seed(p2p_rank, n, round));
    if (p2p_rank % 2 == 0) {
        CHECK_RC(do_send(m, 0, n, &none), MPI_SUCCESS);
        CHECK_RC(MPI_Recv(rbuf, (int)n + 16, MPI_BYTE, left, TAG_DATA, MPI_COMM_WORLD, &st),
                 MPI_SUCCESS);
    } else {
        CHECK_RC(MPI_Recv(rbuf, (int)n + 16, MPI_BYTE, left, TAG_DATA, MPI_COMM_WORLD, &st),
                 MPI_SUCCESS);
        CHECK_RC(do_send(m, 0, n, &none), MPI_SUCCESS);
    }
    check_received(&st, n, round);
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    right = (p2p_rank + 1) % p2p_size;
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    sbuf = malloc(MAXN + 16);
    rbuf = malloc(MAXN + 16);
    CHECK(sbuf && rbuf);
    /* Room for every buffered send of the run at once: the space of a buffered message is
     * only known to be free again when MPI_Buffer_detach returns. */
    int bsize = 0;
    for (size_t k = 0; k < NSIZES; k++)
        bsize += 4 * ((int)sizes[k] + MPI_BSEND_OVERHEAD);
    void *bbuf = malloc((size_t)bsize);
    CHECK(bbuf);
    CHECK_RC(MPI_Buffer_attach(bbuf, bsize), MPI_SUCCESS);

    int round = 0;
    for (int m = 0; m < NMODES; m++)
        for (size_t k = 0; k < NSIZES; k++) {
            size_t n = sizes[k];
            posted_first((enum mode)m, 0, n, ++round);
            posted_first((enum mode)m, 1, n, ++round);
            if (m != M_RSEND)
                isend_then_recv((enum mode)m, n, ++round);
            if (m != M_RSEND && p2p_size > 1)
                blocking_both((enum mode)m, n, ++round);
        }

    void *addr = NULL;
    int got = -1;
    CHECK_RC(MPI_Buffer_detach(&addr, &got), MPI_SUCCESS);
    CHECK(addr == bbuf && got == bsize);
    free(bbuf);
    free(sbuf);
    free(rbuf);
    p2p_finish("modes");
    return 0;
}
