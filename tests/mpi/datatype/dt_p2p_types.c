/* Point-to-point with derived datatypes: a catalogue of types (vectors with blocks from 8 B to
 * 8 KiB, hvector, indexed, hindexed, indexed_block, hindexed_block, struct with padding, the
 * three faces of a 3-D subarray, a resized matrix column, pair types, darray, negative
 * strides, a contiguous derived type) at every size class (eager, rendezvous of medium and
 * large messages), each sent around a ring three ways: typed to typed, typed to contiguous
 * bytes, contiguous bytes to typed. The receiver checks every byte against the reference
 * typemap (dt_p2p.h), and the gaps of its buffer for the sentinel.
 *
 * Run with the default protocol settings and with METAMPI_SHM_CMA=0 (two-copy rendezvous),
 * METAMPI_DT_IOV_MIN=1 (remote iovecs even for 8-byte blocks, thousands per message) and
 * METAMPI_DT_IOV_MIN=1G (every typed rendezvous streams DATA frames). */
#include "dt_p2p.h"

enum { TAG = 7 };

typedef struct tcase {
    char name[80];
    MPI_Datatype t;
    int count;
} tcase_t;

static tcase_t cases[256];
static int ncases;

static void add(const char *name, MPI_Datatype t, int count)
{
    CHECK(ncases < 256);
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
    tcase_t *c = &cases[ncases++];
    snprintf(c->name, sizeof c->name, "%s x%d", name, count);
    c->t = t;
    c->count = count;
}

/* A vector of doubles with blocks of blk bytes, every other block, total bytes of data. */
static void vec(size_t blk, size_t total)
{
    MPI_Datatype t;
    int bl = (int)(blk / 8), n = (int)(total / blk);
    CHECK_RC(MPI_Type_vector(n, bl, 2 * bl, MPI_DOUBLE, &t), MPI_SUCCESS);
    char name[64];
    snprintf(name, sizeof name, "vector %zu B blocks, %zu B", blk, total);
    add(name, t, 1);
}

static void catalogue(void)
{
    static const size_t totals[3] = { 2048, 64 << 10, 512 << 10 };
    for (int s = 0; s < 3; s++)
        for (size_t blk = 8; blk <= 8192; blk *= 8)
            if (blk <= totals[s])
                vec(blk, totals[s]);
    vec(256, 200 << 10);
    for (int s = 0; s < 3; s++) {
        int scale = s == 0 ? 1 : s == 1 ? 30 : 200;
        MPI_Datatype t, u;
        /* hvector of 3-int blocks, 20 bytes apart (unaligned blocks) */
        CHECK_RC(MPI_Type_create_hvector(64, 3, 20, MPI_INT, &t), MPI_SUCCESS);
        add("hvector 12 B blocks stride 20", t, scale);
        /* indexed: irregular blocks of doubles */
        int bl[5] = { 1, 7, 2, 30, 5 }, dp[5] = { 0, 3, 12, 16, 50 };
        CHECK_RC(MPI_Type_indexed(5, bl, dp, MPI_DOUBLE, &t), MPI_SUCCESS);
        add("indexed", t, 4 * scale);
        /* struct {int; double[2]; char} with padding, in an array */
        int sbl[3] = { 1, 2, 1 };
        MPI_Aint sd[3] = { 0, 8, 24 };
        MPI_Datatype st[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
        CHECK_RC(MPI_Type_create_struct(3, sbl, sd, st, &t), MPI_SUCCESS);
        add("struct int,double[2],char", t, 32 * scale);
        /* hindexed of that struct, out of order */
        MPI_Datatype s3;
        CHECK_RC(MPI_Type_create_struct(3, sbl, sd, st, &s3), MPI_SUCCESS);
        int hbl[3] = { 2, 1, 3 };
        MPI_Aint hd[3] = { 200, 0, 64 };
        CHECK_RC(MPI_Type_create_hindexed(3, hbl, hd, s3, &t), MPI_SUCCESS);
        MPI_Type_free(&s3);
        add("hindexed of struct", t, 8 * scale);
        int ib[4] = { 9, 0, 4, 20 };
        CHECK_RC(MPI_Type_create_indexed_block(4, 3, ib, MPI_FLOAT, &t), MPI_SUCCESS);
        add("indexed_block", t, 16 * scale);
        MPI_Aint hb[3] = { 48, 0, 100 };
        CHECK_RC(MPI_Type_create_hindexed_block(3, 2, hb, MPI_SHORT, &t), MPI_SUCCESS);
        add("hindexed_block", t, 40 * scale);
        CHECK_RC(MPI_Type_vector(32, 2, -3, MPI_INT, &t), MPI_SUCCESS);
        add("vector negative stride", t, 4 * scale);
        add("double_int pairs", MPI_DOUBLE_INT, 64 * scale);
        CHECK_RC(MPI_Type_contiguous(12, MPI_INT, &t), MPI_SUCCESS);
        add("contiguous (derived)", t, 16 * scale);
        /* a matrix column resized to one element: count columns = the transpose */
        int n = s == 0 ? 16 : s == 1 ? 64 : 192;
        CHECK_RC(MPI_Type_vector(n, 1, n, MPI_DOUBLE, &u), MPI_SUCCESS);
        CHECK_RC(MPI_Type_create_resized(u, 0, sizeof(double), &t), MPI_SUCCESS);
        MPI_Type_free(&u);
        add("resized column (transpose)", t, n);
        /* the faces of an n^3 array of doubles */
        int m = s == 0 ? 8 : s == 1 ? 32 : 96;
        for (int face = 0; face < 3; face++) {
            int sz[3] = { m, m, m }, sub[3] = { m, m, m }, start[3] = { 0, 0, 0 };
            sub[face] = 1;
            start[face] = m / 2;
            CHECK_RC(MPI_Type_create_subarray(3, sz, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t),
                     MPI_SUCCESS);
            char name[64];
            snprintf(name, sizeof name, "subarray face %d of %d^3", face, m);
            add(name, t, 1);
        }
        /* block-cyclic 2-D darray, rank 1 of a 2x2 grid */
        int gs[2] = { 4 * m, 3 * m }, dist[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK },
            darg[2] = { 3, MPI_DISTRIBUTE_DFLT_DARG }, ps[2] = { 2, 2 };
        CHECK_RC(MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN,
                                        MPI_INT, &t),
                 MPI_SUCCESS);
        add("darray cyclic(3) x block", t, 1);
    }
}

