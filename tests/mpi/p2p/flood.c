/* Unexpected-message flood: every rank but 0 sends thousands of small messages (10000 at
 * np 2; 20000 in all at larger sizes, so np 8 stays quick) to rank 0 before rank 0 posts a
 * single receive. The sends are nonblocking (a blocking standard send may wait for its
 * receive). Rank 0 waits until all senders report done (or 10 s pass), then receives
 * everything, by MPI_ANY_SOURCE and specific-source receives; per sender in order.
 *
 * Memory bound: rank 0's peak resident size (VmHWM) may grow by at most 64 MiB over its size
 * before the flood. 20000 messages of 16 bytes are 320 KB of payload; even at 1 KiB of
 * bookkeeping per unexpected message (header, queue entry, allocator rounding) that is 20 MB,
 * so 64 MiB is generous for a sane implementation, yet catches one that keeps, say, a 64 KiB
 * eager buffer per message (1.3 GB). At np 1 there are no senders; rank 0 floods itself with
 * 2000 Isends instead (the Isend requests count against the bound too). */
#include "p2p.h"

enum { T_F = 160, T_DONE = 161, PAYLOAD = 4 /* ints */ };
#if defined(__SANITIZE_ADDRESS__)
/* AddressSanitizer adds redzones to every allocation and keeps freed memory in a quarantine
 * of up to 256 MiB, so under it only a gross leak is caught */
#define BOUND_KIB (320L * 1024)
#else
#define BOUND_KIB (64L * 1024)
#endif

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    int rank = p2p_rank, size = p2p_size;
    int per = size == 1 ? 2000 : size == 2 ? 10000 : 20000 / (size - 1);
    int nsenders = size == 1 ? 1 : size - 1;
    long rss0 = p2p_proc_kib("VmRSS"), hwm0 = p2p_proc_kib("VmHWM");

    int (*msg)[PAYLOAD] = NULL;
    MPI_Request *sq = NULL;
    if (rank != 0 || size == 1) {
        msg = malloc(sizeof *msg * (size_t)per);
        sq = malloc(sizeof *sq * (size_t)per);
        CHECK(msg && sq);
        for (int i = 0; i < per; i++) {
            msg[i][0] = rank, msg[i][1] = i, msg[i][2] = ~i, msg[i][3] = rank * 7 + i;
            CHECK_RC(MPI_Isend(msg[i], PAYLOAD, MPI_INT, 0, T_F, MPI_COMM_WORLD, &sq[i]),
                     MPI_SUCCESS);
        }
        if (rank != 0) {
            MPI_Request d;
            CHECK_RC(MPI_Isend(NULL, 0, MPI_BYTE, 0, T_DONE, MPI_COMM_WORLD, &d), MPI_SUCCESS);
            CHECK_RC(MPI_Waitall(per, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
            CHECK_RC(MPI_Wait(&d, MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
    }
    if (rank == 0) {
        /* wait for the "done" reports with probes only (no receive is posted for T_F);
         * bounded, as an implementation with flow control may hold senders back */
        double t0 = MPI_Wtime();
        int done = 0, flag;
        while (done < size - 1 && MPI_Wtime() - t0 < 10.0) {
            CHECK_RC(MPI_Iprobe(MPI_ANY_SOURCE, T_DONE, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
            if (flag) {
                CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, T_DONE, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE), MPI_SUCCESS);
                done++;
            } else {
                p2p_sleep_ms(1);
            }
        }
        int *next = calloc((size_t)size, sizeof(int));
        CHECK(next);
        long total = (long)per * nsenders;
        int s0 = size == 1 ? 0 : 1;
        for (long k = 0; k < total; k++) {
            int m[PAYLOAD], src = MPI_ANY_SOURCE;
            MPI_Status st;
            if (k % 2) { /* specific: a sender with messages left */
                src = s0 + (int)(k / 2 % nsenders);
                while (next[src] == per)
                    src = s0 + (src - s0 + 1) % nsenders;
            }
            CHECK_RC(MPI_Recv(m, PAYLOAD, MPI_INT, src, T_F, MPI_COMM_WORLD, &st), MPI_SUCCESS);
            int s = st.MPI_SOURCE;
            CHECK(s >= s0 && s < size && (src == MPI_ANY_SOURCE || s == src));
            CHECK(m[0] == s && m[1] == next[s] && m[2] == ~next[s] && m[3] == s * 7 + next[s]);
            next[s]++;
        }
        for (int s = s0; s < size; s++)
            CHECK(next[s] == per);
        if (size > 1) /* rank 0 got the last reports late if it gave up waiting */
            for (; done < size - 1; done++)
                CHECK_RC(MPI_Recv(NULL, 0, MPI_BYTE, MPI_ANY_SOURCE, T_DONE, MPI_COMM_WORLD,
                                  MPI_STATUS_IGNORE), MPI_SUCCESS);
        if (size == 1)
            CHECK_RC(MPI_Waitall(per, sq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        long hwm1 = p2p_proc_kib("VmHWM");
        if (rss0 > 0 && hwm1 > 0) {
            long base = rss0 > hwm0 ? rss0 : hwm0;
            /* VmHWM before the flood may include start-up peaks, so grow from the larger */
            printf("flood: %ld messages; rank 0 VmHWM %ld KiB -> %ld KiB\n", total, base, hwm1);
            CHECK(hwm1 - base < BOUND_KIB);
        }
        free(next);
    }
    free(msg);
    free(sq);
    p2p_finish("flood");
    return 0;
}
