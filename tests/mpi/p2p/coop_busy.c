/* A receive completes without its sender (docs/p2p.md, "Cooperative copy"): rank 0
 * MPI_Isend's a 4 MiB message to rank 1 and then computes for 2 s without calling MPI; rank
 * 1's MPI_Recv must complete long before that (under 0.5 s, measured with MPI_Wtime), with
 * the data intact, as with Open MPI's and MPICH's single copy. A cooperative copy that waited
 * for the sender to write its part would take the 2 s. Run with the cooperative copy on from
 * 16 KiB and at the library's default. A semantic check with a 4x margin, not a benchmark.
 * Ranks beyond 2 only take part in the barriers. */
#include "p2p.h"

#include <mpi.h>

enum { N = 4 << 20 };

/* Busy for `seconds` with no MPI call (the clock is the C library's, not MPI_Wtime). */
static double compute(double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    volatile double x = 1.0;
    do {
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
    return x;
}

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    unsigned char *b = malloc(N);
    CHECK(b);
    if (p2p_size >= 2 && p2p_rank <= 1) {
        /* a first message the usual way (both in MPI): the receiver's remote read of rank 0's
         * memory has worked, so the next message may be copied cooperatively */
        if (p2p_rank == 0) {
            p2p_fill(b, N, p2p_seed(0, N, 0));
            CHECK_RC(MPI_Send(b, N, MPI_BYTE, 1, 1, MPI_COMM_WORLD), MPI_SUCCESS);
        } else {
            CHECK_RC(MPI_Recv(b, N, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_SUCCESS);
            CHECK(p2p_verify(b, N, p2p_seed(0, N, 0)) == -1);
        }
    }
    p2p_barrier();
    if (p2p_size >= 2 && p2p_rank == 0) {
        MPI_Request rq;
        p2p_fill(b, N, p2p_seed(0, N, 1));
        CHECK_RC(MPI_Isend(b, N, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
        compute(2.0);
        CHECK_RC(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else if (p2p_size >= 2 && p2p_rank == 1) {
        memset(b, 0, N);
        MPI_Status st;
        double t0 = MPI_Wtime();
        CHECK_RC(MPI_Recv(b, N, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &st), MPI_SUCCESS);
        double dt = MPI_Wtime() - t0;
        int count = -1;
        CHECK_RC(MPI_Get_count(&st, MPI_BYTE, &count), MPI_SUCCESS);
        CHECK(count == N);
        CHECK(p2p_verify(b, N, p2p_seed(0, N, 1)) == -1);
        if (dt >= 0.5) {
            fprintf(stderr, "FAIL: rank 1's receive of 4 MiB took %.3f s: it waited for the "
                            "sender, which computed for 2 s\n", dt);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    p2p_barrier();
    free(b);
    p2p_finish("coop_busy");
    return 0;
}
