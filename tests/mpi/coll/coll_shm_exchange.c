/* Allgather and alltoall of small blocks back to back (the shared-memory path on one host,
 * coll/shm/exchange.c; any MPI runs it): many calls of odd sizes around the slot's inline
 * limit and the size limits, on several communicators at once (the world, a duplicate, the
 * members of one parity, the world in reverse order), blocking and nonblocking calls
 * interleaved and completed out of order, in place, and receive buffers of a strided type;
 * blocks that do not match the receive side (MPI_ERR_TRUNCATE).
 * A call that reads a slot of the wrong operation (a sequence-number bug) shows as a wrong
 * byte. Plain MPI. */
#include "coll_check.h"

#define ITERS 240
#define NTC 4

static const int sizes[] = { 1, 3, 7, 8, 13, 55, 56, 57, 63, 64, 65, 127, 129, 511, 1000,
                             1023, 1025, 4095, 4096, 4097 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* The byte that world rank src sends to world rank dst in call it, position i. */
static unsigned char xval(int it, int src, int dst, size_t i)
{
    return (unsigned char)mix3((uint32_t)it, (uint32_t)(src * 257 + dst), (uint32_t)i);
}

typedef struct {
    MPI_Comm c;
    int n, me;
    int *world; /* rank -> world rank */
} tcomm_t;

static void make(tcomm_t *t, MPI_Comm c)
{
    t->c = c;
    MPI_Comm_size(c, &t->n);
    MPI_Comm_rank(c, &t->me);
    t->world = malloc((size_t)t->n * sizeof(int));
    int w;
    MPI_Comm_rank(MPI_COMM_WORLD, &w);
    MPI_Allgather(&w, 1, MPI_INT, t->world, 1, MPI_INT, c);
}

/* One call (kind 0: allgather, 1: alltoall) of bb bytes per block: the buffers it needs,
 * filled, and its check. mode 0: plain; 1: in place; 2: receive buffer strided (every
 * block's bytes at even positions). */
typedef struct {
    int kind, mode, it;
    size_t bb;
    tcomm_t *t;
    unsigned char *s, *r;
    MPI_Datatype rt;
    MPI_Request req;
} call_t;

static void prepare(call_t *k)
{
    tcomm_t *t = k->t;
    size_t n = (size_t)t->n, bb = k->bb;
    int me = t->world[t->me];
    size_t rbytes = k->mode == 2 ? 2 * n * bb : n * bb;
    k->r = calloc(rbytes, 1);
    k->s = calloc(n * bb, 1);
    unsigned char *src = k->mode == 1 ? k->r : k->s;
    if (k->kind == 0) {
        unsigned char *at = k->mode == 1 ? k->r + (size_t)t->me * bb : k->s;
        for (size_t i = 0; i < bb; i++)
            at[i] = xval(k->it, me, -1, i);
    } else {
        for (size_t d = 0; d < n; d++)
            for (size_t i = 0; i < bb; i++)
                src[d * bb + i] = xval(k->it, me, t->world[d], i);
    }
    k->rt = MPI_BYTE;
    if (k->mode == 2) {
        MPI_Datatype v;
        MPI_Type_vector((int)bb, 1, 2, MPI_BYTE, &v);
        MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * bb), &k->rt);
        MPI_Type_free(&v);
        MPI_Type_commit(&k->rt);
    }
}

static void start(call_t *k, int nb)
{
    tcomm_t *t = k->t;
    int cnt = k->mode == 2 ? 1 : (int)k->bb;
    const void *sb = k->mode == 1 ? MPI_IN_PLACE : k->s;
    int rc;
    if (k->kind == 0)
        rc = nb ? MPI_Iallgather(sb, (int)k->bb, MPI_BYTE, k->r, cnt, k->rt, t->c, &k->req)
                : MPI_Allgather(sb, (int)k->bb, MPI_BYTE, k->r, cnt, k->rt, t->c);
    else
        rc = nb ? MPI_Ialltoall(sb, (int)k->bb, MPI_BYTE, k->r, cnt, k->rt, t->c, &k->req)
                : MPI_Alltoall(sb, (int)k->bb, MPI_BYTE, k->r, cnt, k->rt, t->c);
    CHECK_RC(rc, MPI_SUCCESS);
    if (!nb)
        k->req = MPI_REQUEST_NULL;
}