/* One case around the ring, in one of three ways. */
static void ring(const tcase_t *c, int how)
{
    int dest = (dt_rank + 1) % dt_size, src = (dt_rank + dt_size - 1) % dt_size;
    map_t m = ref_map(c->t, c->count);
    int bytes = (int)m.bytes;
    tbuf_t sb = tbuf_alloc(&m), rb = tbuf_alloc(&m);
    tbuf_fill(&sb, dt_rank + 1);
    memset(rb.mem, SENTINEL, rb.span);
    /* the stream src sends: the same map over src's pattern */
    tbuf_t pb = tbuf_alloc(&m);
    tbuf_fill(&pb, src + 1);
    unsigned char *want = stream_of(&m, pb.base), *mine = stream_of(&m, sb.base);
    unsigned char *flat = malloc((size_t)bytes + 1);
    memset(flat, SENTINEL, (size_t)bytes + 1);
    MPI_Request req;
    MPI_Status st;
    if (how == 2)
        CHECK_RC(MPI_Isend(mine, bytes, MPI_BYTE, dest, TAG, MPI_COMM_WORLD, &req),
                 MPI_SUCCESS);
    else
        CHECK_RC(MPI_Isend(sb.base, c->count, c->t, dest, TAG, MPI_COMM_WORLD, &req),
                 MPI_SUCCESS);
    if (how == 1) {
        CHECK_RC(MPI_Recv(flat, bytes + 1, MPI_BYTE, src, TAG, MPI_COMM_WORLD, &st),
                 MPI_SUCCESS);
        int n;
        MPI_Get_count(&st, MPI_BYTE, &n);
        if (n != bytes || memcmp(flat, want, (size_t)bytes) != 0 || flat[bytes] != SENTINEL) {
            fprintf(stderr, "rank %d: %s: typed -> bytes: %d of %d bytes, wrong data\n",
                    dt_rank, c->name, n, bytes);
            CHECK(0);
        }
    } else {
        CHECK_RC(MPI_Recv(rb.base, c->count, c->t, src, TAG, MPI_COMM_WORLD, &st),
                 MPI_SUCCESS);
        int n;
        MPI_Get_count(&st, c->t, &n);
        long bad = check_received(&m, &rb, want, (size_t)bytes);
        if (n != c->count || bad >= 0) {
            fprintf(stderr, "rank %d: %s: %s -> typed: count %d of %d, first bad byte %ld\n",
                    dt_rank, c->name, how ? "bytes" : "typed", n, c->count, bad);
            CHECK(0);
        }
    }
    CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    free(want);
    free(mine);
    free(flat);
    free(sb.mem);
    free(rb.mem);
    free(pb.mem);
    map_free(&m);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    catalogue();
    for (int i = 0; i < ncases; i++)
        for (int how = 0; how < 3; how++)
            ring(&cases[i], how);
    for (int i = 0; i < ncases; i++) {
        int comb, ni, na, nt;
        MPI_Type_get_envelope(cases[i].t, &ni, &na, &nt, &comb);
        if (comb != MPI_COMBINER_NAMED)
            CHECK_RC(MPI_Type_free(&cases[i].t), MPI_SUCCESS);
    }
    dt_finish("dt_p2p_types");
    return 0;
}
