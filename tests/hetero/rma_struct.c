/* One-sided operations whose target datatype holds several basic types, between ranks of
 * unlike architectures (tests/hetero, issue 19): each rank works on its right neighbour's
 * window (run with the neighbours unlike) with a struct of an int, a double, a long, chars
 * and a long double, padded as C pads it: put and get in fences and a lock epoch; a strided
 * vector of the struct; a struct without gaps (contiguous, of two basic types); accumulate
 * and get_accumulate of MPI_MAXLOC on MPI_DOUBLE_INT (a pair type; an accumulate on the
 * struct is erroneous everywhere). The target converts what the origin sends, the origin what
 * the target returns. On one architecture the same program checks the same. */
#include "../mpi/check.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4 };

typedef struct rec {
    int i;
    double d;
    long l;
    char c[3];
    long double ld;
} rec_t;

typedef struct flat { /* no gaps: one contiguous block of two basic types */
    long l;
    double d;
} flat_t;

typedef struct cell {
    rec_t r[N];
    rec_t spread[2 * N];
    flat_t f[N];
    struct {
        double v;
        int at;
    } m[N];
} cell_t;

static MPI_Datatype rec_type(void)
{
    int bl[5] = { 1, 1, 1, 3, 1 };
    MPI_Aint disp[5] = { offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, l),
                         offsetof(rec_t, c), offsetof(rec_t, ld) };
    MPI_Datatype types[5] = { MPI_INT, MPI_DOUBLE, MPI_LONG, MPI_CHAR, MPI_LONG_DOUBLE }, t, r;
    MPI_Type_create_struct(5, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(rec_t), &r);
    MPI_Type_free(&t);
    MPI_Type_commit(&r);
    return r;
}

static MPI_Datatype flat_type(void)
{
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { offsetof(flat_t, l), offsetof(flat_t, d) };
    MPI_Datatype types[2] = { MPI_LONG, MPI_DOUBLE }, t;
    MPI_Type_create_struct(2, bl, disp, types, &t);
    MPI_Type_commit(&t);
    return t;
}

/* the record rank r writes as its k-th with seed s */
static rec_t rec_of(int r, int k, int s)
{
    return (rec_t){ r * 100 + k + s, r * 1.5 - k / 4.0 + s, ((long)(r + 1) << 35) - 3 * k - s,
                    { 'a', (char)('0' + r), (char)k }, r * 0.125L + k + s };
}