static void verify(call_t *k)
{
    tcomm_t *t = k->t;
    int me = t->world[t->me];
    for (int m = 0; m < t->n; m++)
        for (size_t i = 0; i < k->bb; i++) {
            size_t at = k->mode == 2 ? 2 * ((size_t)m * k->bb + i) : (size_t)m * k->bb + i;
            unsigned char want = xval(k->it, t->world[m], k->kind == 0 ? -1 : me, i);
            if (k->r[at] != want) {
                fprintf(stderr, "rank %d: %s it %d bb %zu mode %d, block of rank %d byte %zu: "
                                "%u, expected %u\n",
                        me, k->kind ? "alltoall" : "allgather", k->it, k->bb, k->mode, m, i,
                        k->r[at], want);
                CHECK(0);
                return;
            }
            if (k->mode == 2 && k->r[at + 1] != 0) {
                fprintf(stderr, "rank %d: gap byte written\n", me);
                CHECK(0);
                return;
            }
        }
    if (k->rt != MPI_BYTE)
        MPI_Type_free(&k->rt);
    free(k->s);
    free(k->r);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup, half, rev;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    tcomm_t tcs[NTC];
    make(&tcs[0], MPI_COMM_WORLD);
    make(&tcs[1], dup);
    make(&tcs[2], half);
    make(&tcs[3], rev);

    /* every iteration: one call per communicator, alternately blocking and nonblocking (the
     * nonblocking ones completed in reverse order after the blocking ones); the same choices
     * at every rank (a shared generator) */
    rng_t g = { 12345 };
    for (int it = 0; it < ITERS; it++) {
        call_t k[NTC];
        int nb[NTC];
        for (int ci = 0; ci < NTC; ci++) {
            k[ci] = (call_t){ .kind = rng_int(&g, 2), .mode = rng_int(&g, 3), .it = it,
                              .bb = (size_t)sizes[rng_int(&g, NSIZES)], .t = &tcs[ci] };
            nb[ci] = rng_int(&g, 2);
            prepare(&k[ci]);
        }
        for (int ci = 0; ci < NTC; ci++)
            start(&k[ci], nb[ci]);
        for (int ci = NTC - 1; ci >= 0; ci--)
            CHECK_RC(MPI_Wait(&k[ci].req, MPI_STATUS_IGNORE), MPI_SUCCESS);
        for (int ci = 0; ci < NTC; ci++)
            verify(&k[ci]);
    }
    /* a long run of one size on one communicator: the slots wrap many times */
    for (int it = 0; it < 200; it++) {
        call_t k = { .kind = it % 2, .mode = 0, .it = ITERS + it, .bb = 24, .t = &tcs[0] };
        prepare(&k);
        start(&k, 0);
        verify(&k);
    }
#ifdef METAMPI
    /* every member sends blocks larger than it receives (an erroneous program, alike at
     * every member): on one host with 3+ ranks each one's call ends at once with
     * MPI_ERR_TRUNCATE (the shared-memory path copies no more than a block), and the area
     * serves the next call */
    MPI_Comm node;
    int nsize;
    MPI_Comm_split_type(dup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    if (size >= 3 && nsize == size && !getenv("METAMPI_COLL_VIRTUAL_HOSTS")) {
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
        unsigned char sb[64 * 9] = { 0 }, rb[64 * 8];
        CHECK_ERR(MPI_Allgather(sb, 9, MPI_BYTE, rb, 8, MPI_BYTE, dup), MPI_ERR_TRUNCATE);
        CHECK_ERR(MPI_Alltoall(sb, 9, MPI_BYTE, rb, 8, MPI_BYTE, dup), MPI_ERR_TRUNCATE);
        call_t k = { .kind = 1, .mode = 0, .it = 9999, .bb = 8, .t = &tcs[1] };
        prepare(&k);
        start(&k, 0);
        verify(&k);
    }
    MPI_Comm_free(&node);
#endif
    for (int ci = 0; ci < NTC; ci++)
        free(tcs[ci].world);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    MPI_Comm_free(&rev);
    MPI_Finalize();
    if (rank == 0)
        printf("coll_shm_exchange: ok\n");
    return 0;
}
