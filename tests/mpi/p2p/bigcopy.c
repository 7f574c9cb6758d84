/* Large messages between pairs of ranks (0-1, 2-3, ...; a rank without a partner talks to
 * itself), the sizes where metampi's one-host rendezvous copies cooperatively (docs/p2p.md,
 * "Cooperative copy": chunks claimed by the receiver from the front, by the sender from the
 * back): both directions at once, around the threshold and the chunks' rounding, many in flight on
 * one tag (order), unaligned buffers, synchronous sends (not complete before the receive is
 * posted), MPI_Cancel of a large send (cancelled and never received, or received whole),
 * truncation (nothing written past the buffer), and non-contiguous receives (which take the
 * other paths). Run also with METAMPI_RNDV_COOP=8193 (every rendezvous size), =0 (off) and
 * METAMPI_SHM_CMA=0 (no cross-memory attach: the two-copy fallback).
 * Uses MPI_Type_vector besides the point-to-point chapter. */
#include "p2p.h"

#include <mpi.h>

enum { GUARD = 64 };

static int partner;

/* A buffer of n bytes at offset `skew` from a page, with GUARD bytes of 0xEE after it. */
static unsigned char *buffer(size_t n, size_t skew, unsigned char **base)
{
    *base = malloc(n + skew + GUARD + 4096);
    CHECK(*base);
    unsigned char *b = (unsigned char *)(((uintptr_t)*base + 4095) & ~(uintptr_t)4095) + skew;
    memset(b, 0xEE, n + GUARD);
    return b;
}

/* Exchanges one message of n bytes each way with the partner, at the given skews. */
static void exchange(size_t n, size_t sskew, size_t rskew, int round, int sync)
{
    unsigned char *sb, *rb, *sbase, *rbase;
    sb = buffer(n, sskew, &sbase);
    rb = buffer(n, rskew, &rbase);
    p2p_fill(sb, n, p2p_seed(p2p_rank, n, round));
    MPI_Request rq[2];
    MPI_Status st[2];
    CHECK_RC(MPI_Irecv(rb, (int)n, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq[0]), MPI_SUCCESS);
    if (sync)
        CHECK_RC(MPI_Issend(sb, (int)n, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq[1]),
                 MPI_SUCCESS);
    else
        CHECK_RC(MPI_Isend(sb, (int)n, MPI_BYTE, partner, 5, MPI_COMM_WORLD, &rq[1]),
                 MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, rq, st), MPI_SUCCESS);
    int got = -1;
    CHECK_RC(MPI_Get_count(&st[0], MPI_BYTE, &got), MPI_SUCCESS);
    CHECK(got == (int)n && st[0].MPI_SOURCE == partner && st[0].MPI_TAG == 5);
    long bad = p2p_verify(rb, n, p2p_seed(partner, n, round));
    if (bad >= 0)
        fprintf(stderr, "FAIL rank %d: %zu bytes (skews %zu/%zu): byte %ld wrong\n", p2p_rank,
                n, sskew, rskew, bad);
    CHECK(bad < 0);
    CHECK(p2p_untouched(rb + n, GUARD, 0xEE) < 0);
    CHECK(p2p_verify(sb, n, p2p_seed(p2p_rank, n, round)) < 0); /* the sender's unchanged */
    free(sbase);
    free(rbase);
}

/* A window of k messages of n bytes each way on one tag: they match in order. */
static void window(size_t n, int k, int round)
{
    unsigned char *s = malloc(n * (size_t)k), *r = malloc(n * (size_t)k);
    CHECK(s && r);
    MPI_Request *rq = malloc(sizeof *rq * 2 * (size_t)k);
    CHECK(rq);
    for (int i = 0; i < k; i++) {
        p2p_fill(s + n * (size_t)i, n, p2p_seed(p2p_rank, n, round * 100 + i));
        CHECK_RC(MPI_Irecv(r + n * (size_t)i, (int)n, MPI_BYTE, partner, 6, MPI_COMM_WORLD,
                           &rq[i]),
                 MPI_SUCCESS);
    }
    for (int i = 0; i < k; i++)
        CHECK_RC(MPI_Isend(s + n * (size_t)i, (int)n, MPI_BYTE, partner, 6, MPI_COMM_WORLD,
                           &rq[k + i]),
                 MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2 * k, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < k; i++)
        CHECK(p2p_verify(r + n * (size_t)i, n, p2p_seed(partner, n, round * 100 + i)) < 0);
    free(rq);
    free(s);
    free(r);
}

/* The even rank of the pair sends synchronously; it must not complete before the odd one
 * posts its receive, which it does only after a go message. */
