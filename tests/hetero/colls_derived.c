/* Collectives of derived datatypes on a communicator of unlike architectures (tests/hetero):
 * a struct (int, double, long, 3 chars, padding that differs), a strided vector of longs, and
 * a contiguous type of doubles for the reductions; the send and receive sides also describe
 * the same data with different types (MPI_LONG x 3 against the vector). Every collective must
 * deliver values, at small (eager, trees) and large (rendezvous) block sizes, blocking and
 * nonblocking. Run on one architecture it checks the same. */
#include "../mpi/check.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct rec {
    int i;
    double d;
    long l;
    char c[3];
} rec_t;

static MPI_Datatype rec_type, vec_type, dbl4_type;
static int rank, size;

static rec_t rec_val(int owner, int k)
{
    rec_t r;
    memset(&r, 0, sizeof r);
    r.i = owner * 1000 + k;
    r.d = owner + k / 8.0;
    r.l = -((long)(owner + 1) << 34) - k;
    r.c[0] = 'a';
    r.c[1] = (char)owner;
    r.c[2] = (char)k;
    return r;
}

static void check_rec(const rec_t *got, int owner, int k)
{
    rec_t w = rec_val(owner, k);
    CHECK(got->i == w.i && got->d == w.d && got->l == w.l);
    CHECK(got->c[0] == w.c[0] && got->c[1] == w.c[1] && got->c[2] == w.c[2]);
}

static long lval(int owner, int k) { return ((long)owner << 36) + 3 * k - 11; }

static void make_types(void)
{
    int bl[4] = { 1, 1, 1, 3 };
    MPI_Aint disp[4] = { offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, l),
                         offsetof(rec_t, c) };
    MPI_Datatype types[4] = { MPI_INT, MPI_DOUBLE, MPI_LONG, MPI_CHAR }, t;
    MPI_Type_create_struct(4, bl, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(rec_t), &rec_type);
    MPI_Type_free(&t);
    MPI_Type_commit(&rec_type);
    /* three longs, every other one: extent of 5 longs, so the holes stay untouched */
    MPI_Type_vector(3, 1, 2, MPI_LONG, &t);
    MPI_Type_create_resized(t, 0, 6 * sizeof(long), &vec_type);
    MPI_Type_free(&t);
    MPI_Type_commit(&vec_type);
    MPI_Type_contiguous(4, MPI_DOUBLE, &dbl4_type);
    MPI_Type_commit(&dbl4_type);
}

/* n records per block: Bcast from every root, Gather(v)/Scatter(v) to and from a root,
 * Allgather(v), Alltoall(v) */
