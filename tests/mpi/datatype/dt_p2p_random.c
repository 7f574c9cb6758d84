/* Randomized round trips of nested derived datatypes (vector of struct of indexed of ...):
 * every rank builds the same random types (same seed) with the MPI constructors and, for
 * each, checks three things against the reference typemap walk of dt_p2p.h: MPI_Pack's
 * output (pack vs. reference), a typed send received typed (send/recv vs. reference), and a
 * typed send received as bytes. Sizes range from a few bytes (eager) to about 200 KB
 * (rendezvous).
 *
 * Usage: test_dt_p2p_random [types [seed]] */
#include "dt_p2p.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static int rnd(int lo, int hi) /* inclusive */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (int)(rng % (unsigned long long)(hi - lo + 1));
}

static MPI_Datatype basic(void)
{
    static const MPI_Datatype b[6] = { MPI_DOUBLE, MPI_INT, MPI_CHAR, MPI_SHORT,
                                       MPI_LONG_DOUBLE, MPI_FLOAT };
    return b[rnd(0, 5)];
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, e;
    MPI_Type_get_extent(t, &lb, &e);
    return e > 0 ? e : 1;
}

static void free_derived(MPI_Datatype *t)
{
    int ni, na, nt, comb;
    MPI_Type_get_envelope(*t, &ni, &na, &nt, &comb);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(t);
}

