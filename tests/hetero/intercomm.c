/* Inter-communicators between groups of unlike architectures (tests/hetero): the first half
 * of the ranks against the second (run with the second half s390x): MPI_Intercomm_create's
 * exchange of the groups, point-to-point and collectives of a derived datatype across, dup,
 * split and merge. Run on one architecture it checks the same. */
#include "../mpi/check.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
    int i;
    double d;
    long l;
} rec_t;

static rec_t rec_val(int owner, int k)
{
    rec_t r;
    memset(&r, 0, sizeof r);
    r.i = owner * 100 + k;
    r.d = owner / 4.0 + k;
    r.l = ((long)(owner + 3) << 33) - k;
    return r;
}

static int same(const rec_t *a, int owner, int k)
{
    rec_t w = rec_val(owner, k);
    return a->i == w.i && a->d == w.d && a->l == w.l;
}

static MPI_Datatype rec_type(void)
{
    int bl[3] = { 1, 1, 1 };
    MPI_Aint disp[3] = { offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, l) };
    MPI_Datatype types[3] = { MPI_INT, MPI_DOUBLE, MPI_LONG }, t, r;
    MPI_Type_create_struct(3, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(rec_t), &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

enum { N = 5 };

/* collectives on inter, whose local group is `side` (0 first half, 1 second) */
static void across(MPI_Comm inter, int side, MPI_Datatype rt)
{
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    rec_t *a = calloc((size_t)N * 16, sizeof *a), *b = calloc((size_t)N * 16, sizeof *b);
    CHECK(a && b && lsize <= 16 && rsize <= 16);
    /* Bcast from the first group's rank 0 to the second group */
    for (int k = 0; k < N; k++)
        a[k] = side == 0 && lrank == 0 ? rec_val(7, k) : (rec_t){ 0 };
    int root = side == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    CHECK_RC(MPI_Bcast(a, N, rt, root, inter), MPI_SUCCESS);
    for (int k = 0; k < N && side == 1; k++)
        CHECK(same(&a[k], 7, k));
    /* Allgather: every member gets the other group's blocks */
    int id = side * 8 + lrank;
    for (int k = 0; k < N; k++)
        a[k] = rec_val(id, k);
    CHECK_RC(MPI_Allgather(a, N, rt, b, N, rt, inter), MPI_SUCCESS);
    for (int r = 0; r < rsize; r++)
        for (int k = 0; k < N; k++)
            CHECK(same(&b[r * N + k], (1 - side) * 8 + r, k));
    /* Allgatherv: block r of the other group holds r + 1 records */
    int counts[16], displs[16];
    for (int r = 0, off = 0; r < rsize; r++) {
        counts[r] = r % N + 1;
        displs[r] = off;
        off += counts[r];
    }
    memset(b, 0, sizeof *b * (size_t)N * 16);
    CHECK_RC(MPI_Allgatherv(a, lrank % N + 1, rt, b, counts, displs, rt, inter), MPI_SUCCESS);
    for (int r = 0; r < rsize; r++)
        for (int k = 0; k < counts[r]; k++)
            CHECK(same(&b[displs[r] + k], (1 - side) * 8 + r, k));
    /* Gather to the second group's rank 0, Scatter back from it */
    root = side == 0 ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    CHECK_RC(MPI_Gather(a, N, rt, b, N, rt, root, inter), MPI_SUCCESS);
    if (side == 1 && lrank == 0)
        for (int r = 0; r < rsize; r++)
            for (int k = 0; k < N; k++)
                CHECK(same(&b[r * N + k], r, k));
    if (side == 1 && lrank == 0)
        for (int r = 0; r < rsize; r++)
            for (int k = 0; k < N; k++)
                b[r * N + k] = rec_val(40 + r, k);
    CHECK_RC(MPI_Scatter(b, N, rt, a, N, rt, root, inter), MPI_SUCCESS);
    for (int k = 0; k < N && side == 0; k++)
        CHECK(same(&a[k], 40 + lrank, k));
    /* Allreduce: the sum of the other group's longs */
    long mine[3] = { id, -id, (long)id << 34 }, sum[3];
    CHECK_RC(MPI_Allreduce(mine, sum, 3, MPI_LONG, MPI_SUM, inter), MPI_SUCCESS);
    long want = 0;
    for (int r = 0; r < rsize; r++)
        want += (1 - side) * 8 + r;
    CHECK(sum[0] == want && sum[1] == -want && sum[2] == want << 34);
    /* point to point across: rank 0 of each group with the other's rank 0 */
    if (lrank == 0) {
        for (int k = 0; k < N; k++)
            a[k] = rec_val(60 + side, k);
        MPI_Sendrecv(a, N, rt, 0, 5, b, N, rt, 0, 5, inter, MPI_STATUS_IGNORE);
        for (int k = 0; k < N; k++)
            CHECK(same(&b[k], 60 + 1 - side, k));
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size < 2) {
        MPI_Finalize();
        return 0;
    }
    int half = size / 2, side = rank >= half;
    MPI_Comm local, inter, dup, merged;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    CHECK_RC(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, side ? 0 : half, 11, &inter),
             MPI_SUCCESS);
    int rsize, lsize;
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_size(inter, &lsize);
    CHECK(lsize == (side ? size - half : half) && rsize == (side ? half : size - half));
    /* the remote group: world ranks of the other half, in order */
    MPI_Group rg, wg;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int r = 0; r < rsize; r++) {
        int w;
        MPI_Group_translate_ranks(rg, 1, &r, wg, &w);
        CHECK(w == (side ? r : half + r));
    }
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);
    MPI_Datatype rt = rec_type();
    across(inter, side, rt);
    CHECK_RC(MPI_Comm_dup(inter, &dup), MPI_SUCCESS);
    across(dup, side, rt);
    /* merge: the second half asks to be high */
    CHECK_RC(MPI_Intercomm_merge(inter, side, &merged), MPI_SUCCESS);
    int mrank;
    MPI_Comm_rank(merged, &mrank);
    CHECK(mrank == rank);
    int one = 1, n = 0;
    MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, merged);
    CHECK(n == size);
    MPI_Type_free(&rt);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("hetero intercomm: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