static void synchronous(size_t n)
{
    if (partner == p2p_rank)
        return;
    unsigned char *b = malloc(n);
    CHECK(b);
    int go = 1;
    if (p2p_rank % 2 == 0) {
        p2p_fill(b, n, p2p_seed(p2p_rank, n, 7));
        MPI_Request rq;
        int flag = 0;
        CHECK_RC(MPI_Issend(b, (int)n, MPI_BYTE, partner, 7, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
        for (int i = 0; i < 20; i++) {
            CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK(!flag);
            p2p_sleep_ms(2);
        }
        CHECK_RC(MPI_Send(&go, 1, MPI_INT, partner, 8, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
        CHECK_RC(MPI_Recv(&go, 1, MPI_INT, partner, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Recv(b, (int)n, MPI_BYTE, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK(p2p_verify(b, n, p2p_seed(partner, n, 7)) < 0);
    }
    free(b);
}

/* Cancel of a large send, unmatched (the receive comes later, if at all) and matched (the
 * receive is posted before the send): either it is cancelled and never received, or it
 * is received whole and not cancelled. */
static void cancel(size_t n, int posted_first)
{
    if (partner == p2p_rank)
        return;
    unsigned char *b = malloc(n);
    CHECK(b);
    int tag = posted_first ? 10 : 9, cancelled = -1;
    if (p2p_rank % 2 == 0) {
        p2p_fill(b, n, p2p_seed(p2p_rank, n, tag));
        if (posted_first)
            CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, partner, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
        MPI_Request rq;
        MPI_Status st;
        CHECK_RC(MPI_Isend(b, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
        CHECK_RC(MPI_Cancel(&rq), MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
        CHECK_RC(MPI_Test_cancelled(&st, &cancelled), MPI_SUCCESS);
        CHECK_RC(MPI_Send(&cancelled, 1, MPI_INT, partner, 12, MPI_COMM_WORLD), MPI_SUCCESS);
    } else {
        MPI_Request rq = MPI_REQUEST_NULL;
        if (posted_first) {
            CHECK_RC(MPI_Irecv(b, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq),
                     MPI_SUCCESS);
            CHECK_RC(MPI_Send(NULL, 0, MPI_BYTE, partner, 11, MPI_COMM_WORLD), MPI_SUCCESS);
        }
        CHECK_RC(MPI_Recv(&cancelled, 1, MPI_INT, partner, 12, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        if (!cancelled) {
            if (!posted_first)
                CHECK_RC(MPI_Irecv(b, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq),
                         MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
            CHECK(p2p_verify(b, n, p2p_seed(partner, n, tag)) < 0);
        } else {
            int flag = 1;
            if (posted_first) { /* withdrawn before it left: the receive stays unmatched */
                CHECK_RC(MPI_Test(&rq, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
                CHECK(!flag);
                CHECK_RC(MPI_Cancel(&rq), MPI_SUCCESS);
                CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
            } else {
                CHECK_RC(MPI_Iprobe(partner, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                         MPI_SUCCESS);
                CHECK(!flag);
            }
        }
    }
    free(b);
}

/* A 2 MiB message into a 1 MiB buffer: MPI_ERR_TRUNCATE, the first 1 MiB right, nothing
 * after it written. */
static void truncated(void)
{
    size_t n = 2u << 20, cap = 1u << 20;
    unsigned char *s = malloc(n), *rbase, *r = buffer(cap, 0, &rbase);
    CHECK(s);
    p2p_fill(s, n, p2p_seed(p2p_rank, n, 13));
    MPI_Request rq[2];
    MPI_Status st[2];
    CHECK_RC(MPI_Irecv(r, (int)cap, MPI_BYTE, partner, 13, MPI_COMM_WORLD, &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(s, (int)n, MPI_BYTE, partner, 13, MPI_COMM_WORLD, &rq[1]), MPI_SUCCESS);
    CHECK_ERR(MPI_Waitall(2, rq, st), MPI_ERR_IN_STATUS);
    CHECK(p2p_class(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE);
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS);
    CHECK(p2p_verify(r, cap, p2p_seed(partner, n, 13)) < 0);
    CHECK(p2p_untouched(r + cap, GUARD, 0xEE) < 0);
    free(s);
    free(rbase);
}

/* Contiguous sends into strided receives: blocks of `block` bytes with a gap of 64. */
static void strided(size_t n, size_t block)
{
    size_t nblocks = n / block, stride = block + 64;
    unsigned char *s = malloc(n), *r = malloc(nblocks * stride);
    CHECK(s && r);
    memset(r, 0xEE, nblocks * stride);
    p2p_fill(s, n, p2p_seed(p2p_rank, n, 14));
    MPI_Datatype vec;
    CHECK_RC(MPI_Type_vector((int)nblocks, (int)block, (int)stride, MPI_BYTE, &vec), MPI_SUCCESS);
    CHECK_RC(MPI_Type_commit(&vec), MPI_SUCCESS);
    MPI_Request rq[2];
    CHECK_RC(MPI_Irecv(r, 1, vec, partner, 14, MPI_COMM_WORLD, &rq[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Isend(s, (int)n, MPI_BYTE, partner, 14, MPI_COMM_WORLD, &rq[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    unsigned seed = p2p_seed(partner, n, 14);
    for (size_t b = 0; b < nblocks; b++)
        for (size_t i = 0; i < block; i++)
            CHECK(r[b * stride + i] == p2p_byte(b * block + i, seed));
    for (size_t b = 0; b < nblocks; b++)
        CHECK(p2p_untouched(r + b * stride + block, 64, 0xEE) < 0);
    CHECK_RC(MPI_Type_free(&vec), MPI_SUCCESS);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    partner = (p2p_rank ^ 1) < p2p_size ? p2p_rank ^ 1 : p2p_rank;

    const size_t sizes[] = { 8193, 12288, 65536, 262143, 262144, 262145, 1u << 20,
                             (1u << 20) + 13, (4u << 20) + 4095, 8u << 20 };
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            exchange(sizes[i], 0, 0, round, 0);
            exchange(sizes[i], 1, 4093, round, 0);
            exchange(sizes[i], 4000, 8, round, 1);
        }
    window(1u << 20, 16, 1);
    window((512u << 10) + 64, 40, 2);
    synchronous(2u << 20);
    cancel(2u << 20, 0);
    cancel(2u << 20, 1);
    truncated();
    strided(2u << 20, 256u << 10); /* blocks worth remote iovecs */
    strided(1u << 20, 4096);       /* small blocks: DATA frames */
    p2p_barrier();
    p2p_finish("bigcopy");
    return 0;
}
