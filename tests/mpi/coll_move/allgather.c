/* MPI_Allgather(v) / MPI_Iallgather(v) on intra-communicators: block sizes from 0 to past the
 * ring threshold, MPI_IN_PLACE, senders and receivers in different layouts, v-form blocks of
 * different sizes (zeros among them) at displacements that differ from rank to rank, with
 * gaps that must stay untouched, and on a split communicator. */
#include "common.h"

static void allgather(MPI_Comm comm, long k, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 1) % NLAYOUTS];
    int *sb = lalloc(ls, k), *rb = lalloc(lr, k * n);
    for (long i = 0; i < k; i++) {
        LAT(ls, sb, i) = val(me, 0, i, iter);
        if (inplace)
            LAT(lr, rb, me * k + i) = val(me, 0, i, iter);
    }
    const void *s = inplace ? MPI_IN_PLACE : sb;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Iallgather(s, (int)k, ls->type, rb, (int)k, lr->type, comm, &req)
                        : MPI_Allgather(s, (int)k, ls->type, rb, (int)k, lr->type, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int r = 0; r < n; r++)
        for (long i = 0; i < k; i++)
            CHECK(LAT(lr, rb, r * k + i) == val(r, 0, i, iter));
    CHECK(lholes_ok(lr, rb, k * n));
    free(sb);
    free(rb);
}

static int vcount(int r, int iter, long scale)
{
    return (int)(((r * 3 + iter) % 5) * scale);
}

static void allgatherv(MPI_Comm comm, long scale, int inplace, int iter)
{
    int me = rank_of(comm), n = size_of(comm), nb = iter & 1;
    const layout_t *ls = &L[(me + iter) % NLAYOUTS], *lr = &L[(me + iter + 2) % NLAYOUTS];
    int *counts = malloc(n * sizeof(int)), *displs = malloc(n * sizeof(int));
    /* blocks in an order of this rank's own, one int of gap after each */
    long total = 0;
    for (int j = 0; j < n; j++) {
        int r = (j + me) % n;
        counts[r] = vcount(r, iter, scale);
        displs[r] = (int)total;
        total += counts[r] + 1;
    }
    int k = counts[me];
    int *sb = lalloc(ls, k), *rb = lalloc(lr, total);
    for (long i = 0; i < k; i++) {
        LAT(ls, sb, i) = val(me, 0, i, iter);
        if (inplace)
            LAT(lr, rb, displs[me] + i) = val(me, 0, i, iter);
    }
    const void *s = inplace ? MPI_IN_PLACE : sb;
    MPI_Request req;
    CHECK_RC(wait_or(nb ? MPI_Iallgatherv(s, k, ls->type, rb, counts, displs, lr->type, comm,
                                          &req)
                        : MPI_Allgatherv(s, k, ls->type, rb, counts, displs, lr->type, comm),
                     nb ? &req : NULL),
             MPI_SUCCESS);
    for (int r = 0; r < n; r++) {
        for (long i = 0; i < counts[r]; i++)
            CHECK(LAT(lr, rb, displs[r] + i) == val(r, 0, i, iter));
        CHECK(LAT(lr, rb, displs[r] + counts[r]) == HOLE);
    }
    CHECK(lholes_ok(lr, rb, total));
    free(sb);
    free(rb);
    free(counts);
    free(displs);
}

/* several in flight at once, waited for in reverse order */
static void concurrent(MPI_Comm comm, int iter)
{
    enum { K = 4, B = 50 };
    int me = rank_of(comm), n = size_of(comm);
    int *sb[K], *rb[K];
    MPI_Request req[K];
    for (int q = 0; q < K; q++) {
        sb[q] = malloc(B * sizeof(int));
        rb[q] = malloc((size_t)n * B * sizeof(int));
        for (int i = 0; i < B; i++)
            sb[q][i] = val(me, q, i, iter);
        CHECK_RC(MPI_Iallgather(sb[q], B, MPI_INT, rb[q], B, MPI_INT, comm, &req[q]),
                 MPI_SUCCESS);
    }
    for (int q = K - 1; q >= 0; q--)
        CHECK_RC(MPI_Wait(&req[q], MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int q = 0; q < K; q++) {
        for (int r = 0; r < n; r++)
            for (int i = 0; i < B; i++)
                CHECK(rb[q][r * B + i] == val(r, q, i, iter));
        free(sb[q]);
        free(rb[q]);
    }
}

static void all(MPI_Comm comm)
{
    static const long sizes[] = { 0, 1, 5, 300, 40000 };
    int iter = 0;
    for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int inplace = 0; inplace < 2; inplace++) {
            allgather(comm, sizes[k], inplace, iter++);
            allgather(comm, sizes[k], inplace, iter++);
        }
    static const long scales[] = { 0, 1, 20, 20000 };
    for (unsigned k = 0; k < sizeof scales / sizeof *scales; k++)
        for (int inplace = 0; inplace < 2; inplace++) {
            allgatherv(comm, scales[k], inplace, iter++);
            allgatherv(comm, scales[k], inplace, iter++);
        }
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
