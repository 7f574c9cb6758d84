/* Message sizes around every plausible protocol threshold (the implementation's eager,
 * copy and rendezvous limits are configurable, so the sweep brackets each power of two from
 * 16 bytes to 256 KiB, plus 1 MiB +- 1 and 4 MiB + 1), each checked byte for byte (pattern
 * depends on sender, size and mode) around a ring, with blocking, nonblocking and synchronous
 * sends, into a receive buffer larger than the message whose tail must stay untouched. At
 * np 1 the ring is a send to self (receive posted first where the send blocks). */
#include "p2p.h"

enum { T_S = 170, GUARD = 64 };

static size_t sizes[128];
static int nsizes;

static void add(size_t n) { sizes[nsizes++] = n; }

enum mode { BLOCKING, NONBLOCKING, SYNC, ISYNC, NMODES };

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (size_t n = 0; n <= 8; n++)
        add(n);
    for (size_t p = 16; p <= 262144; p *= 2) {
        if (p == 16 || p >= 64) {
            add(p - 1), add(p), add(p + 1);
        } else { /* 31..33 and 47..49 */
            add(p - 1), add(p), add(p + 1);
            if (p == 32)
                add(47), add(48), add(49);
        }
    }
    add((1 << 20) - 1), add(1 << 20), add((1 << 20) + 1), add((4 << 20) + 1);
    size_t max = sizes[nsizes - 1];
    unsigned char *sb = malloc(max), *rb = malloc(max + GUARD);
    CHECK(sb && rb);

    for (int m = 0; m < NMODES; m++)
        for (int k = 0; k < nsizes; k++) {
            size_t n = sizes[k];
            int cap = (int)(n + GUARD / 2); /* larger than the message */
            MPI_Request rq = MPI_REQUEST_NULL;
            MPI_Status st;
            p2p_fill(sb, n, p2p_seed(rank, n, m));
            memset(rb, 0xee, n + GUARD);
            if (m == NONBLOCKING || m == ISYNC) { /* Irecv, Isend/Issend, Waitall */
                MPI_Request both[2];
                CHECK_RC(MPI_Irecv(rb, cap, MPI_BYTE, left, T_S, MPI_COMM_WORLD, &both[0]),
                         MPI_SUCCESS);
                if (m == ISYNC)
                    CHECK_RC(MPI_Issend(sb, (int)n, MPI_BYTE, right, T_S, MPI_COMM_WORLD, &both[1]),
                             MPI_SUCCESS);
                else
                    CHECK_RC(MPI_Isend(sb, (int)n, MPI_BYTE, right, T_S, MPI_COMM_WORLD, &both[1]),
                             MPI_SUCCESS);
                MPI_Status sts[2];
                CHECK_RC(MPI_Waitall(2, both, sts), MPI_SUCCESS);
                st = sts[0];
            } else if (size == 1) { /* blocking send to self: receive posted first */
                CHECK_RC(MPI_Irecv(rb, cap, MPI_BYTE, left, T_S, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
                if (m == SYNC)
                    CHECK_RC(MPI_Ssend(sb, (int)n, MPI_BYTE, right, T_S, MPI_COMM_WORLD), MPI_SUCCESS);
                else
                    CHECK_RC(MPI_Send(sb, (int)n, MPI_BYTE, right, T_S, MPI_COMM_WORLD), MPI_SUCCESS);
                CHECK_RC(MPI_Wait(&rq, &st), MPI_SUCCESS);
            } else { /* blocking both ways, even ranks send first */
                for (int phase = 0; phase < 2; phase++) {
                    if ((phase == 0) == (rank % 2 == 0)) {
                        if (m == SYNC)
                            CHECK_RC(MPI_Ssend(sb, (int)n, MPI_BYTE, right, T_S, MPI_COMM_WORLD),
                                     MPI_SUCCESS);
                        else
                            CHECK_RC(MPI_Send(sb, (int)n, MPI_BYTE, right, T_S, MPI_COMM_WORLD),
                                     MPI_SUCCESS);
                    } else {
                        CHECK_RC(MPI_Recv(rb, cap, MPI_BYTE, left, T_S, MPI_COMM_WORLD, &st),
                                 MPI_SUCCESS);
                    }
                }
            }
            int count = -1;
            CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == left && st.MPI_TAG == T_S);
            long bad = p2p_verify(rb, n, p2p_seed(left, n, m));
            if (count != (int)n || bad != -1)
                fprintf(stderr, "sizes: mode %d, %zu bytes: got %d, first bad byte %ld\n", m, n,
                        count, bad);
            CHECK(count == (int)n && bad == -1);
            CHECK(p2p_untouched(rb + n, GUARD, 0xee) == -1);
        }
    free(sb);
    free(rb);
    p2p_finish("sizes");
    return 0;
}
