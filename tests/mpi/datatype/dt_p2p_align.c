/* Point-to-point with derived datatypes around the thresholds of the streaming path: blocks
 * just below, at and above multiples of a cache line (56-72 B, 136 B, 248-264 B, 1016-1032 B,
 * 4104 B), at byte offsets that put them off a line, as vectors, indexed
 * types of mixed blocks and structs with holes; messages just below and above the eager limit
 * (8 KiB on one host), a DATA payload (65472 B on one host) and a few of them. Three messages
 * of each case are in flight at once (so several frames share the ring), around a ring of
 * ranks (rank r sends to r + 1), typed to typed and typed to bytes; the receiver checks every
 * byte against the reference typemap (dt_p2p.h) and its gaps for the sentinel. */
#include "dt_p2p.h"

enum { TAG = 9, INFLIGHT = 3 };

static const int blocks[] = { 56, 64, 72, 136, 248, 256, 264, 1016, 1032, 4104 };
static const int totals[] = { 8000, 8400, 65472, 140000 };

/* A vector of blk-byte blocks every (blk + gap) bytes at byte offset off (an hvector of
 * MPI_BYTE, resized to start at off), about total bytes of data. */
static MPI_Datatype hvec(int blk, int gap, int off, int total)
{
    MPI_Datatype v, t;
    int n = total / blk > 0 ? total / blk : 1;
    CHECK_RC(MPI_Type_create_hvector(n, blk, blk + gap, MPI_BYTE, &v), MPI_SUCCESS);
    int one = 1;
    MPI_Aint disp = off;
    CHECK_RC(MPI_Type_create_hindexed(1, &one, &disp, v, &t), MPI_SUCCESS);
    MPI_Type_free(&v);
    return t;
}

/* Blocks of blk - 8, blk and blk + 8 bytes in turn, 24 bytes apart. */
static MPI_Datatype mixed(int blk, int total)
{
    int n = total / blk > 0 ? total / blk : 1;
    int *len = malloc(sizeof(int) * (size_t)n);
    MPI_Aint *disp = malloc(sizeof(MPI_Aint) * (size_t)n);
    MPI_Aint at = 8;
    for (int i = 0; i < n; i++) {
        len[i] = blk + (i % 3 - 1) * 8;
        disp[i] = at;
        at += len[i] + 24;
    }
    MPI_Datatype t;
    CHECK_RC(MPI_Type_create_hindexed(n, len, disp, MPI_BYTE, &t), MPI_SUCCESS);
    free(len);
    free(disp);
    return t;
}

/* A struct of a double and blk - 8 bytes, 16 bytes of hole after it, count of them. */
static MPI_Datatype holey(int blk, int *count, int total)
{
    int len[2] = { 1, blk - 8 };
    MPI_Aint disp[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_DOUBLE, MPI_BYTE }, s, t;
    CHECK_RC(MPI_Type_create_struct(2, len, disp, types, &s), MPI_SUCCESS);
    CHECK_RC(MPI_Type_create_resized(s, 0, blk + 16, &t), MPI_SUCCESS);
    MPI_Type_free(&s);
    *count = total / blk > 0 ? total / blk : 1;
    return t;
}

static void check_typed(const char *name, const map_t *m, const tbuf_t *rb,
                        const unsigned char *want, const MPI_Status *st, MPI_Datatype t,
                        int count)
{
    int n;
    MPI_Get_count(st, t, &n);
    long bad = check_received(m, rb, want, (size_t)m->bytes);
    if (n != count || bad >= 0) {
        fprintf(stderr, "rank %d: %s: count %d of %d, first bad byte %ld\n", dt_rank, name, n,
                count, bad);
        CHECK(0);
    }
}

/* INFLIGHT messages of (t, count) around the ring, received typed (or as bytes). */
static void ring(const char *name, MPI_Datatype t, int count, int as_bytes)
{
    int dest = (dt_rank + 1) % dt_size, src = (dt_rank + dt_size - 1) % dt_size;
    map_t m = ref_map(t, count);
    int bytes = (int)m.bytes;
    tbuf_t sb[INFLIGHT], rb[INFLIGHT];
    unsigned char *want[INFLIGHT], *flat[INFLIGHT];
    MPI_Request req[2 * INFLIGHT];
    for (int k = 0; k < INFLIGHT; k++) {
        sb[k] = tbuf_alloc(&m);
        rb[k] = tbuf_alloc(&m);
        tbuf_fill(&sb[k], 10 * dt_rank + k + 1);
        memset(rb[k].mem, SENTINEL, rb[k].span);
        tbuf_t pb = tbuf_alloc(&m); /* what src sends as message k */
        tbuf_fill(&pb, 10 * src + k + 1);
        want[k] = stream_of(&m, pb.base);
        free(pb.mem);
        flat[k] = malloc((size_t)bytes + 1);
        memset(flat[k], SENTINEL, (size_t)bytes + 1);
        if (as_bytes)
            CHECK_RC(MPI_Irecv(flat[k], bytes + 1, MPI_BYTE, src, TAG, MPI_COMM_WORLD, &req[k]),
                     MPI_SUCCESS);
        else
            CHECK_RC(MPI_Irecv(rb[k].base, count, t, src, TAG, MPI_COMM_WORLD, &req[k]),
                     MPI_SUCCESS);
    }
    for (int k = 0; k < INFLIGHT; k++)
        CHECK_RC(MPI_Isend(sb[k].base, count, t, dest, TAG, MPI_COMM_WORLD,
                           &req[INFLIGHT + k]),
                 MPI_SUCCESS);
    MPI_Status st[2 * INFLIGHT];
    CHECK_RC(MPI_Waitall(2 * INFLIGHT, req, st), MPI_SUCCESS);
    for (int k = 0; k < INFLIGHT; k++) {
        if (!as_bytes) {
            check_typed(name, &m, &rb[k], want[k], &st[k], t, count);
        } else {
            int n;
            MPI_Get_count(&st[k], MPI_BYTE, &n);
            if (n != bytes || memcmp(flat[k], want[k], (size_t)bytes) || flat[k][bytes] != SENTINEL) {
                fprintf(stderr, "rank %d: %s: typed -> bytes: %d of %d bytes, wrong data\n",
                        dt_rank, name, n, bytes);
                CHECK(0);
            }
        }
        free(sb[k].mem);
        free(rb[k].mem);
        free(want[k]);
        free(flat[k]);
    }
    map_free(&m);
}

static void run(const char *what, MPI_Datatype t, int count, int blk, int total)
{
    char name[96];
    snprintf(name, sizeof name, "%s, %d B blocks, about %d B", what, blk, total);
    CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
    ring(name, t, count, 0);
    ring(name, t, count, 1);
    CHECK_RC(MPI_Type_free(&t), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (size_t s = 0; s < sizeof totals / sizeof *totals; s++) {
            int blk = blocks[b], total = totals[s], count;
            if (blk > total)
                continue;
            run("hvector at +0", hvec(blk, blk, 0, total), 1, blk, total);
            run("hvector at +24", hvec(blk, 40, 24, total), 1, blk, total);
            run("hvector at +3", hvec(blk, 5, 3, total), 1, blk, total);
            run("hindexed mixed", mixed(blk, total), 1, blk, total);
            MPI_Datatype h = holey(blk, &count, total);
            run("struct with holes", h, count, blk, total);
        }
    dt_finish("dt_p2p_align");
    return 0;
}