static void records(int n)
{
    size_t all = (size_t)n * (size_t)size;
    rec_t *a = calloc(all, sizeof *a), *b = calloc(all, sizeof *b);
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    CHECK(a && b && counts && displs);
    for (int root = 0; root < size; root++) {
        for (int k = 0; k < n; k++)
            a[k] = rank == root ? rec_val(root, k) : (rec_t){ 0 };
        CHECK_RC(MPI_Bcast(a, n, rec_type, root, MPI_COMM_WORLD), MPI_SUCCESS);
        for (int k = 0; k < n; k++)
            check_rec(&a[k], root, k);
    }
    int root = size - 1;
    for (int k = 0; k < n; k++)
        a[k] = rec_val(rank, k);
    CHECK_RC(MPI_Gather(a, n, rec_type, b, n, rec_type, root, MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int k = 0; k < n; k++)
                check_rec(&b[(size_t)r * n + k], r, k);
    /* v: rank r has r % 2 + n - 1 records (at least 1... up to n), stored in reverse order */
    int off = 0;
    for (int r = size - 1; r >= 0; r--) {
        counts[r] = n > 1 ? n - r % 2 : 1;
        displs[r] = off;
        off += counts[r];
    }
    memset(b, 0, all * sizeof *b);
    CHECK_RC(MPI_Gatherv(a, counts[rank], rec_type, b, counts, displs, rec_type, 0,
                         MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int k = 0; k < counts[r]; k++)
                check_rec(&b[displs[r] + k], r, k);
    if (rank == root)
        for (int r = 0; r < size; r++)
            for (int k = 0; k < n; k++)
                b[(size_t)r * n + k] = rec_val(r + 50, k);
    CHECK_RC(MPI_Scatter(b, n, rec_type, a, n, rec_type, root, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < n; k++)
        check_rec(&a[k], rank + 50, k);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int k = 0; k < counts[r]; k++)
                b[displs[r] + k] = rec_val(r + 60, k);
    CHECK_RC(MPI_Scatterv(b, counts, displs, rec_type, a, counts[rank], rec_type, 0,
                          MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < counts[rank]; k++)
        check_rec(&a[k], rank + 60, k);
    for (int k = 0; k < n; k++)
        a[k] = rec_val(rank, k);
    CHECK_RC(MPI_Allgather(a, n, rec_type, b, n, rec_type, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < n; k++)
            check_rec(&b[(size_t)r * n + k], r, k);
    memset(b, 0, all * sizeof *b);
    CHECK_RC(MPI_Allgatherv(a, counts[rank], rec_type, b, counts, displs, rec_type,
                            MPI_COMM_WORLD), MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < counts[r]; k++)
            check_rec(&b[displs[r] + k], r, k);
    MPI_Request req;
    memset(b, 0, all * sizeof *b);
    CHECK_RC(MPI_Iallgather(a, n, rec_type, b, n, rec_type, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < n; k++)
            check_rec(&b[(size_t)r * n + k], r, k);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < n; k++)
            a[(size_t)r * n + k] = rec_val(rank * size + r, k);
    CHECK_RC(MPI_Alltoall(a, n, rec_type, b, n, rec_type, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < n; k++)
            check_rec(&b[(size_t)r * n + k], r * size + rank, k);
    /* alltoallv: block r of every rank has counts[r]... the same counts everywhere */
    int *sd = malloc(sizeof(int) * (size_t)size), *rc = malloc(sizeof(int) * (size_t)size);
    int *rd = malloc(sizeof(int) * (size_t)size);
    CHECK(sd && rc && rd);
    for (int r = 0; r < size; r++) {
        sd[r] = r * n;
        rc[r] = counts[rank];
        rd[r] = r * n;
    }
    memset(b, 0, all * sizeof *b);
    CHECK_RC(MPI_Alltoallv(a, counts, sd, rec_type, b, rc, rd, rec_type, MPI_COMM_WORLD),
             MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < counts[rank]; k++)
            check_rec(&b[(size_t)r * n + k], r * size + rank, k);
    free(sd);
    free(rc);
    free(rd);
    free(a);
    free(b);
    free(counts);
    free(displs);
}

/* n vectors (3 longs each, strided) against MPI_LONG x 3n on the other side */
static void vectors(int n)
{
    size_t all = (size_t)n * (size_t)size;
    long *v = calloc(6 * all, sizeof *v), *flat = calloc(3 * all, sizeof *flat);
    CHECK(v && flat);
    /* Gather: sent as vectors, received as plain longs at the root */
    for (int k = 0; k < 3 * n; k++)
        v[(k / 3) * 6 + (k % 3) * 2] = lval(rank, k);
    CHECK_RC(MPI_Gather(v, n, vec_type, flat, 3 * n, MPI_LONG, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int k = 0; k < 3 * n; k++)
                CHECK(flat[(size_t)r * 3 * n + k] == lval(r, k));
    /* Allgather: sent as plain longs, received as vectors (the holes keep -1) */
    for (int k = 0; k < 3 * n; k++)
        flat[k] = lval(rank + 7, k);
    for (size_t k = 0; k < 6 * all; k++)
        v[k] = -1;
    CHECK_RC(MPI_Allgather(flat, 3 * n, MPI_LONG, v, n, vec_type, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 3 * n; k++) {
            size_t at = (size_t)r * 6 * n + (k / 3) * 6 + (k % 3) * 2;
            CHECK(v[at] == lval(r + 7, k) && v[at + 1] == -1);
        }
    /* Bcast of vectors from the last rank: its first block, rank 0's from the allgather */
    if (rank != size - 1)
        for (size_t k = 0; k < 6 * (size_t)n; k++)
            v[k] = 0;
    CHECK_RC(MPI_Bcast(v, n, vec_type, size - 1, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 3 * n; k++)
        CHECK(v[(k / 3) * 6 + (k % 3) * 2] == lval(7, k));
    /* Alltoallw: to rank r, n vectors; from rank r, 3n longs */
    int *sc = malloc(sizeof(int) * (size_t)size), *sd = malloc(sizeof(int) * (size_t)size);
    int *rc = malloc(sizeof(int) * (size_t)size), *rd = malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *st = malloc(sizeof *st * (size_t)size), *rt = malloc(sizeof *rt * (size_t)size);
    CHECK(sc && sd && rc && rd && st && rt);
    for (int r = 0; r < size; r++) {
        sc[r] = n;
        sd[r] = (int)(r * 6 * n * sizeof(long));
        st[r] = vec_type;
        rc[r] = 3 * n;
        rd[r] = (int)(r * 3 * n * sizeof(long));
        rt[r] = MPI_LONG;
        for (int k = 0; k < 3 * n; k++)
            v[(size_t)r * 6 * n + (k / 3) * 6 + (k % 3) * 2] = lval(rank * size + r, k);
    }
    CHECK_RC(MPI_Alltoallw(v, sc, sd, st, flat, rc, rd, rt, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < 3 * n; k++)
            CHECK(flat[(size_t)r * 3 * n + k] == lval(r * size + rank, k));
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
    free(v);
    free(flat);
}

static double dval(int owner, int k) { return owner * 0.5 + k * 0.125 - 3; }

/* n elements of 4 doubles: Reduce, Allreduce, Iallreduce, Reduce_scatter_block, Scan */
static void reductions(int n)
{
    size_t all = 4 * (size_t)n * (size_t)size;
    double *a = malloc(all * sizeof *a), *b = malloc(all * sizeof *b);
    CHECK(a && b);
    for (size_t k = 0; k < all; k++)
        a[k] = dval(rank, (int)k);
    for (int root = 0; root < size; root += size - 1 > 0 ? size - 1 : 1) {
        CHECK_RC(MPI_Reduce(a, b, n, dbl4_type, MPI_SUM, root, MPI_COMM_WORLD), MPI_SUCCESS);
        if (rank == root)
            for (int k = 0; k < 4 * n; k++) {
                double want = 0;
                for (int r = 0; r < size; r++)
                    want += dval(r, k);
                CHECK(b[k] == want);
            }
    }
    CHECK_RC(MPI_Allreduce(a, b, n, dbl4_type, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 4 * n; k++)
        CHECK(b[k] == dval(size - 1, k));
    MPI_Request req;
    CHECK_RC(MPI_Iallreduce(a, b, n, dbl4_type, MPI_SUM, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int k = 0; k < 4 * n; k++) {
        double want = 0;
        for (int r = 0; r < size; r++)
            want += dval(r, k);
        CHECK(b[k] == want);
    }
    CHECK_RC(MPI_Reduce_scatter_block(a, b, n, dbl4_type, MPI_MIN, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 4 * n; k++)
        CHECK(b[k] == dval(0, rank * 4 * n + k));
    CHECK_RC(MPI_Scan(a, b, n, dbl4_type, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 4 * n; k++) {
        double want = 0;
        for (int r = 0; r <= rank; r++)
            want += dval(r, k);
        CHECK(b[k] == want);
    }
    free(a);
    free(b);
}

/* a user's operation on records: the sums of their numbers */
static void rec_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    rec_t *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {
        b[k].i += a[k].i;
        b[k].d += a[k].d;
        b[k].l += a[k].l;
    }
}

/* in place (Alltoall), a user's operation on a struct (Allreduce), a neighbourhood exchange
 * on a ring (Neighbor_alltoall) */
static void extras(int n)
{
    size_t all = (size_t)n * (size_t)(size > 2 ? size : 2); /* two neighbours' blocks */
    rec_t *a = calloc(all, sizeof *a), *b = calloc(all, sizeof *b);
    CHECK(a && b);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < n; k++)
            a[(size_t)r * n + k] = rec_val(rank * size + r, k);
    CHECK_RC(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, n, rec_type, MPI_COMM_WORLD),
             MPI_SUCCESS);
    for (int r = 0; r < size; r++)
        for (int k = 0; k < n; k++)
            check_rec(&a[(size_t)r * n + k], r * size + rank, k);
    MPI_Op sum;
    MPI_Op_create(rec_sum, 1, &sum);
    for (int k = 0; k < n; k++)
        a[k] = rec_val(rank, k);
    CHECK_RC(MPI_Allreduce(a, b, n, rec_type, sum, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < n; k++) {
        rec_t w = { 0 };
        for (int r = 0; r < size; r++) {
            rec_t v = rec_val(r, k);
            w.i += v.i, w.d += v.d, w.l += v.l;
        }
        CHECK(b[k].i == w.i && b[k].d == w.d && b[k].l == w.l);
    }
    MPI_Op_free(&sum);
    MPI_Comm ring;
    int dims[1] = { size }, periods[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int k = 0; k < n; k++) {
        a[k] = rec_val(rank * 10, k);          /* to the left */
        a[n + k] = rec_val(rank * 10 + 1, k);  /* to the right */
    }
    memset(b, 0, all * sizeof *b);
    CHECK_RC(MPI_Neighbor_alltoall(a, n, rec_type, b, n, rec_type, ring), MPI_SUCCESS);
    for (int k = 0; k < n && size > 1; k++) {
        check_rec(&b[k], left * 10 + 1, k);
        check_rec(&b[n + k], right * 10, k);
    }
    MPI_Comm_free(&ring);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_types();
    int big = getenv("HETERO_SMALL") ? 300 : 3000; /* blocks of 3000 records: rendezvous */
    int sizes[] = { 1, 7, big };
    for (int i = 0; i < 3; i++) {
        records(sizes[i]);
        vectors(sizes[i]);
        reductions(sizes[i]);
        extras(sizes[i]);
    }
    MPI_Type_free(&rec_type);
    MPI_Type_free(&vec_type);
    MPI_Type_free(&dbl4_type);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("hetero colls derived: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
