/* MPI_Bcast / MPI_Ibcast on intra-communicators: every root, sizes from 0 to past the
 * large-message threshold, members using different layouts of the same signature, several
 * nonblocking broadcasts in flight at once, and on a split communicator. */
#include "common.h"

static void one(MPI_Comm comm, int root, long n, int iter)
{
    int me = rank_of(comm), nb = iter & 1;
    const layout_t *l = &L[(me + iter) % NLAYOUTS];
    int *b = lalloc(l, n);
    if (me == root)
        for (long i = 0; i < n; i++)
            LAT(l, b, i) = val(root, 0, i, iter);
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Ibcast(b, (int)n, l->type, root, comm, &req)
                        : MPI_Bcast(b, (int)n, l->type, root, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (long i = 0; i < n; i++)
        CHECK(LAT(l, b, i) == val(root, 0, i, iter));
    CHECK(lholes_ok(l, b, n));
    free(b);
}

/* bytes as one MPI_INT count at some members and as pairs of ints elsewhere */
static void mixed_counts(MPI_Comm comm, int iter)
{
    int me = rank_of(comm), n = 1000;
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int *b = calloc(n, sizeof(int));
    if (me == 0)
        for (int i = 0; i < n; i++)
            b[i] = val(0, 1, i, iter);
    if (me % 2)
        CHECK_RC(MPI_Bcast(b, n / 2, pair, 0, comm), MPI_SUCCESS);
    else
        CHECK_RC(MPI_Bcast(b, n, MPI_INT, 0, comm), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(b[i] == val(0, 1, i, iter));
    free(b);
    MPI_Type_free(&pair);
}

/* several broadcasts in flight, from different roots, completed in reverse order */
static void concurrent(MPI_Comm comm, int iter)
{
    enum { K = 5 };
    int me = rank_of(comm), size = size_of(comm);
    long n = 3000;
    int *b[K];
    MPI_Request req[K];
    for (int k = 0; k < K; k++) {
        int root = (k * 3) % size;
        b[k] = calloc(n, sizeof(int));
        if (me == root)
            for (long i = 0; i < n; i++)
                b[k][i] = val(root, k, i, iter);
        CHECK_RC(MPI_Ibcast(b[k], (int)n, MPI_INT, root, comm, &req[k]), MPI_SUCCESS);
    }
    for (int k = K - 1; k >= 0; k--)
        CHECK_RC(MPI_Wait(&req[k], MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int k = 0; k < K; k++) {
        for (long i = 0; i < n; i++)
            CHECK(b[k][i] == val((k * 3) % size, k, i, iter));
        free(b[k]);
    }
}

static void all(MPI_Comm comm)
{
    static const long sizes[] = { 0, 1, 3, 100, 5000, 140000 };
    int size = size_of(comm), iter = 0;
    for (int root = 0; root < size; root++)
        for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++)
            one(comm, root, sizes[k], iter++);
    mixed_counts(comm, iter++);
    concurrent(comm, iter++);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    layouts_init();
    MPI_Comm c[NCOMMS];
    comms_create(c);
    for (int i = 0; i < NCOMMS; i++)
        all(c[i]);
    comms_free(c);
    layouts_free();
    MPI_Finalize();
    return 0;
}
