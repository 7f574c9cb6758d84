/* Nonblocking reduction collectives: many outstanding at once on one communicator and on
 * several, interleaved with point-to-point traffic on the same communicator, completed in
 * every order (Waitall, reverse Wait, Test polling); the datatype and op freed right after
 * the call that uses them; results checked against rank-order references. */
#include "red_test.h"

#include <stdio.h>

enum { K = 6 };

#define EXPECT(cond, what)                                                                     \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL rank %d: %s (line %d)\n", check_rank_(), what, __LINE__);    \
            fflush(stderr);                                                                    \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
        }                                                                                      \
    } while (0)

static int n, me;

/* K Iallreduces of different sizes at once, plus a ring of Isend/Irecv on the same
 * communicator in between; completion order chosen by mode. */
static void burst(MPI_Comm comm, const tcase_t *c, int mode, int salt0)
{
    static const size_t counts[K] = { 1, 0, 7, 300, 5000, 2 };
    void *sb[K], *rb[K], *ref = NULL;
    MPI_Request req[K + 2];
    int tok_out = me * 10 + mode, tok_in = -1;
    for (int k = 0; k < K; k++) {
        sb[k] = alloc_buf(c, counts[k]);
        rb[k] = alloc_buf(c, counts[k]);
        fill(c, sb[k], counts[k], me, salt0 + k);
        CHECK_RC(MPI_Iallreduce(sb[k], rb[k], (int)counts[k], c->dt, c->op, comm, &req[k]),
                 MPI_SUCCESS);
        if (k == 2) { /* user traffic with a tag a collective might use */
            CHECK_RC(MPI_Irecv(&tok_in, 1, MPI_INT, (me - 1 + n) % n, 0, comm, &req[K]), 0);
            CHECK_RC(MPI_Isend(&tok_out, 1, MPI_INT, (me + 1) % n, 0, comm, &req[K + 1]), 0);
        }
    }
    if (mode == 0) {
        CHECK_RC(MPI_Waitall(K + 2, req, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    } else if (mode == 1) {
        for (int k = K + 1; k >= 0; k--)
            CHECK_RC(MPI_Wait(&req[k], MPI_STATUS_IGNORE), MPI_SUCCESS);
    } else {
        int done = 0;
        while (!done)
            CHECK_RC(MPI_Testall(K + 2, req, &done, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    }
    EXPECT(tok_in == ((me - 1 + n) % n) * 10 + mode, "point-to-point token between Iallreduces");
    for (int k = 0; k < K; k++) {
        ref = alloc_buf(c, counts[k]);
        fold(c, ref, counts[k], 0, n, salt0 + k);
        EXPECT(same(c, rb[k], ref, counts[k]), c->name);
        free_buf(c, ref);
        free_buf(c, sb[k]);
        free_buf(c, rb[k]);
    }
}

/* One of each reduction collective outstanding together, on two communicators. */
static void mixed(MPI_Comm a, MPI_Comm b)
{
    const tcase_t *c = &cases[6]; /* affine: order matters */
    enum { CNT = 33 };
    void *s1 = alloc_buf(c, CNT), *r1 = alloc_buf(c, CNT), *r2 = alloc_buf(c, CNT);
    void *r3 = alloc_buf(c, CNT), *r4 = alloc_buf(c, CNT), *r5 = alloc_buf(c, CNT);
    void *s6 = alloc_buf(c, (size_t)CNT * n), *r6 = alloc_buf(c, CNT);
    void *ref = alloc_buf(c, (size_t)CNT * n);
    fill(c, s1, CNT, me, 900);
    fill(c, s6, (size_t)CNT * n, me, 901);
    MPI_Request q[7];
    int root = n / 2;
    CHECK_RC(MPI_Ibarrier(a, &q[0]), MPI_SUCCESS);
    CHECK_RC(MPI_Iallreduce(s1, r1, CNT, c->dt, c->op, b, &q[1]), MPI_SUCCESS);
    CHECK_RC(MPI_Ireduce(s1, me == root ? r2 : NULL, CNT, c->dt, c->op, root, a, &q[2]), 0);
    CHECK_RC(MPI_Iscan(s1, r3, CNT, c->dt, c->op, b, &q[3]), MPI_SUCCESS);
    CHECK_RC(MPI_Iexscan(s1, r4, CNT, c->dt, c->op, a, &q[4]), MPI_SUCCESS);
    copy_buf(c, r5, s1, CNT);
    CHECK_RC(MPI_Iallreduce(MPI_IN_PLACE, r5, CNT, c->dt, c->op, a, &q[5]), MPI_SUCCESS);
    CHECK_RC(MPI_Ireduce_scatter_block(s6, r6, CNT, c->dt, c->op, b, &q[6]), MPI_SUCCESS);
    CHECK_RC(MPI_Waitall(7, q, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    fold(c, ref, CNT, 0, n, 900);
    EXPECT(same(c, r1, ref, CNT), "Iallreduce among others");
    EXPECT(same(c, r5, ref, CNT), "Iallreduce in place among others");
    if (me == root)
        EXPECT(same(c, r2, ref, CNT), "Ireduce among others");
    fold(c, ref, CNT, 0, me + 1, 900);
    EXPECT(same(c, r3, ref, CNT), "Iscan among others");
    if (me > 0) {
        fold(c, ref, CNT, 0, me, 900);
        EXPECT(same(c, r4, ref, CNT), "Iexscan among others");
    }
    fold(c, ref, (size_t)CNT * n, 0, n, 901);
    EXPECT(same_at(c, r6, ref, (size_t)CNT * (size_t)me, CNT),
           "Ireduce_scatter_block among others");
    void *all[] = { s1, r1, r2, r3, r4, r5, s6, r6, ref };
    for (int i = 0; i < 9; i++)
        free_buf(c, all[i]);
}

/* affine on the vector type's layout: element i is the pair of ints 4i and 4i+3 */
static void affine_vec(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        unsigned a1 = a[4 * i], b1 = a[4 * i + 3], a2 = b[4 * i], b2 = b[4 * i + 3];
        b[4 * i] = a1 * a2;
        b[4 * i + 3] = b1 * a2 + b2;
    }
}

/* The type and the op go away while the operation runs. */
static void freed_handles(MPI_Comm comm)
{
    MPI_Datatype t;
    MPI_Op op;
    MPI_Type_vector(2, 1, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    MPI_Op_create(affine_vec, 0, &op);
    enum { CNT = 2000 };
    int *s = malloc(sizeof(int) * 4 * CNT), *r = malloc(sizeof(int) * 4 * CNT);
    for (int i = 0; i < 4 * CNT; i++) {
        s[i] = (int)(mix((uint32_t)(me * 77 + i)) | 1);
        r[i] = -1;
    }
    MPI_Request req;
    CHECK_RC(MPI_Iallreduce(s, r, CNT, t, op, comm, &req), MPI_SUCCESS);
    MPI_Type_free(&t);
    MPI_Op_free(&op);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    /* reference: element i of the vector type is ints 4i and 4i+3, an affine pair */
    for (int i = 0; i < CNT; i++) {
        unsigned a = 0, b = 0;
        for (int q = 0; q < n; q++) {
            unsigned a2 = mix((uint32_t)(q * 77 + 4 * i)) | 1, b2 = mix((uint32_t)(q * 77 + 4 * i + 3)) | 1;
            if (q == 0) {
                a = a2;
                b = b2;
            } else {
                b = b * a2 + b2;
                a = a * a2;
            }
        }
        EXPECT((unsigned)r[4 * i] == a && (unsigned)r[4 * i + 3] == b && r[4 * i + 1] == -1 &&
                   r[4 * i + 2] == -1, "Iallreduce after MPI_Type_free and MPI_Op_free");
    }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    cases_init();
    MPI_Comm dup;
    CHECK_RC(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    for (int mode = 0; mode < 3; mode++) {
        burst(MPI_COMM_WORLD, &cases[0], mode, 100 * mode);
        burst(dup, &cases[6], mode, 100 * mode + 50);
    }
    for (int i = 0; i < 3; i++)
        mixed(MPI_COMM_WORLD, dup);
    mixed(dup, dup);
    freed_handles(MPI_COMM_WORLD);
    /* blocking and nonblocking interleaved on one communicator */
    MPI_Request req;
    int x = me + 1, y = 0, z = 0;
    CHECK_RC(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    CHECK_RC(MPI_Allreduce(&x, &z, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(y == n * (n + 1) / 2 && z == n);
    MPI_Comm_free(&dup);
    cases_free();
    MPI_Finalize();
    return 0;
}
