/* A context-id agreement that cannot converge ends with an error at every member, in bounded
 * memory, and leaves the parent usable (core/ctxid.h, "Bounds"). Run with
 * METAMPI_CTXID_VOTE_NO=1 (testing: job rank 1 votes no in every round, as a member that does
 * not run the same agreement would make it fail round after round): MPI_Comm_dup,
 * MPI_Comm_split and MPI_Comm_create_group over groups holding rank 1 fail with MPI_ERR_INTERN
 * at every member; create_group over a group without rank 1, and everything on a
 * communicator without it, work. Before the bound such an agreement ran forever, each round
 * allocating (13.7 GB within seconds in issue 15's program).
 *
 *   agree_fail
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mallinfo2 */
#endif
#include "../check.h"

#include <malloc.h>
#include <stdlib.h>

static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *no = getenv("METAMPI_CTXID_VOTE_NO");
    CHECK(no && atoi(no) == 1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int expect = size > 1 ? MPI_ERR_INTERN : MPI_SUCCESS;

    size_t heap0 = mallinfo2().uordblks;
    MPI_Comm c = MPI_COMM_NULL;
    for (int i = 0; i < 3; i++) {
        CHECK_RC(cls(MPI_Comm_dup(MPI_COMM_WORLD, &c)), expect);
        if (expect == MPI_SUCCESS)
            CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    }
    size_t heap1 = mallinfo2().uordblks;
    /* thousands of rounds ran: they must not have kept memory (0 under ASan: skipped) */
    CHECK(heap1 < heap0 + 256 * 1024);

    CHECK_RC(cls(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c)), expect);
    if (expect == MPI_SUCCESS)
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);

    /* create_group: {0, 1} fails, {0, 2, 3, ...} (without rank 1) works */
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *ranks = malloc((size_t)size * sizeof *ranks), n = 0;
    CHECK(ranks);
    if (rank <= 1) {
        ranks[n++] = 0;
        if (size > 1)
            ranks[n++] = 1;
        MPI_Group_incl(wg, n, ranks, &g);
        CHECK_RC(cls(MPI_Comm_create_group(MPI_COMM_WORLD, g, 3, &c)), expect);
        MPI_Group_free(&g);
        if (expect == MPI_SUCCESS)
            CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
    }
    if (rank != 1) {
        n = 0;
        for (int i = 0; i < size; i++)
            if (i != 1)
                ranks[n++] = i;
        MPI_Group_incl(wg, n, ranks, &g);
        CHECK_RC(MPI_Comm_create_group(MPI_COMM_WORLD, g, 4, &c), MPI_SUCCESS);
        int one = 1, sum = 0;
        CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
        CHECK(sum == n);
        CHECK_RC(MPI_Comm_free(&c), MPI_SUCCESS);
        MPI_Group_free(&g);
    }
    free(ranks);
    MPI_Group_free(&wg);

    /* the parent still works, its collectives in step at every member */
    int one = 1, sum = 0;
    CHECK_RC(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK(sum == size);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    MPI_Finalize();
    return 0;
}