/* A random type nested up to depth levels (uncommitted; the caller frees it). */
static MPI_Datatype make(int depth)
{
    if (depth == 0 || rnd(0, 5) == 0)
        return basic();
    MPI_Datatype old = make(depth - 1), t = MPI_DATATYPE_NULL;
    MPI_Aint e = extent_of(old);
    int n = rnd(1, 5);
    switch (rnd(0, 9)) {
    case 0:
        MPI_Type_contiguous(n, old, &t);
        break;
    case 1:
        MPI_Type_vector(n, rnd(1, 3), rnd(-4, 6), old, &t);
        break;
    case 2:
        MPI_Type_create_hvector(n, rnd(1, 2), (MPI_Aint)rnd(-2, 5) * e + rnd(0, 3), old, &t);
        break;
    case 3: {
        int bl[5], dp[5];
        for (int i = 0; i < n; i++)
            bl[i] = rnd(0, 3), dp[i] = rnd(-3, 12);
        MPI_Type_indexed(n, bl, dp, old, &t);
        break;
    }
    case 4: {
        int bl[5];
        MPI_Aint dp[5];
        for (int i = 0; i < n; i++)
            bl[i] = rnd(1, 2), dp[i] = (MPI_Aint)rnd(0, 8) * e + rnd(-2, 2);
        MPI_Type_create_hindexed(n, bl, dp, old, &t);
        break;
    }
    case 5: {
        int dp[5];
        for (int i = 0; i < n; i++)
            dp[i] = rnd(0, 1) ? 4 * i : rnd(0, 15);
        MPI_Type_create_indexed_block(n, rnd(1, 3), dp, old, &t);
        break;
    }
    case 6: {
        int bl[5];
        MPI_Aint dp[5], at = 0;
        MPI_Datatype ty[5];
        for (int i = 0; i < n; i++) {
            ty[i] = i ? make(depth - 1) : old;
            bl[i] = rnd(1, 2);
            dp[i] = rnd(0, 2) ? at : (MPI_Aint)rnd(0, 64);
            at = dp[i] + bl[i] * extent_of(ty[i]) + rnd(0, 1) * 4;
        }
        MPI_Type_create_struct(n, bl, dp, ty, &t);
        for (int i = 1; i < n; i++)
            free_derived(&ty[i]);
        break;
    }
    case 7:
        MPI_Type_create_resized(old, rnd(-4, 4), (MPI_Aint)rnd(1, 3) * e + rnd(0, 5), &t);
        break;
    case 8: {
        int nd = rnd(1, 3), sz[3], sub[3], st[3];
        for (int d = 0; d < nd; d++) {
            sz[d] = rnd(1, 5);
            sub[d] = rnd(1, sz[d]);
            st[d] = rnd(0, sz[d] - sub[d]);
        }
        MPI_Type_create_subarray(nd, sz, sub, st, rnd(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                                 old, &t);
        break;
    }
    default: {
        int gs[2] = { rnd(1, 7), rnd(1, 7) }, ps[2] = { rnd(1, 2), rnd(1, 3) };
        int dist[2], darg[2];
        for (int d = 0; d < 2; d++) {
            int k = rnd(0, 2);
            dist[d] = k == 0 ? MPI_DISTRIBUTE_BLOCK : k == 1 ? MPI_DISTRIBUTE_CYCLIC
                                                             : MPI_DISTRIBUTE_NONE;
            darg[d] = MPI_DISTRIBUTE_DFLT_DARG;
            if (dist[d] == MPI_DISTRIBUTE_NONE)
                ps[d] = 1;
            else if (dist[d] == MPI_DISTRIBUTE_CYCLIC && rnd(0, 1))
                darg[d] = rnd(1, 3);
        }
        int size = ps[0] * ps[1];
        MPI_Type_create_darray(size, rnd(0, size - 1), 2, gs, dist, darg, ps,
                               rnd(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &t);
    }
    }
    free_derived(&old);
    CHECK(t != MPI_DATATYPE_NULL);
    return t;
}

int main(int argc, char **argv)
{
    dt_init(&argc, &argv);
    int ntypes = argc > 1 ? atoi(argv[1]) : 150;
    if (argc > 2)
        rng = strtoull(argv[2], NULL, 0) | 1;
    int dest = (dt_rank + 1) % dt_size, src = (dt_rank + dt_size - 1) % dt_size;
    int tested = 0;
    for (int k = 0; k < ntypes; k++) {
        MPI_Datatype t = make(rnd(1, 4));
        int count = rnd(1, 3);
        int size;
        MPI_Type_size(t, &size);
        MPI_Aint lb, e;
        MPI_Type_get_true_extent(t, &lb, &e);
        /* now and then a large count, for rendezvous sizes */
        if (size > 0 && size < 4096 && rnd(0, 3) == 0)
            count = 200000 / size + 1;
        if ((long long)size * count > (4 << 20) || e * count > (16 << 20)) {
            free_derived(&t);
            continue;
        }
        CHECK_RC(MPI_Type_commit(&t), MPI_SUCCESS);
        map_t m = ref_map(t, count);
        int bytes = (int)m.bytes;
        CHECK(bytes == size * count);
        tbuf_t sb = tbuf_alloc(&m), rb = tbuf_alloc(&m), pb = tbuf_alloc(&m);
        tbuf_fill(&sb, dt_rank + 1);
        tbuf_fill(&pb, src + 1);
        unsigned char *mine = stream_of(&m, sb.base), *want = stream_of(&m, pb.base);
        /* pack vs. reference */
        unsigned char *packed = malloc((size_t)bytes + 1);
        int pos = 0;
        CHECK_RC(MPI_Pack(sb.base, count, t, packed, bytes + 1, &pos, MPI_COMM_WORLD),
                 MPI_SUCCESS);
        if (pos != bytes || memcmp(packed, mine, (size_t)bytes) != 0) {
            fprintf(stderr, "rank %d: type %d: MPI_Pack differs from the reference\n", dt_rank,
                    k);
            CHECK(0);
        }
        /* typed send, typed receive */
        memset(rb.mem, SENTINEL, rb.span);
        MPI_Request req;
        CHECK_RC(MPI_Isend(sb.base, count, t, dest, k, MPI_COMM_WORLD, &req), MPI_SUCCESS);
        CHECK_RC(MPI_Recv(rb.base, count, t, src, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
        long bad = check_received(&m, &rb, want, (size_t)bytes);
        if (bad >= 0) {
            fprintf(stderr, "rank %d: type %d (%d x %d bytes): received byte %ld wrong\n",
                    dt_rank, k, count, size, bad);
            CHECK(0);
        }
        /* typed send, received as bytes */
        CHECK_RC(MPI_Isend(sb.base, count, t, dest, k, MPI_COMM_WORLD, &req), MPI_SUCCESS);
        CHECK_RC(MPI_Recv(packed, bytes, MPI_BYTE, src, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 MPI_SUCCESS);
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
        CHECK(memcmp(packed, want, (size_t)bytes) == 0);
        tested++;
        free(packed);
        free(mine);
        free(want);
        free(sb.mem);
        free(rb.mem);
        free(pb.mem);
        map_free(&m);
        free_derived(&t);
    }
    CHECK(tested > ntypes / 3);
    dt_finish("dt_p2p_random");
    return 0;
}