static int rec_eq(const rec_t *a, const rec_t *b)
{
    return a->i == b->i && a->d == b->d && a->l == b->l && !memcmp(a->c, b->c, 3) &&
           a->ld == b->ld;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cell_t *mem;
    MPI_Win w;
    CHECK_RC(MPI_Win_allocate(sizeof *mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w),
             MPI_SUCCESS);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    memset(mem, 0, sizeof *mem);
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Datatype rt = rec_type(), ft = flat_type(), every2;
    MPI_Type_vector(N, 1, 2, rt, &every2);
    MPI_Type_commit(&every2);
    rec_t mine[N], got[N];
    flat_t fl[N], fgot[N];
    for (int k = 0; k < N; k++) {
        mine[k] = rec_of(rank, k, 0);
        fl[k] = (flat_t){ ((long)rank << 40) + k, rank + k / 8.0 };
    }

    /* fence: put of structs, every other struct of the target (a vector of the struct),
     * structs without gaps */
    MPI_Win_fence(0, w);
    CHECK_RC(MPI_Put(mine, N, rt, right, offsetof(cell_t, r), N, rt, w), MPI_SUCCESS);
    CHECK_RC(MPI_Put(mine, N, rt, right, offsetof(cell_t, spread), 1, every2, w), MPI_SUCCESS);
    CHECK_RC(MPI_Put(fl, N, ft, right, offsetof(cell_t, f), N, ft, w), MPI_SUCCESS);
    MPI_Win_fence(0, w);
    for (int k = 0; k < N; k++) {
        rec_t want = rec_of(left, k, 0);
        CHECK(rec_eq(&mem->r[k], &want));
        CHECK(rec_eq(&mem->spread[2 * k], &want) && mem->spread[2 * k + 1].i == 0);
        CHECK(mem->f[k].l == ((long)left << 40) + k && mem->f[k].d == left + k / 8.0);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* fence: get of structs (the target's data, converted at the origin), and of the
     * contiguous ones */
    CHECK_RC(MPI_Get(got, N, rt, right, offsetof(cell_t, spread), 1, every2, w), MPI_SUCCESS);
    CHECK_RC(MPI_Get(fgot, N, ft, right, offsetof(cell_t, f), N, ft, w), MPI_SUCCESS);
    MPI_Win_fence(0, w);
    for (int k = 0; k < N; k++) {
        CHECK(rec_eq(&got[k], &mine[k]));
        CHECK(fgot[k].l == fl[k].l && fgot[k].d == fl[k].d);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* fence: MPI_MAXLOC on MPI_DOUBLE_INT (a pair: two basic types); an accumulate on the
     * struct is erroneous, even with MPI_REPLACE (MPI-3.1 §11.3.4: one predefined type) */
    struct {
        double v;
        int at;
    } loc[N], was[N];
    for (int k = 0; k < N; k++)
        loc[k].v = k % 2 ? -1.0 : rank + 0.5, loc[k].at = rank;
    MPI_Win_fence(0, w);
    CHECK_RC(MPI_Accumulate(loc, N, MPI_DOUBLE_INT, right, offsetof(cell_t, m), N,
                            MPI_DOUBLE_INT, MPI_MAXLOC, w), MPI_SUCCESS);
    int rc = MPI_Accumulate(mine, N, rt, right, offsetof(cell_t, r), N, rt, MPI_REPLACE, w);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
    MPI_Win_fence(0, w);
    for (int k = 0; k < N; k++)
        CHECK(k % 2 ? mem->m[k].v == 0 && mem->m[k].at == 0
                    : mem->m[k].v == left + 0.5 && mem->m[k].at == left);
    MPI_Barrier(MPI_COMM_WORLD);

    /* lock epoch: get_accumulate of MPI_DOUBLE_INT (the old pairs back), a put and a get of
     * structs */
    for (int k = 0; k < N; k++) {
        mine[k] = rec_of(rank, k, 2);
        loc[k].v = 100.0 + rank, loc[k].at = -rank;
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w);
    CHECK_RC(MPI_Get_accumulate(loc, N, MPI_DOUBLE_INT, was, N, MPI_DOUBLE_INT, right,
                                offsetof(cell_t, m), N, MPI_DOUBLE_INT, MPI_MAXLOC, w),
             MPI_SUCCESS);
    CHECK_RC(MPI_Put(mine, N, rt, right, offsetof(cell_t, r), N, rt, w), MPI_SUCCESS);
    CHECK_RC(MPI_Win_flush(right, w), MPI_SUCCESS);
    CHECK_RC(MPI_Get(got, N, rt, right, offsetof(cell_t, r), N, rt, w), MPI_SUCCESS);
    MPI_Win_unlock(right, w);
    for (int k = 0; k < N; k++) {
        CHECK(k % 2 ? was[k].v == 0 && was[k].at == 0
                    : was[k].v == rank + 0.5 && was[k].at == rank);
        CHECK(rec_eq(&got[k], &mine[k]));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w);
    for (int k = 0; k < N; k++) {
        rec_t want = rec_of(left, k, 2);
        CHECK(rec_eq(&mem->r[k], &want));
        CHECK(mem->m[k].v == 100.0 + left && mem->m[k].at == -left);
    }
    MPI_Win_unlock(rank, w);

    MPI_Type_free(&every2);
    MPI_Type_free(&rt);
    MPI_Type_free(&ft);
    MPI_Win_free(&w);
    if (rank == 0)
        printf("hetero rma_struct: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
