/* metampi only, 2 ranks on one host: a cooperative copy (docs/p2p.md, "Cooperative copy")
 * fails mid-message. Rank 1 receives 4 MiB into a buffer whose last page it made
 * inaccessible: rank 1 reads chunks from the front, rank 0 (waiting in MPI_Send) claims
 * chunks from the back, so its first write into rank 1's memory hits that page. The job must
 * end with one line from rank 0 naming rank 1 — or, when rank 0 came too late to claim any
 * chunk, from rank 1 naming rank 0 (the test's PASS_REGULAR_EXPRESSION) — never hang or
 * report success. */
#include "p2p/p2p.h"

#include <mpi.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
    p2p_init(&argc, &argv);
    CHECK(p2p_size == 2);
    size_t n = 4u << 20, page = 4096;
    unsigned char *b = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(b != MAP_FAILED);
    p2p_fill(b, n, 1);
    /* a first message the usual way: the receiver's remote read works, so the next one is
     * copied cooperatively */
    if (p2p_rank == 0) {
        CHECK_RC(MPI_Send(b, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_RC(MPI_Send(b, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD), MPI_SUCCESS);
    } else {
        CHECK_RC(MPI_Recv(b, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK(mprotect(b + n - page, page, PROT_NONE) == 0);
        CHECK_RC(MPI_Recv(b, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
    }
    printf("FAIL: rank %d: the faulty copy completed\n", p2p_rank);
    fflush(stdout);
    MPI_Finalize();
    return 1;
}
