/* Buffered mode: MPI_Buffer_attach/detach, MPI_Bsend and MPI_Ibsend. A buffer of
 * sum(size + MPI_BSEND_OVERHEAD) holds that many messages, Bsend completes without any
 * receive posted, detach returns the attached address and size and waits until the buffered
 * messages are delivered, a detached buffer may be reattached or replaced, a buffer too
 * small (or none) gives MPI_ERR_BUFFER under MPI_ERRORS_RETURN. Around a ring. */
#include "p2p.h"

enum { K = 8, T_B = 90, T_I = 91, T_DONE = 92, BIG = 300000 };

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size, count;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK(MPI_BSEND_OVERHEAD >= 0);
    CHECK_RC(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    static const int sizes[K] = {0, 1, 10, 100, 1000, 10000, 100000, BIG};
    unsigned char *sb = malloc(BIG), *rb = malloc(BIG + 1);
    CHECK(sb && rb);

    /* exactly sum(size + MPI_BSEND_OVERHEAD) for the K messages */
    int bsize = 0;
    for (int k = 0; k < K; k++)
        bsize += sizes[k] + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)bsize);
    CHECK(bbuf);
    for (int rep = 0; rep < 2; rep++) {
        CHECK_RC(MPI_Buffer_attach(bbuf, bsize), MPI_SUCCESS);
        /* all K go out before anything is received; the send buffer is overwritten at once
         * after each Bsend, as its data are in the attached buffer */
        for (int k = 0; k < K; k++) {
            p2p_fill(sb, (size_t)sizes[k], p2p_seed(rank, (size_t)sizes[k], rep));
            CHECK_RC(MPI_Bsend(sb, sizes[k], MPI_BYTE, right, T_B, MPI_COMM_WORLD), MPI_SUCCESS);
            memset(sb, 0x55, (size_t)sizes[k]);
        }
        for (int k = 0; k < K; k++) {
            MPI_Status st;
            rb[sizes[k]] = 0x77;
            CHECK_RC(MPI_Recv(rb, BIG + 1, MPI_BYTE, left, T_B, MPI_COMM_WORLD, &st), MPI_SUCCESS);
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
            CHECK(count == sizes[k] && rb[sizes[k]] == 0x77);
            CHECK(p2p_verify(rb, (size_t)count, p2p_seed(left, (size_t)count, rep)) == -1);
        }
        void *addr = NULL;
        int got = 0;
        CHECK_RC(MPI_Buffer_detach(&addr, &got), MPI_SUCCESS);
        CHECK(addr == bbuf && got == bsize);
    }

    /* detach blocks until the buffered messages are delivered, after which the attached
     * memory is the caller's again (overwritten below). The receives are posted before,
     * so that delivery cannot depend on anything after the detach. Ibsend completes
     * locally. */
    CHECK_RC(MPI_Buffer_attach(bbuf, bsize), MPI_SUCCESS);
    MPI_Request rq[K], sq[K];
    unsigned char *rk[K];
    for (int k = 0; k < K; k++) {
        rk[k] = malloc((size_t)sizes[k] + 1);
        CHECK(rk[k]);
        CHECK_RC(MPI_Irecv(rk[k], sizes[k], MPI_BYTE, left, T_I, MPI_COMM_WORLD, &rq[k]),
                 MPI_SUCCESS);
    }
    for (int k = 0; k < K; k++) {
        p2p_fill(sb, (size_t)sizes[k], p2p_seed(rank, (size_t)sizes[k], 7));
        CHECK_RC(MPI_Ibsend(sb, sizes[k], MPI_BYTE, right, T_I, MPI_COMM_WORLD, &sq[k]),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&sq[k], MPI_STATUS_IGNORE), MPI_SUCCESS); /* local */
        memset(sb, 0x55, (size_t)sizes[k]);
    }
    void *addr;
    int got;
    CHECK_RC(MPI_Buffer_detach(&addr, &got), MPI_SUCCESS);
    CHECK(addr == bbuf && got == bsize);
    memset(bbuf, 0xaa, (size_t)bsize); /* ours again: the messages must not depend on it */
    CHECK_RC(MPI_Waitall(K, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int k = 0; k < K; k++) {
        CHECK(p2p_verify(rk[k], (size_t)sizes[k], p2p_seed(left, (size_t)sizes[k], 7)) == -1);
        free(rk[k]);
    }

    /* too small: room for 100 bytes, a send of 1000; no buffer at all. Sends to
     * MPI_PROC_NULL need no room. */
    int small = 100 + MPI_BSEND_OVERHEAD;
    CHECK_RC(MPI_Buffer_attach(bbuf, small), MPI_SUCCESS);
    CHECK_ERR(MPI_Bsend(sb, 1000, MPI_BYTE, right, T_B, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    MPI_Request r = MPI_REQUEST_NULL;
    CHECK_ERR(MPI_Ibsend(sb, 1000, MPI_BYTE, right, T_B, MPI_COMM_WORLD, &r), MPI_ERR_BUFFER);
    CHECK_RC(MPI_Bsend(sb, 1000, MPI_BYTE, MPI_PROC_NULL, T_B, MPI_COMM_WORLD), MPI_SUCCESS);
    /* a message that fits still goes */
    p2p_fill(sb, 100, 3);
    CHECK_RC(MPI_Bsend(sb, 100, MPI_BYTE, right, T_B, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Recv(rb, 100, MPI_BYTE, left, T_B, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(p2p_verify(rb, 100, 3) == -1);
    CHECK_RC(MPI_Buffer_detach(&addr, &got), MPI_SUCCESS);
    CHECK(addr == bbuf && got == small);
    CHECK_ERR(MPI_Bsend(sb, 10, MPI_BYTE, right, T_B, MPI_COMM_WORLD), MPI_ERR_BUFFER);

    /* nothing attached: MPI-3.1 does not say what detach does then. MPICH returns success
     * with a NULL address and size 0; if an implementation succeeds, the size must be 0. */
    addr = bbuf;
    got = 5;
    int rc = MPI_Buffer_detach(&addr, &got);
    if (rc == MPI_SUCCESS)
        CHECK(got == 0);

    free(bbuf);
    free(sb);
    free(rb);
    p2p_finish("bsend");
    return 0;
}
